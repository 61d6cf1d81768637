import type { ProviderFamily } from './family.js';

/** Package registries: a publish token is a supply-chain key. */
export const REGISTRIES: ProviderFamily = {
  family: 'registries',
  title: 'package registries',
  rules: [
    {
      id: 'npm-token',
      type: 'regex',
      pattern: '\\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])',
      hints: ['npm_'],
      minRun: 40,
    },
    {
      // Macaroons whose base64 starts with the issuing host: pypi.org or test.pypi.org.
      id: 'pypi-token',
      type: 'regex',
      pattern: '\\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,1000}',
      hints: ['pypi-AgE'],
      minRun: 64,
    },
    {
      id: 'docker-hub-token',
      type: 'regex',
      pattern: '\\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])',
      hints: ['dckr_'],
      minRun: 36,
    },
    {
      id: 'rubygems-api-key',
      type: 'regex',
      pattern: '\\brubygems_[a-f0-9]{48}\\b',
      hints: ['rubygems_'],
      minRun: 57,
    },
    {
      id: 'nuget-api-key',
      type: 'regex',
      pattern: '\\boy2[a-z0-9]{43}\\b',
      hints: ['oy2'],
      minRun: 46,
    },
    {
      id: 'clojars-token',
      type: 'regex',
      pattern: '\\bCLOJARS_[a-z0-9]{60}\\b',
      hints: ['CLOJARS_'],
      minRun: 68,
    },
    {
      id: 'crates-io-token',
      type: 'regex',
      pattern: '\\bcio[A-Za-z0-9]{32}\\b',
      hints: ['cio'],
      minRun: 35,
    },
  ],
};
