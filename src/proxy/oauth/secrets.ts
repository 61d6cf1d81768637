import { createHmac, randomBytes } from 'node:crypto';

/**
 * The secrets of an OAuth flow as a trace keeps them: a marker in the redaction engine's shape with a keyed hash,
 * `[REDACTED:oauth-access-token:1f2e3d4c5b6a]`. One recording hashes under one random key, so the same token reads
 * the same wherever it appears in the trace (issued by the token endpoint, then sent as a Bearer token) while
 * nobody holding the trace can test a guess against it, nor link it to another recording.
 */

/** The kinds of secret an OAuth flow carries; each is its own rule id in the markers. */
export type OAuthSecretKind =
  | 'access-token'
  | 'refresh-token'
  | 'id-token'
  | 'code'
  | 'code-verifier'
  | 'code-challenge'
  | 'state'
  | 'client-secret'
  | 'registration-token';

/** Makes the markers of one recording. */
export class OAuthSecrets {
  private readonly key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.key = key;
  }

  /**
   * The marker that stands for `value`.
   *
   * @example new OAuthSecrets().marker('access-token', 'eyJ…') // '[REDACTED:oauth-access-token:0a1b2c3d4e5f]'
   */
  marker(kind: OAuthSecretKind, value: string): string {
    const hex = createHmac('sha256', this.key).update(value, 'utf8').digest('hex').slice(0, 12);
    return `[REDACTED:oauth-${kind}:${hex}]`;
  }

  /** The marker of a string value, or undefined when there is none. */
  maybe(kind: OAuthSecretKind, value: unknown): string | undefined {
    return typeof value === 'string' && value !== '' ? this.marker(kind, value) : undefined;
  }

  /** The Bearer token of an Authorization header as a marker (any other scheme: its name only). */
  authorization(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    const match = /^\s*(\S+)\s+(\S+)/.exec(header);
    if (match === null) return '[REDACTED:authorization-header]';
    const scheme = match[1]!.toLowerCase();
    if (scheme === 'bearer' || scheme === 'dpop') return this.marker('access-token', match[2]!);
    if (scheme === 'basic') return this.marker('client-secret', match[2]!);
    return `${match[1]} [REDACTED:authorization-header]`;
  }
}

/** Query and form parameters of the flow that are secrets, and the kind each one is hashed as. */
export const SECRET_PARAMS: Readonly<Record<string, OAuthSecretKind>> = {
  code: 'code',
  code_verifier: 'code-verifier',
  code_challenge: 'code-challenge',
  state: 'state',
  client_secret: 'client-secret',
  refresh_token: 'refresh-token',
  access_token: 'access-token',
  id_token: 'id-token',
  token: 'access-token',
  client_assertion: 'client-secret',
  assertion: 'client-secret',
  registration_access_token: 'registration-token',
};

/**
 * A URL with the flow's secret query parameters replaced by their markers (everything else kept as written).
 *
 * @example secrets.url('https://as/authorize?client_id=c&state=xyz') // 'https://as/authorize?client_id=c&state=[REDACTED:oauth-state:…]'
 */
export function hideUrlSecrets(url: string, secrets: OAuthSecrets): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const search = url.slice(query + 1, hash < 0 ? undefined : hash);
  const params = new URLSearchParams(search);
  const out: string[] = [];
  for (const [name, value] of params) {
    const kind = SECRET_PARAMS[name];
    const shown = kind === undefined ? value : secrets.marker(kind, value);
    out.push(`${encodeURIComponent(name)}=${kind === undefined ? encodeURIComponent(shown) : shown}`);
  }
  return `${url.slice(0, query + 1)}${out.join('&')}`;
}
