import { ALPHANUM, B64URL, b64, chars, DIGITS, digits, hex, LOWER, UPPER, uuid } from './fabricate.js';

/**
 * One fabricated, format-valid example per provider rule (or more), and near misses that must stay as they are.
 * An example is the secret itself, or `[text, secret]` when the rule hides only part of the text (the signature
 * of a SAS URL, the key in a connection string).
 */
export type Example = string | [text: string, secret: string];

export interface ProviderCase {
  positives: Example[];
  nearMisses: string[];
}

const AN = ALPHANUM;

function inText(prefix: string, secret: string, suffix = ''): [string, string] {
  return [`${prefix}${secret}${suffix}`, secret];
}

const azureKey = `${b64(86)}==`;
const sasSig = `${chars(40, `${AN}%`)}%3D`;
const slackPath = `T${chars(9, UPPER)}/B${chars(9, UPPER)}/${chars(24, AN)}`;
const discordPath = `${digits(18)}/${chars(68, B64URL)}`;
const teamsPath = `${uuid()}@${uuid()}/IncomingWebhook/${hex(32)}/${uuid()}`;
const awsSecret = b64(40);

export const PROVIDER_EXAMPLES: Record<string, ProviderCase> = {
  // cloud
  'aws-access-key-id': { positives: [`AKIA${chars(16, UPPER)}`], nearMisses: [`AKIA${chars(15, UPPER)}`] },
  'aws-secret-access-key': {
    positives: [
      inText('aws_secret_access_key = ', awsSecret),
      inText('The AWS secret key: ', b64(40), ' (rotate it)'),
    ],
    nearMisses: ['AWS region eu-west-1, secret rotation: every 30 days'],
  },
  'aws-session-token': {
    positives: [`IQoJb3JpZ2luX2Vj${b64(300)}`],
    nearMisses: [`IQoJb3JpZ2luX2Vj${chars(20, AN)}`],
  },
  'aws-bedrock-api-key': {
    positives: [`ABSKQmVkcm9ja0FQSUtleS${b64(120)}`],
    nearMisses: [`ABSKQmVkcm9ja0FQSUtleS${chars(10, AN)}`],
  },
  'google-api-key': { positives: [`AIza${chars(35, B64URL)}`], nearMisses: [`AIza${chars(20, AN)}`] },
  'google-oauth-client-secret': {
    positives: [`GOCSPX-${chars(28, B64URL)}`],
    nearMisses: [`GOCSPX-${chars(12, AN)}`],
  },
  'google-oauth-refresh-token': {
    positives: [`1//0g${chars(100, B64URL)}`],
    nearMisses: ['1//0abc', `x1//0g${chars(10, AN)}`],
  },
  'google-oauth-access-token': {
    positives: [`ya29.${chars(120, B64URL)}`],
    nearMisses: ['ya29.short'],
  },
  'azure-storage-account-key': {
    positives: [
      inText(
        'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=',
        azureKey,
        ';EndpointSuffix=core.windows.net',
      ),
    ],
    nearMisses: ['an AccountKey is needed, see the portal'],
  },
  'azure-sas-signature': {
    positives: [
      inText('https://acme.blob.core.windows.net/c/report.pdf?sv=2022-11-02&sp=r&se=2026-12-31&sig=', sasSig),
    ],
    nearMisses: ['https://acme.blob.core.windows.net/c/report.pdf?sv=2022-11-02&sp=r&sr=b'],
  },
  'azure-ad-client-secret': {
    positives: [`${chars(3, AN)}8Q~${chars(34, `${AN}_~.-`)}`],
    nearMisses: ['abc8Q~short', `${chars(3, AN)}8Q-${chars(34, AN)}`],
  },
  'alibaba-access-key-id': { positives: [`LTAI${chars(20, AN)}`], nearMisses: [`LTAI${chars(8, AN)}`] },
  'tencent-secret-id': { positives: [`AKID${chars(32, AN)}`], nearMisses: [`AKID${chars(31, AN)}`] },
  'digitalocean-token': {
    positives: [`dop_v1_${hex(64)}`, `doo_v1_${hex(64)}`],
    nearMisses: [`dop_v1_${hex(63)}`],
  },
  'cloudflare-origin-ca-key': {
    positives: [`v1.0-${hex(24)}-${hex(146)}`],
    nearMisses: [`v1.0-${hex(24)}-${hex(10)}`],
  },
  'heroku-api-key': { positives: [`HRKU-AA${chars(58, B64URL)}`], nearMisses: [`HRKU-AB${chars(58, AN)}`] },
  // source hosting
  'github-token': {
    positives: [`ghp_${chars(36, AN)}`, `github_pat_11${chars(20, UPPER)}_${chars(59, AN)}`],
    nearMisses: ['ghp_short'],
  },
  'gitlab-token': { positives: [`glpat-${chars(20, B64URL)}`], nearMisses: ['glpat-short'] },
  'gitlab-deploy-token': { positives: [`gldt-${chars(20, B64URL)}`], nearMisses: ['gldt-short'] },
  'gitlab-runner-token': { positives: [`glrt-${chars(24, B64URL)}`], nearMisses: ['glrt-short'] },
  'gitlab-pipeline-trigger-token': { positives: [`glptt-${hex(40)}`], nearMisses: [`glptt-${hex(39)}`] },
  'gitlab-oauth-secret': { positives: [`gloas-${hex(64)}`], nearMisses: [`gloas-${hex(63)}`] },
  'gitlab-runner-registration-token': {
    positives: [`GR1348941${chars(20, B64URL)}`],
    nearMisses: ['GR1348941short'],
  },
  'gitlab-other-token': {
    positives: [`glft-${chars(20, B64URL)}`, `glimt-${chars(25, AN)}`],
    nearMisses: [`glxx-${chars(20, AN)}`],
  },
  'bitbucket-app-password': { positives: [`ATBB${chars(32, AN)}`], nearMisses: [`ATBB${chars(31, AN)}`] },
  'atlassian-api-token': {
    positives: [`ATATT3${chars(183, B64URL)}=${chars(8, UPPER)}`],
    nearMisses: [`ATATT3${chars(40, AN)}`],
  },
  'sourcegraph-token': {
    positives: [`sgp_${hex(16)}_${hex(40)}`, `sgp_${hex(40)}`],
    nearMisses: [`sgp_${hex(39)}`],
  },
  'sonarqube-token': { positives: [`squ_${hex(40)}`, `sqp_${hex(40)}`], nearMisses: [`sqx_${hex(40)}`] },
  'jfrog-reference-token': {
    positives: [`cmVmdGtuOjAxOj${chars(50, AN)}`],
    nearMisses: [`cmVmdGtuOjAxOj${chars(10, AN)}`],
  },
  'circleci-token': {
    positives: [`CCIPAT_${chars(22, AN)}_${hex(40)}`],
    nearMisses: [`CCIPAT_${chars(22, AN)}`],
  },
  'buildkite-token': { positives: [`bkua_${hex(40)}`], nearMisses: [`bkua_${hex(39)}`] },
  // chat and webhooks
  'slack-token': {
    positives: [`xoxb-${digits(11)}-${digits(13)}-${chars(24, AN)}`, `xoxp-${digits(12)}-${chars(40, AN)}`],
    nearMisses: ['xoxb-short', 'xoxo-hugs'],
  },
  'slack-app-token': {
    positives: [`xapp-1-A${chars(9, UPPER)}-${digits(13)}-${hex(64)}`],
    nearMisses: ['xapp-1-short'],
  },
  'slack-config-token': {
    positives: [`xoxe.xoxp-1-${chars(150, AN)}`],
    nearMisses: ['xoxe.xoxp-1-short'],
  },
  'slack-webhook-url': {
    positives: [inText('https://hooks.slack.com/services/', slackPath)],
    nearMisses: ['https://hooks.slack.com/services/help'],
  },
  'discord-webhook-url': {
    positives: [inText('https://discord.com/api/webhooks/', discordPath)],
    nearMisses: ['https://discord.com/api/webhooks/123/abc'],
  },
  'discord-bot-token': {
    positives: [`M${chars(25, AN)}.${chars(6, B64URL)}.${chars(38, B64URL)}`],
    nearMisses: [`X${chars(25, AN)}.${chars(6, AN)}.${chars(38, AN)}`],
  },
  'telegram-bot-token': {
    positives: [`${digits(10)}:AA${chars(33, B64URL)}`],
    nearMisses: [`${digits(10)}:AB${chars(33, AN)}`],
  },
  'teams-webhook-url': {
    positives: [inText('https://contoso.webhook.office.com/webhookb2/', teamsPath)],
    nearMisses: ['https://contoso.webhook.office.com/webhookb2/short'],
  },
  'twilio-api-key': { positives: [`SK${hex(32)}`], nearMisses: [`SK${hex(31)}`] },
  'twilio-account-sid': {
    positives: [`AC${hex(32)}`, `AC${hex(32)}:${hex(32)}`],
    nearMisses: [`AC${chars(32, 'ABCDEF0123456789')}`],
  },
  // payments and commerce
  'stripe-key': { positives: [`sk_live_${chars(24, AN)}`], nearMisses: ['sk_live_short'] },
  'stripe-test-key': { positives: [`sk_test_${chars(24, AN)}`], nearMisses: [`pk_test_${chars(24, AN)}`] },
  'stripe-webhook-secret': { positives: [`whsec_${chars(32, AN)}`], nearMisses: [`whsec_${chars(10, AN)}`] },
  'square-access-token': {
    positives: [`EAAA${chars(60, B64URL)}`, `sq0atp-${chars(22, B64URL)}`],
    nearMisses: [`EAAA${chars(10, AN)}`],
  },
  'square-oauth-secret': { positives: [`sq0csp-${chars(43, B64URL)}`], nearMisses: ['sq0csp-short'] },
  'braintree-access-token': {
    positives: [`access_token$production$${chars(16, LOWER)}$${hex(32)}`],
    nearMisses: [`access_token$sandbox$${chars(16, LOWER)}$${hex(32)}`],
  },
  'razorpay-key': { positives: [`rzp_live_${chars(14, AN)}`], nearMisses: [`rzp_test_${chars(14, AN)}`] },
  'flutterwave-secret-key': { positives: [`FLWSECK-${hex(32)}-X`], nearMisses: [`FLWSECK-${hex(32)}-Y`] },
  'shopify-access-token': { positives: [`shpat_${hex(32)}`], nearMisses: [`shpat_${hex(31)}`] },
  'shopify-shared-secret': { positives: [`shpss_${hex(32)}`], nearMisses: [`shpss_${hex(31)}`] },
  'plaid-access-token': {
    positives: [`access-production-${uuid()}`],
    nearMisses: [`access-staging-${uuid()}`],
  },
  'shippo-token': { positives: [`shippo_live_${hex(40)}`], nearMisses: [`shippo_live_${hex(39)}`] },
  'easypost-api-key': { positives: [`EZAK${chars(54, AN)}`], nearMisses: [`EZAK${chars(53, AN)}`] },
  // mail
  'sendgrid-api-key': {
    positives: [`SG.${chars(22, B64URL)}.${chars(43, B64URL)}`],
    nearMisses: [`SG.${chars(10, AN)}.${chars(10, AN)}`],
  },
  'mailgun-api-key': { positives: [`key-${hex(32)}`], nearMisses: [`key-${hex(31)}`] },
  'mailgun-private-key': {
    positives: [`${hex(32)}-${hex(8)}-${hex(8)}`],
    nearMisses: [`${hex(32)}-${hex(8)}`],
  },
  'mailchimp-api-key': { positives: [`${hex(32)}-us21`], nearMisses: [`${hex(32)}-eu21`] },
  'resend-api-key': {
    positives: [`re_${chars(8, AN)}_${chars(24, AN)}`],
    nearMisses: ['re_compile_the_pattern'],
  },
  'brevo-api-key': {
    positives: [`xkeysib-${hex(64)}-${chars(16, AN)}`],
    nearMisses: [`xkeysib-${hex(10)}`],
  },
  // package registries
  'npm-token': { positives: [`npm_${chars(36, AN)}`], nearMisses: ['npm_config_cache'] },
  'pypi-token': {
    positives: [`pypi-AgEIcHlwaS5vcmc${chars(80, B64URL)}`],
    nearMisses: [`pypi-AgEIcHlwaS5vcmc${chars(10, AN)}`],
  },
  'docker-hub-token': { positives: [`dckr_pat_${chars(27, B64URL)}`], nearMisses: ['dckr_pat_short'] },
  'rubygems-api-key': { positives: [`rubygems_${hex(48)}`], nearMisses: [`rubygems_${hex(47)}`] },
  'nuget-api-key': { positives: [`oy2${chars(43, LOWER)}`], nearMisses: [`oy2${chars(42, LOWER)}`] },
  'clojars-token': {
    positives: [`CLOJARS_${chars(60, LOWER)}`],
    nearMisses: [`CLOJARS_${chars(59, LOWER)}`],
  },
  'crates-io-token': { positives: [`cio${chars(32, AN)}`], nearMisses: [`cio${chars(31, AN)}`] },
  // AI APIs
  'anthropic-api-key': { positives: [`sk-ant-api03-${chars(93, B64URL)}AA`], nearMisses: ['sk-ant-short'] },
  'openrouter-api-key': { positives: [`sk-or-v1-${hex(64)}`], nearMisses: ['sk-or-v1-abc'] },
  'openai-api-key': { positives: [`sk-proj-${chars(100, B64URL)}`], nearMisses: ['sk-12345'] },
  'huggingface-token': {
    positives: [`hf_${chars(34, AN)}`, `api_org_${chars(34, AN)}`],
    nearMisses: [`hf_${chars(20, AN)}`],
  },
  'groq-api-key': { positives: [`gsk_${chars(52, AN)}`], nearMisses: [`gsk_${chars(51, AN)}`] },
  'perplexity-api-key': { positives: [`pplx-${chars(48, AN)}`], nearMisses: [`pplx-${chars(47, AN)}`] },
  'replicate-api-token': { positives: [`r8_${chars(37, AN)}`], nearMisses: [`r8_${chars(36, AN)}`] },
  'xai-api-key': { positives: [`xai-${chars(80, AN)}`], nearMisses: [`xai-${chars(79, AN)}`] },
  'langsmith-api-key': {
    positives: [`lsv2_pt_${hex(32)}_${hex(10)}`],
    nearMisses: [`lsv2_pt_${hex(32)}`],
  },
  'pinecone-api-key': {
    positives: [`pcsk_${chars(6, AN)}_${chars(64, AN)}`],
    nearMisses: [`pcsk_${chars(6, AN)}`],
  },
  'tavily-api-key': { positives: [`tvly-dev-${chars(32, AN)}`], nearMisses: [`tvly-${chars(31, AN)}`] },
  'fireworks-api-key': { positives: [`fw_${chars(24, AN)}`], nearMisses: [`fw_${chars(23, AN)}`] },
  'cerebras-api-key': { positives: [`csk-${chars(48, LOWER)}`], nearMisses: [`csk-${chars(47, LOWER)}`] },
  'llamacloud-api-key': { positives: [`llx-${chars(48, AN)}`], nearMisses: [`llx-${chars(47, AN)}`] },
  'firecrawl-api-key': { positives: [`fc-${hex(32)}`], nearMisses: [`fc-${hex(31)}`] },
  'jina-api-key': { positives: [`jina_${hex(32)}${chars(35, AN)}`], nearMisses: [`jina_${hex(32)}`] },
  'e2b-api-key': { positives: [`e2b_${hex(40)}`], nearMisses: [`e2b_${hex(39)}`] },
  'elevenlabs-api-key': { positives: [`sk_${hex(48)}`], nearMisses: [`sk_${hex(47)}`] },
  'anyscale-api-key': { positives: [`esecret_${chars(30, AN)}`], nearMisses: ['esecret_short'] },
  // observability
  'new-relic-user-api-key': {
    positives: [`NRAK-${chars(27, UPPER)}`],
    nearMisses: [`NRAK-${chars(26, UPPER)}`],
  },
  'new-relic-insights-key': { positives: [`NRII-${chars(32, B64URL)}`], nearMisses: ['NRII-short'] },
  'new-relic-browser-key': { positives: [`NRJS-${hex(19)}`], nearMisses: [`NRJS-${hex(18)}`] },
  'new-relic-license-key': { positives: [`${hex(36)}NRAL`], nearMisses: [`${hex(35)}NRAL`] },
  'sentry-auth-token': {
    positives: [`sntrys_eyJ${b64(120)}`, `sntryu_${hex(64)}`],
    nearMisses: ['sntrys_short'],
  },
  'sentry-dsn': {
    positives: [
      inText('SENTRY_DSN=https://', hex(32), '@o4504872.ingest.sentry.io/4504872191'),
      inText('dsn: https://', `${hex(32)}:${hex(32)}`, '@sentry.example.com:9000/7'),
    ],
    nearMisses: [`https://${hex(31)}@o1.ingest.sentry.io/2`, 'https://user@example.com/path'],
  },
  'sentry-key': {
    positives: [
      inText('https://o1.ingest.sentry.io/api/2/envelope/?sentry_version=7&sentry_key=', hex(32)),
      inText('Sentry sentry_version=7, sentry_key=', hex(32), ', sentry_client=raven-js'),
    ],
    nearMisses: [`sentry_key=${hex(31)}`],
  },
  'grafana-cloud-token': { positives: [`glc_${b64(80)}`], nearMisses: ['glc_short'] },
  'grafana-service-account-token': {
    positives: [`glsa_${chars(32, AN)}_${hex(8)}`],
    nearMisses: [`glsa_${chars(32, AN)}`],
  },
  'honeycomb-api-key': {
    positives: [`hcaik_${chars(58, LOWER)}`],
    nearMisses: [`hcaik_${chars(57, LOWER)}`],
  },
  'dynatrace-token': {
    positives: [`dt0c01.${chars(24, UPPER)}.${chars(64, UPPER)}`],
    nearMisses: [`dt0c01.${chars(24, UPPER)}`],
  },
  'axiom-token': { positives: [`xaat-${uuid()}`], nearMisses: ['xaat-1234'] },
  'posthog-personal-api-key': { positives: [`phx_${chars(43, AN)}`], nearMisses: [`phx_${chars(42, AN)}`] },
  // databases
  'planetscale-token': {
    positives: [`pscale_tkn_${chars(43, `${B64URL}.`)}`],
    nearMisses: ['pscale_tkn_short'],
  },
  'supabase-access-token': { positives: [`sbp_${hex(40)}`], nearMisses: [`sbp_${hex(39)}`] },
  'supabase-secret-key': { positives: [`sb_secret_${chars(31, B64URL)}`], nearMisses: ['sb_secret_short'] },
  'neon-api-key': { positives: [`napi_${chars(64, LOWER)}`], nearMisses: [`napi_${chars(63, LOWER)}`] },
  'databricks-token': { positives: [`dapi${hex(32)}`, `dapi${hex(32)}-2`], nearMisses: [`dapi${hex(31)}`] },
  'firebase-cloud-messaging-key': {
    positives: [`AAAA${chars(7, B64URL)}:APA91b${chars(134, B64URL)}`],
    nearMisses: [`AAAA${chars(7, AN)}:APA91b${chars(20, AN)}`],
  },
  'aiven-service-password': { positives: [`AVNS_${chars(24, B64URL)}`], nearMisses: ['AVNS_short'] },
  // infrastructure
  'vault-token': {
    positives: [`hvs.${chars(90, B64URL)}`, `hvb.${chars(120, AN)}`],
    nearMisses: ['hvs.short'],
  },
  'terraform-cloud-token': {
    positives: [`${chars(14, AN)}.atlasv1.${chars(67, B64URL)}`],
    nearMisses: [`${chars(14, AN)}.atlasv1.short`],
  },
  'doppler-token': {
    positives: [`dp.pt.${chars(43, AN)}`, `dp.st.prd.${chars(40, AN)}`],
    nearMisses: ['dp.pt.short'],
  },
  'pulumi-access-token': { positives: [`pul-${hex(40)}`], nearMisses: [`pul-${hex(39)}`] },
  'age-secret-key': {
    positives: [`AGE-SECRET-KEY-1${chars(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`],
    nearMisses: [`AGE-SECRET-KEY-1${chars(57, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`],
  },
  'tailscale-key': {
    positives: [`tskey-auth-${chars(10, AN)}-${chars(32, AN)}`],
    nearMisses: ['tskey-auth-short'],
  },
  'netlify-token': { positives: [`nfp_${chars(36, AN)}`], nearMisses: [`nfp_${chars(35, AN)}`] },
  'render-api-key': { positives: [`rnd_${chars(32, AN)}`], nearMisses: [`rnd_${chars(31, AN)}`] },
  'octopus-deploy-api-key': {
    positives: [`API-${chars(26, UPPER)}`],
    nearMisses: [`API-${chars(25, UPPER)}`],
  },
  'prefect-api-key': { positives: [`pnu_${chars(36, AN)}`], nearMisses: [`pnu_${chars(35, AN)}`] },
  'onepassword-service-account-token': {
    positives: [`ops_eyJ${b64(200)}`],
    nearMisses: ['ops_eyJabc'],
  },
  'onepassword-secret-key': {
    positives: [
      `A3-${chars(6, UPPER)}-${chars(11, UPPER)}-${chars(5, UPPER)}-${chars(5, UPPER)}-${chars(5, UPPER)}`,
    ],
    nearMisses: [`A3-${chars(6, UPPER)}-${chars(11, UPPER)}`],
  },
  // work and product services
  'linear-api-key': { positives: [`lin_api_${chars(40, AN)}`], nearMisses: [`lin_api_${chars(39, AN)}`] },
  'notion-token': {
    positives: [`secret_${chars(43, AN)}`, `ntn_${chars(11, DIGITS)}${chars(35, AN)}`],
    nearMisses: [`secret_${chars(42, AN)}`],
  },
  'airtable-token': {
    positives: [`pat${chars(14, AN)}.${hex(64)}`],
    nearMisses: [`pat${chars(14, AN)}.${hex(63)}`],
  },
  'figma-token': { positives: [`figd_${chars(40, B64URL)}`], nearMisses: ['figd_short'] },
  'hubspot-private-app-token': { positives: [`pat-na1-${uuid()}`], nearMisses: [`pat-xx1-${uuid()}`] },
  'typeform-token': { positives: [`tfp_${chars(44, B64URL)}`], nearMisses: ['tfp_short'] },
  'postman-api-key': { positives: [`PMAK-${hex(24)}-${hex(34)}`], nearMisses: [`PMAK-${hex(24)}`] },
  'contentful-token': { positives: [`CFPAT-${chars(43, B64URL)}`], nearMisses: ['CFPAT-short'] },
  'mapbox-secret-token': {
    positives: [`sk.eyJ${chars(60, B64URL)}.${chars(22, B64URL)}`],
    nearMisses: [`pk.eyJ${chars(60, AN)}.${chars(22, AN)}`],
  },
  'dropbox-token': { positives: [`sl.${chars(140, B64URL)}`], nearMisses: ['sl.short'] },
  'facebook-access-token': { positives: [`EAAB${chars(150, AN)}`], nearMisses: [`EAAB${chars(40, AN)}`] },
  'launchdarkly-key': { positives: [`sdk-${uuid()}`], nearMisses: ['sdk-1234'] },
  'adobe-client-secret': { positives: [`p8e-${chars(32, AN)}`], nearMisses: [`p8e-${chars(31, AN)}`] },
};

/** The text of an example and the part of it that must be hidden. */
export function parts(example: Example): { text: string; secret: string } {
  return typeof example === 'string'
    ? { text: example, secret: example }
    : { text: example[0], secret: example[1] };
}
