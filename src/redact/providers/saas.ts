import type { ProviderFamily } from './family.js';

/** Work and product tools: issue trackers, docs, design, CRM, CMS, feature flags, maps, storage. */
export const SAAS: ProviderFamily = {
  family: 'saas',
  title: 'work and product services',
  rules: [
    {
      id: 'linear-api-key',
      type: 'regex',
      pattern: '\\blin_(?:api|oauth)_[A-Za-z0-9]{40}\\b',
      hints: ['lin_api_', 'lin_oauth_'],
      minRun: 48,
    },
    {
      id: 'notion-token',
      type: 'regex',
      pattern: '\\b(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})\\b',
      hints: ['secret_', 'ntn_'],
      minRun: 50,
    },
    {
      id: 'airtable-token',
      type: 'regex',
      pattern: '\\bpat[A-Za-z0-9]{14}\\.[a-f0-9]{64}\\b',
      hints: ['pat'],
      minRun: 64,
    },
    {
      id: 'figma-token',
      type: 'regex',
      pattern: '\\bfigd_[A-Za-z0-9_-]{40}(?![A-Za-z0-9_-])',
      hints: ['figd_'],
      minRun: 45,
    },
    {
      id: 'hubspot-private-app-token',
      type: 'regex',
      pattern: '\\bpat-(?:na|eu|ap)[0-9]-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\\b',
      hints: ['pat-'],
      minRun: 44,
    },
    {
      id: 'typeform-token',
      type: 'regex',
      pattern: '\\btfp_[A-Za-z0-9_.-]{40,60}',
      hints: ['tfp_'],
    },
    {
      id: 'postman-api-key',
      type: 'regex',
      pattern: '\\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\\b',
      hints: ['PMAK-'],
      minRun: 64,
    },
    {
      id: 'contentful-token',
      type: 'regex',
      pattern: '\\bCFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])',
      hints: ['CFPAT-'],
      minRun: 49,
    },
    {
      id: 'mapbox-secret-token',
      type: 'regex',
      pattern: '\\bsk\\.eyJ[A-Za-z0-9_-]{50,400}\\.[A-Za-z0-9_-]{20,100}',
      hints: ['sk.eyJ'],
      minRun: 53,
    },
    {
      id: 'dropbox-token',
      type: 'regex',
      pattern: '\\bsl\\.(?:u\\.)?[A-Za-z0-9_-]{130,1400}',
      hints: ['sl.'],
      minRun: 130,
    },
    {
      // Meta Graph API tokens. The tail is followed by no base64 character, so base64 data never gives one.
      id: 'facebook-access-token',
      type: 'regex',
      pattern: '\\bEAA[A-Za-z0-9]{100,400}(?![A-Za-z0-9+/=])',
      hints: ['EAA'],
      minRun: 103,
    },
    {
      id: 'launchdarkly-key',
      type: 'regex',
      pattern: '\\b(?:api|sdk|mob)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\\b',
      hints: ['api-', 'sdk-', 'mob-'],
      minRun: 40,
    },
    {
      id: 'adobe-client-secret',
      type: 'regex',
      pattern: '\\bp8e-[A-Za-z0-9]{32}\\b',
      hints: ['p8e-'],
      minRun: 36,
    },
  ],
};
