import type { ProviderFamily } from './family.js';

/** Chat, messaging and webhooks: a webhook URL is a credential in itself. */
export const CHAT: ProviderFamily = {
  family: 'chat',
  title: 'chat, messaging and webhooks',
  rules: [
    {
      id: 'slack-token',
      type: 'regex',
      pattern: '\\bxox[abposre]-[A-Za-z0-9-]{20,250}',
      hints: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxe-'],
      minRun: 25,
    },
    {
      id: 'slack-app-token',
      type: 'regex',
      pattern: '\\bxapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,14}-[a-f0-9]{64}\\b',
      hints: ['xapp-'],
      minRun: 64,
    },
    {
      id: 'slack-config-token',
      type: 'regex',
      pattern: '\\bxoxe\\.xox[bp]-[0-9]-[A-Za-z0-9]{140,180}\\b',
      hints: ['xoxe.'],
      minRun: 140,
    },
    {
      // Only the secret path is hidden, so the trace still says a Slack webhook was called.
      id: 'slack-webhook-url',
      type: 'regex',
      pattern: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9_/-]{20,160})',
      hints: ['hooks.slack.com/'],
      minRun: 20,
    },
    {
      id: 'discord-webhook-url',
      type: 'regex',
      pattern: 'discord(?:app)?\\.com/api/webhooks/(?<secret>[0-9]{17,20}/[A-Za-z0-9_-]{60,68})',
      hints: ['/api/webhooks/'],
      minRun: 60,
    },
    {
      // Bot tokens: base64 of the bot's numeric id (letters and digits only), a timestamp and an HMAC.
      id: 'discord-bot-token',
      type: 'regex',
      pattern:
        '(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])',
      hints: ['.'],
      minRun: 24,
    },
    {
      id: 'telegram-bot-token',
      type: 'regex',
      pattern: '(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])',
      hints: [':AA'],
      minRun: 35,
    },
    {
      id: 'teams-webhook-url',
      type: 'regex',
      pattern: '\\.webhook\\.office\\.com/webhookb2/(?<secret>[A-Za-z0-9@/_-]{60,400})',
      hints: ['.webhook.office.com/'],
      minRun: 36,
    },
    {
      id: 'twilio-api-key',
      type: 'regex',
      pattern: '\\bSK[0-9a-f]{32}\\b',
      hints: ['SK'],
      minRun: 34,
    },
    {
      // The account SID, and the auth token when it follows as `AC…:token` (HTTP basic credentials).
      id: 'twilio-account-sid',
      type: 'regex',
      pattern: '\\bAC[0-9a-f]{32}(?::[0-9a-f]{32})?\\b',
      hints: ['AC'],
      minRun: 34,
    },
  ],
};
