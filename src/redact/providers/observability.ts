import type { ProviderFamily } from './family.js';

/** Observability: metrics, logs, errors and product analytics. */
export const OBSERVABILITY: ProviderFamily = {
  family: 'observability',
  title: 'observability',
  rules: [
    {
      id: 'new-relic-user-api-key',
      type: 'regex',
      pattern: '\\bNRAK-[A-Z0-9]{27}\\b',
      hints: ['NRAK-'],
      minRun: 32,
    },
    {
      id: 'new-relic-insights-key',
      type: 'regex',
      pattern: '\\bNRI[IQ]-[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])',
      hints: ['NRII-', 'NRIQ-'],
      minRun: 37,
    },
    {
      id: 'new-relic-browser-key',
      type: 'regex',
      pattern: '\\bNRJS-[a-f0-9]{19}\\b',
      hints: ['NRJS-'],
      minRun: 24,
    },
    {
      id: 'new-relic-license-key',
      type: 'regex',
      pattern: '\\b[a-f0-9]{36}NRAL\\b',
      hints: ['NRAL'],
      minRun: 40,
    },
    {
      // Organization tokens carry base64 JSON (`sntrys_eyJ…`), user tokens 64 hex.
      id: 'sentry-auth-token',
      type: 'regex',
      pattern: '\\bsntry[su]_[A-Za-z0-9+/=_-]{40,400}',
      hints: ['sntrys_', 'sntryu_'],
    },
    {
      // A DSN carries its key as the user of its URL: `https://<32 hex>@o1.ingest.sentry.io/2` (self-hosted: any
      // host; the legacy form adds `:<32 hex secret>`). The key lets anyone send events as the project.
      id: 'sentry-dsn',
      type: 'regex',
      pattern: '://(?<secret>[a-f0-9]{32}(?::[a-f0-9]{32})?)@[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?/',
      hints: ['://'],
      minRun: 32,
    },
    {
      // The same key in the store endpoint's query or the `X-Sentry-Auth` header: `sentry_key=<32 hex>`.
      id: 'sentry-key',
      type: 'regex',
      pattern: '\\bsentry_(?:key|secret)=(?<secret>[a-f0-9]{32})\\b',
      hints: ['sentry_key=', 'sentry_secret='],
      minRun: 32,
    },
    {
      id: 'grafana-cloud-token',
      type: 'regex',
      pattern: '\\bglc_[A-Za-z0-9+/]{32,400}={0,2}',
      hints: ['glc_'],
    },
    {
      id: 'grafana-service-account-token',
      type: 'regex',
      pattern: '\\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\\b',
      hints: ['glsa_'],
      minRun: 46,
    },
    {
      id: 'honeycomb-api-key',
      type: 'regex',
      pattern: '\\bhc[a-z]{2}k_[a-z0-9]{58}\\b',
      hints: ['k_'],
      minRun: 64,
    },
    {
      id: 'dynatrace-token',
      type: 'regex',
      pattern: '\\bdt0[a-z][0-9]{2}\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}\\b',
      hints: ['dt0'],
      minRun: 64,
    },
    {
      id: 'axiom-token',
      type: 'regex',
      pattern: '\\bxa(?:at|pt)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\\b',
      hints: ['xaat-', 'xapt-'],
      minRun: 41,
    },
    {
      id: 'posthog-personal-api-key',
      type: 'regex',
      pattern: '\\bphx_[A-Za-z0-9]{43}\\b',
      hints: ['phx_'],
      minRun: 47,
    },
  ],
};
