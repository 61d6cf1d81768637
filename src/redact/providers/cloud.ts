import type { ProviderFamily } from './family.js';

/**
 * Cloud providers. Fixed-length alphanumeric ids end at `\b`: inside base64 data a match would need `+` or `/` on
 * both sides of exactly that many characters, which random data practically never gives.
 */
export const CLOUD: ProviderFamily = {
  family: 'cloud',
  title: 'AWS, Google Cloud, Azure and other clouds',
  rules: [
    {
      id: 'aws-access-key-id',
      type: 'regex',
      pattern: '\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b',
      hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
      minRun: 20,
    },
    {
      // A secret access key is 40 characters of base64 with nothing to recognise it by: only its context gives it
      // away (`aws_secret_access_key = …`, `AWS secret: …`).
      id: 'aws-secret-access-key',
      type: 'regex',
      pattern:
        '(?:aws|AWS|Aws)[A-Za-z0-9_ .-]{0,32}(?:secret|Secret|SECRET)[A-Za-z0-9_ .-]{0,32}["\']?[ \\t]{0,4}(?:=>|:=|[:=])[ \\t]{0,4}["\']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])',
      // Hints that start with a rare letter: memchr meets their first character seldom in prose.
      hints: ['cret', 'CRET'],
    },
    {
      // Session tokens start with a fixed base64 header (`!\n\torigin_ec` / `\x17\n\x06er/aws`).
      id: 'aws-session-token',
      type: 'regex',
      pattern: '(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE[A-Za-z0-9]{3})[A-Za-z0-9/+]{100,4096}={0,2}',
      hints: ['IQoJb3JpZ2luX2Vj', 'FwoGZXIvYXdzE'],
      minRun: 16,
    },
    {
      // Bedrock API keys: `ABSK` and base64 of `BedrockAPIKey-…`.
      id: 'aws-bedrock-api-key',
      type: 'regex',
      pattern: '\\bABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{40,1024}={0,2}',
      hints: ['ABSKQmVkcm9ja0FQSUtleS'],
      minRun: 22,
    },
    {
      id: 'google-api-key',
      type: 'regex',
      pattern: '\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])',
      hints: ['AIza'],
      minRun: 39,
    },
    {
      id: 'google-oauth-client-secret',
      type: 'regex',
      pattern: '\\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])',
      hints: ['GOCSPX-'],
      minRun: 35,
    },
    {
      id: 'google-oauth-refresh-token',
      type: 'regex',
      pattern: '(?<![A-Za-z0-9_/-])1//0[A-Za-z0-9_-]{40,512}(?![A-Za-z0-9_-])',
      hints: ['1//0'],
      minRun: 41,
    },
    {
      id: 'google-oauth-access-token',
      type: 'regex',
      pattern: '\\bya29\\.[A-Za-z0-9_-]{30,2048}',
      hints: ['ya29.'],
      minRun: 30,
    },
    {
      // Storage and Cosmos DB connection strings: `…;AccountKey=<88 base64>;…`.
      id: 'azure-storage-account-key',
      type: 'regex',
      pattern: 'AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)',
      hints: ['AccountKey='],
    },
    {
      // A shared access signature: the `sig` parameter of a SAS URL or connection string.
      id: 'azure-sas-signature',
      type: 'regex',
      pattern: '[?&;]sig=(?<secret>[A-Za-z0-9%+/=]{20,1024})',
      hints: ['sig='],
    },
    {
      // Entra ID (Azure AD) client secrets: three characters, a digit and `Q~`, then 31 to 34 more.
      id: 'azure-ad-client-secret',
      type: 'regex',
      pattern: '(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])',
      hints: ['Q~'],
    },
    {
      id: 'alibaba-access-key-id',
      type: 'regex',
      pattern: '\\bLTAI[A-Za-z0-9]{12,20}\\b',
      hints: ['LTAI'],
      minRun: 16,
    },
    {
      id: 'tencent-secret-id',
      type: 'regex',
      pattern: '\\bAKID[A-Za-z0-9]{32}\\b',
      hints: ['AKID'],
      minRun: 36,
    },
    {
      id: 'digitalocean-token',
      type: 'regex',
      pattern: '\\bdo[opr]_v1_[a-f0-9]{64}\\b',
      hints: ['_v1_'],
      minRun: 71,
    },
    {
      id: 'cloudflare-origin-ca-key',
      type: 'regex',
      pattern: '\\bv1\\.0-[a-f0-9]{24}-[a-f0-9]{146}\\b',
      hints: ['v1.0-'],
      minRun: 146,
    },
    {
      id: 'heroku-api-key',
      type: 'regex',
      pattern: '\\bHRKU-AA[A-Za-z0-9_-]{58}(?![A-Za-z0-9_-])',
      hints: ['HRKU-'],
      minRun: 65,
    },
  ],
};
