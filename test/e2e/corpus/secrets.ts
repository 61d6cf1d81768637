/**
 * The secret corpus the end-to-end redaction test records: every provider format's fabricated example, and the
 * shapes that only their structure gives away (named values, private keys, credentials in URLs, base64-wrapped
 * tokens). Every value is fabricated here; none is, or ever was, a real credential.
 */

import { B64URL, b64, chars, hex } from '../../redact/fabricate.js';
import { PROVIDER_EXAMPLES, parts } from '../../redact/provider-examples.js';

export interface CorpusSecret {
  /** What kind of secret: a rule id, or a structure (`env-password`, `pem-rsa` …). */
  kind: string;
  /** How the secret appears in free text: the token itself, or with the name or context that gives it away. */
  text: string;
  /** The part that must never reach a trace; for a multi-line key, its lines. */
  secret: string;
}

function pem(label: string, lines: number): string {
  const body = Array.from({ length: lines }, () => b64(64));
  return [`-----BEGIN ${label}-----`, ...body, `${b64(40)}==`, `-----END ${label}-----`].join('\n');
}

const encode = (text: string) => Buffer.from(text).toString('base64');
const word = () => `Vq${chars(10)}-${chars(8)}7`;

/** The structures: secrets only their name, their place or their wrapping gives away. */
function structural(): CorpusSecret[] {
  const out: CorpusSecret[] = [];
  const add = (kind: string, text: string, secret: string) => out.push({ kind, text, secret });
  let s = word();
  add('env-password', `DB_PASSWORD=${s}`, s);
  s = word();
  add('env-secret', `FOO_SECRET=${s}`, s);
  s = hex(32);
  add('env-datadog', `DD_API_KEY=${s}`, s);
  s = word();
  add('yaml-password', `password: ${s}`, s);
  s = word();
  add('ini-client-secret', `client_secret = ${s}`, s);
  s = word();
  add('json-api-key', `{"apiKey": "${s}", "region": "eu-west-1"}`, s);
  s = word();
  add('json-in-json', JSON.stringify({ body: JSON.stringify({ refresh_token: s }) }), s);
  s = word();
  add('cookie-header', `Cookie: sid=${s}; theme=dark`, s);
  s = word();
  add('set-cookie-header', `upstream sent Set-Cookie: session=${s}; Path=/; HttpOnly`, s);
  s = word();
  add('query-api-key', `https://api.example.com/v1/items?api_key=${s}&page=2`, s);
  s = word();
  add('connection-string', `Server=db;Database=app;User Id=sa;Password=${s};Encrypt=true`, s);
  s = word();
  add('url-password', `postgres://app:${s}@db.internal:5432/app`, s);
  s = `Zk3${chars(29)}`;
  add('bearer', `Authorization: Bearer ${s}`, s);
  s = encode(`deploy:${word()}`);
  add('basic', `curl -H "Authorization: Basic ${s}"`, s);
  s = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjb3JwdXMifQ.${chars(86, B64URL)}`;
  add('jwt', `id_token ${s}`, s);
  s = encode(JSON.stringify({ apiKey: word() }));
  add('base64-json', `payload ${s}`, s);
  s = encode(`GITHUB_TOKEN=ghp_${chars(36)}`);
  add('base64-env', `encoded ${s}`, s);
  s = word();
  add('x-api-key-in-text', `calling with X-Api-Key: ${s}`, s);
  const key = `-----BEGIN PRIVATE KEY-----\n${b64(64)}\n${b64(40)}==\n-----END PRIVATE KEY-----\n`;
  s = hex(40);
  add(
    'gcp-service-account',
    JSON.stringify({ type: 'service_account', private_key_id: s, private_key: key }),
    s,
  );
  for (const [kind, label, lines] of [
    ['pem-rsa', 'RSA PRIVATE KEY', 8],
    ['pem-pkcs8', 'PRIVATE KEY', 6],
    ['pem-ec', 'EC PRIVATE KEY', 2],
    ['pem-encrypted', 'ENCRYPTED PRIVATE KEY', 7],
    ['openssh', 'OPENSSH PRIVATE KEY', 6],
    ['pgp', 'PGP PRIVATE KEY BLOCK', 10],
  ] as const) {
    const block = pem(label, lines);
    add(kind, block, block);
  }
  const p12 = [
    'MIIKPwIBAzCCCgUGCSqGSIb3DQEHAaCCCfYEggnyMIIJ7jCCBGIGCSqGSIb3DQEH',
    ...Array.from({ length: 5 }, () => b64(64)),
    b64(24),
  ].join('\n');
  add('p12-dump', p12, p12);
  return out;
}

/** One entry per provider rule (its first example), then the structures. */
export function corpus(): CorpusSecret[] {
  const providers = Object.entries(PROVIDER_EXAMPLES).map(([kind, { positives }]): CorpusSecret => {
    const { text, secret } = parts(positives[0]!);
    return { kind, text, secret };
  });
  return [...providers, ...structural()];
}

/** The fragments of a secret whose presence in a trace means it leaked: every 12-character window of each line. */
export function fragments(secret: string): string[] {
  const out: string[] = [];
  for (const line of secret.split('\n')) {
    const text = line.replace(/^-----(?:BEGIN|END) .*-----$/, '');
    if (text.length < 12) continue;
    for (let i = 0; i + 12 <= text.length; i += 6) out.push(text.slice(i, i + 12));
    out.push(text.slice(-12));
  }
  return out;
}

/** True when every line of `text` is a single line (HTTP headers cannot carry line breaks). */
export const singleLine = (text: string): boolean => !text.includes('\n');
