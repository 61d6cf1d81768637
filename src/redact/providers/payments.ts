import type { ProviderFamily } from './family.js';

/** Payments and commerce. */
export const PAYMENTS: ProviderFamily = {
  family: 'payments',
  title: 'payments and commerce',
  rules: [
    {
      id: 'stripe-key',
      type: 'regex',
      pattern: '\\b(?:sk|rk)_live_[A-Za-z0-9]{16,247}',
      hints: ['_live_'],
      minRun: 24,
    },
    {
      // Test-mode keys move no money, but they still open the account's test data and settings.
      id: 'stripe-test-key',
      type: 'regex',
      pattern: '\\b(?:sk|rk)_test_[A-Za-z0-9]{16,247}',
      hints: ['_test_'],
      minRun: 24,
    },
    {
      id: 'stripe-webhook-secret',
      type: 'regex',
      pattern: '\\bwhsec_[A-Za-z0-9]{32,64}',
      hints: ['whsec_'],
      minRun: 38,
    },
    {
      // The tail is followed by no base64 character, so a run of `EAAA…` inside base64 data is never taken.
      id: 'square-access-token',
      type: 'regex',
      pattern: '\\b(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_+/=-])',
      hints: ['EAAA', 'sq0atp-'],
      minRun: 26,
    },
    {
      id: 'square-oauth-secret',
      type: 'regex',
      pattern: '\\bsq0csp-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])',
      hints: ['sq0csp-'],
      minRun: 50,
    },
    {
      id: 'braintree-access-token',
      type: 'regex',
      pattern: '\\baccess_token\\$production\\$[a-z0-9]{16}\\$[a-f0-9]{32}\\b',
      hints: ['$production$'],
      minRun: 32,
    },
    {
      id: 'razorpay-key',
      type: 'regex',
      pattern: '\\brzp_live_[A-Za-z0-9]{14,32}\\b',
      hints: ['rzp_live_'],
      minRun: 23,
    },
    {
      id: 'flutterwave-secret-key',
      type: 'regex',
      pattern: '\\bFLWSECK(?:_TEST)?-[a-f0-9]{32}-X\\b',
      hints: ['FLWSECK'],
      minRun: 42,
    },
    {
      id: 'shopify-access-token',
      type: 'regex',
      pattern: '\\bshp(?:at|ca|pa)_[a-fA-F0-9]{32}\\b',
      hints: ['shpat_', 'shpca_', 'shppa_'],
      minRun: 38,
    },
    {
      id: 'shopify-shared-secret',
      type: 'regex',
      pattern: '\\bshpss_[a-fA-F0-9]{32}\\b',
      hints: ['shpss_'],
      minRun: 38,
    },
    {
      id: 'plaid-access-token',
      type: 'regex',
      pattern:
        '\\baccess-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\\b',
      hints: ['access-sandbox-', 'access-development-', 'access-production-'],
      minRun: 51,
    },
    {
      id: 'shippo-token',
      type: 'regex',
      pattern: '\\bshippo_(?:live|test)_[a-f0-9]{40}\\b',
      hints: ['shippo_'],
      minRun: 52,
    },
    {
      id: 'easypost-api-key',
      type: 'regex',
      pattern: '\\bEZ[AT]K[A-Za-z0-9]{54}\\b',
      hints: ['EZAK', 'EZTK'],
      minRun: 58,
    },
  ],
};
