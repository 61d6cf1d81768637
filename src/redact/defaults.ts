import { CREDENTIAL_HEADER_RULES } from './headers.js';
import { PROVIDER_FAMILIES, type ProviderFamily } from './providers/index.js';
import type { RedactRule } from './types.js';

/**
 * The built-in rules, as data, in families. Ids are stable: they appear in markers and `scan` reports, and users
 * refer to them.
 *
 * Every value pattern starts with a literal, uses only bounded quantifiers and no nested ones, and carries hints —
 * literals every match contains, checked with `includes` before the regex runs — so a 10 MB base64 image costs a
 * handful of memchr-speed passes. Token shapes also say the run of token characters every match holds (`minRun`),
 * so prose, paths and UUIDs skip them altogether. Order matters where matches start at the same place: the more
 * specific rule comes first and names the marker.
 */

/** A family of built-in rules, as `record --redact-defaults` and the README list them. */
export interface RuleFamily {
  family: string;
  title: string;
  rules: readonly RedactRule[];
}

/**
 * Keys, by words: `token` hides accessToken, access_token, x-auth-token; never max_tokens, tokenizer, totalTokens.
 * The same rules decide which `NAME=value`, `name: value` and `"name": "value"` pairs in free text are hidden.
 */
export const KEY_RULES: readonly RedactRule[] = [
  { id: 'password', type: 'key', name: 'password' },
  { id: 'passwd', type: 'key', name: 'passwd' },
  { id: 'pwd', type: 'key', name: 'pwd' },
  { id: 'passphrase', type: 'key', name: 'passphrase' },
  { id: 'secret', type: 'key', name: 'secret' },
  { id: 'session-token', type: 'key', name: 'session_token' },
  // progressToken pairs progress notifications with their request; token_type says "Bearer". Neither is a secret.
  { id: 'token', type: 'key', name: 'token', exclude: ['progressToken', 'token_type'] },
  { id: 'api-key', type: 'key', name: 'api_key' },
  { id: 'authorization', type: 'key', name: 'authorization' },
  { id: 'auth', type: 'key', name: 'auth' },
  { id: 'bearer', type: 'key', name: 'bearer' },
  { id: 'cookie', type: 'key', name: 'cookie' },
  { id: 'private-key', type: 'key', name: 'private_key' },
  { id: 'access-key', type: 'key', name: 'access_key' },
  { id: 'account-key', type: 'key', name: 'account_key' },
  { id: 'signing-key', type: 'key', name: 'signing_key' },
  { id: 'encryption-key', type: 'key', name: 'encryption_key' },
  { id: 'master-key', type: 'key', name: 'master_key' },
  { id: 'credential', type: 'key', name: 'credential' },
  { id: 'credentials', type: 'key', name: 'credentials' },
  { id: 'signature', type: 'key', name: 'signature' },
  { id: 'connection-string', type: 'key', name: 'connection_string' },
  // Anti-forgery tokens (`_csrf`, `xsrfToken`, Django's `csrfmiddlewaretoken`), signatures of signed URLs (`sig=`),
  // one-time and short codes (`otp`, `passcode`, a card's `cvv`).
  { id: 'csrf', type: 'key', name: 'csrf' },
  { id: 'xsrf', type: 'key', name: 'xsrf' },
  { id: 'csrf-middleware-token', type: 'key', name: 'csrfmiddlewaretoken' },
  { id: 'sig', type: 'key', name: 'sig' },
  { id: 'otp', type: 'key', name: 'otp' },
  { id: 'totp', type: 'key', name: 'totp' },
  { id: 'passcode', type: 'key', name: 'passcode' },
  { id: 'pin-code', type: 'key', name: 'pin_code' },
  { id: 'cvv', type: 'key', name: 'cvv' },
  { id: 'cvc', type: 'key', name: 'cvc' },
];

/**
 * Private keys: PEM, OpenSSH and PGP blocks, from BEGIN to END (or to the end of a cut-off value), and base64 DER
 * keys and PKCS#12 files without armor (RSA, PKCS#8, PKCS#12, EC, Ed25519 headers). In a line stream (stderr, text
 * lines) a block printed line by line is hidden from its first line to its last.
 */
export const BLOCK_RULES: readonly RedactRule[] = [
  { id: 'private-key-pem', type: 'pem' },
  {
    id: 'private-key-der',
    type: 'regex',
    pattern:
      '(?<![A-Za-z0-9+/])(?:MI[IJKL][A-Za-z0-9+/]{2}[AQgw]IBA(?:AKC|DAN|zCC)|MHcCAQEE|MC4CAQAwBQYDK2Vw)[A-Za-z0-9+/=\\r\\n]{20,16384}',
    // `IBA` is in every RSA, PKCS#8 and PKCS#12 header, `CAQ` in the EC and Ed25519 ones.
    hints: ['IBA', 'CAQ'],
  },
];

/** Shapes that are credentials whoever issued them. */
export const GENERIC_RULES: readonly RedactRule[] = [
  {
    id: 'jwt',
    type: 'regex',
    // The lookbehind rejects an `eyJ` inside a longer run, so a run of `eyJeyJ…` is scanned once, not per `eyJ`.
    pattern:
      'eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,4096}\\.eyJ[A-Za-z0-9_-]{8,16384}\\.[A-Za-z0-9_-]{0,1024}',
    hints: ['.eyJ'],
  },
  {
    id: 'http-credential',
    type: 'regex',
    // Only the credential is hidden. It must hold a digit or be long, so prose ("a Bearer token") is left alone.
    pattern:
      '\\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC) {1,4}(?<secret>(?=[A-Za-z._~+/-]{0,64}[0-9])[A-Za-z0-9._~+/-]{8,4096}={0,2}|[A-Za-z0-9._~+/-]{24,4096}={0,2})',
    // Hints that start with a capital or a rare letter: memchr finds their first character seldom in prose.
    hints: ['Bearer ', 'bearer ', 'BEARER ', 'Basic ', 'basic ', 'BASIC '],
  },
  {
    id: 'url-password',
    type: 'regex',
    // scheme://user:pass@host — only `pass` is hidden.
    pattern: '://[^\\s/:@?#]{0,128}:(?<secret>[^\\s/@?#]{1,256})@',
    hints: ['://'],
  },
];

/** Every family of built-in rules, in the order the rules apply. */
export const RULE_FAMILIES: readonly RuleFamily[] = [
  { family: 'keys', title: 'secret-named keys, flags, variables and pairs in text', rules: KEY_RULES },
  { family: 'headers', title: 'credential HTTP headers', rules: CREDENTIAL_HEADER_RULES },
  { family: 'blocks', title: 'private key blocks', rules: BLOCK_RULES },
  ...PROVIDER_FAMILIES.map((family: ProviderFamily): RuleFamily => family),
  { family: 'generic', title: 'JWTs, HTTP credentials, passwords in URLs', rules: GENERIC_RULES },
];

/** The built-in rules, every family's in order. */
export const DEFAULT_RULES: readonly RedactRule[] = RULE_FAMILIES.flatMap((family) => family.rules);

/** How many provider token formats the built-in rules know. */
export const PROVIDER_RULE_COUNT = PROVIDER_FAMILIES.reduce((n, family) => n + family.rules.length, 0);
