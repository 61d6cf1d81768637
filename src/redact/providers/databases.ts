import type { ProviderFamily } from './family.js';

/** Databases and data platforms. Passwords in connection URLs are the generic `url-password` rule's. */
export const DATABASES: ProviderFamily = {
  family: 'databases',
  title: 'databases and data platforms',
  rules: [
    {
      id: 'planetscale-token',
      type: 'regex',
      pattern: '\\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}',
      hints: ['pscale_'],
    },
    {
      id: 'supabase-access-token',
      type: 'regex',
      pattern: '\\bsbp_[a-f0-9]{40}\\b',
      hints: ['sbp_'],
      minRun: 44,
    },
    {
      id: 'supabase-secret-key',
      type: 'regex',
      pattern: '\\bsb_secret_[A-Za-z0-9_-]{31,40}(?![A-Za-z0-9_-])',
      hints: ['sb_secret_'],
      minRun: 41,
    },
    { id: 'neon-api-key', type: 'regex', pattern: '\\bnapi_[a-z0-9]{64}\\b', hints: ['napi_'], minRun: 69 },
    {
      id: 'databricks-token',
      type: 'regex',
      pattern: '\\bdapi[a-f0-9]{32}(?:-[0-9])?\\b',
      hints: ['dapi'],
      minRun: 36,
    },
    {
      id: 'firebase-cloud-messaging-key',
      type: 'regex',
      pattern: '\\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}(?![A-Za-z0-9_-])',
      hints: [':APA91b'],
      minRun: 140,
    },
    {
      id: 'aiven-service-password',
      type: 'regex',
      pattern: '\\bAVNS_[A-Za-z0-9_-]{20,40}(?![A-Za-z0-9_-])',
      hints: ['AVNS_'],
      minRun: 25,
    },
  ],
};
