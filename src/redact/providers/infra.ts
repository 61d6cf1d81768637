import type { ProviderFamily } from './family.js';

/** Infrastructure: secret stores, deployment platforms, networks and key files. */
export const INFRA: ProviderFamily = {
  family: 'infra',
  title: 'infrastructure, secret stores and deployment',
  rules: [
    {
      id: 'vault-token',
      type: 'regex',
      pattern: '\\bhv[sbr]\\.[A-Za-z0-9_-]{24,255}',
      hints: ['hvs.', 'hvb.', 'hvr.'],
      minRun: 24,
    },
    {
      id: 'terraform-cloud-token',
      type: 'regex',
      pattern: '\\b[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{60,70}(?![A-Za-z0-9_-])',
      hints: ['.atlasv1.'],
      minRun: 60,
    },
    {
      // Personal, service, service-account, CLI, SCIM and audit tokens; service tokens may name their env.
      id: 'doppler-token',
      type: 'regex',
      pattern: '\\bdp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{2,35}\\.)?[A-Za-z0-9]{40,44}\\b',
      hints: ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'],
      minRun: 40,
    },
    {
      id: 'pulumi-access-token',
      type: 'regex',
      pattern: '\\bpul-[a-f0-9]{40}\\b',
      hints: ['pul-'],
      minRun: 44,
    },
    {
      id: 'age-secret-key',
      type: 'regex',
      pattern: '\\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\\b',
      hints: ['AGE-SECRET-KEY-1'],
      minRun: 74,
    },
    {
      id: 'tailscale-key',
      type: 'regex',
      pattern: '\\btskey-[a-z]{3,8}-[A-Za-z0-9]{8,20}-[A-Za-z0-9]{16,48}\\b',
      hints: ['tskey-'],
      minRun: 35,
    },
    { id: 'netlify-token', type: 'regex', pattern: '\\bnfp_[A-Za-z0-9]{36}\\b', hints: ['nfp_'], minRun: 40 },
    {
      id: 'render-api-key',
      type: 'regex',
      pattern: '\\brnd_[A-Za-z0-9]{32}\\b',
      hints: ['rnd_'],
      minRun: 36,
    },
    {
      id: 'octopus-deploy-api-key',
      type: 'regex',
      pattern: '\\bAPI-[A-Z0-9]{26}\\b',
      hints: ['API-'],
      minRun: 30,
    },
    {
      id: 'prefect-api-key',
      type: 'regex',
      pattern: '\\bpnu_[A-Za-z0-9]{36}\\b',
      hints: ['pnu_'],
      minRun: 40,
    },
    {
      id: 'onepassword-service-account-token',
      type: 'regex',
      pattern: '\\bops_eyJ[A-Za-z0-9+/_-]{100,4096}={0,2}',
      hints: ['ops_eyJ'],
    },
    {
      id: 'onepassword-secret-key',
      type: 'regex',
      pattern:
        '\\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b',
      hints: ['A3-'],
      minRun: 34,
    },
  ],
};
