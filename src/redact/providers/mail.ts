import type { ProviderFamily } from './family.js';

/** Mail delivery and marketing. */
export const MAIL: ProviderFamily = {
  family: 'mail',
  title: 'mail delivery',
  rules: [
    {
      id: 'sendgrid-api-key',
      type: 'regex',
      pattern: '\\bSG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])',
      hints: ['SG.'],
      minRun: 22,
    },
    {
      id: 'mailgun-api-key',
      type: 'regex',
      pattern: '\\bkey-[a-f0-9]{32}\\b',
      hints: ['key-'],
      minRun: 36,
    },
    {
      // The newer private API keys: 32 hex, then two groups of 8.
      id: 'mailgun-private-key',
      type: 'regex',
      pattern: '\\b[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}\\b',
      hints: ['-'],
      minRun: 50,
    },
    {
      // 32 hex and the data center: `…-us21`.
      id: 'mailchimp-api-key',
      type: 'regex',
      pattern: '\\b[a-f0-9]{32}-us[0-9]{1,2}\\b',
      hints: ['-us'],
      minRun: 36,
    },
    {
      id: 'resend-api-key',
      type: 'regex',
      pattern: '\\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\\b',
      hints: ['re_'],
      minRun: 36,
    },
    {
      id: 'brevo-api-key',
      type: 'regex',
      pattern: '\\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\\b',
      hints: ['xkeysib-', 'xsmtpsib-'],
      minRun: 88,
    },
  ],
};
