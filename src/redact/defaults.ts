import type { RedactRule } from './types.js';

/**
 * The built-in rules, as data. Ids are stable: they appear in markers and `scan` reports, and users refer to them.
 *
 * Every value pattern starts with a literal, uses only bounded quantifiers and no nested ones, and carries hints —
 * literals every match contains, checked with `includes` before the regex runs — so a 10 MB base64 image costs a
 * handful of memchr-speed passes. Hints favour characters base64 never holds (`-`, `_`, `.`, `:`, space), which
 * makes those passes nearly free on image data. Order matters where matches start at the same place: the more
 * specific rule comes first and names the marker.
 */
export const DEFAULT_RULES: readonly RedactRule[] = [
  // Keys, by words: `token` hides accessToken, access_token, x-auth-token; never max_tokens, tokenizer, totalTokens.
  { id: 'password', type: 'key', name: 'password' },
  { id: 'passwd', type: 'key', name: 'passwd' },
  { id: 'pwd', type: 'key', name: 'pwd' },
  { id: 'secret', type: 'key', name: 'secret' },
  { id: 'session-token', type: 'key', name: 'session_token' },
  // progressToken pairs progress notifications with their request; token_type says "Bearer". Neither is a secret.
  { id: 'token', type: 'key', name: 'token', exclude: ['progressToken', 'token_type'] },
  { id: 'api-key', type: 'key', name: 'api_key' },
  { id: 'authorization', type: 'key', name: 'authorization' },
  { id: 'bearer', type: 'key', name: 'bearer' },
  { id: 'cookie', type: 'key', name: 'cookie' },
  { id: 'private-key', type: 'key', name: 'private_key' },
  { id: 'access-key', type: 'key', name: 'access_key' },

  // HTTP headers, by name.
  { id: 'authorization-header', type: 'header', name: 'authorization' },
  { id: 'proxy-authorization-header', type: 'header', name: 'proxy-authorization' },
  { id: 'cookie-header', type: 'header', name: 'cookie' },
  { id: 'set-cookie-header', type: 'header', name: 'set-cookie' },
  { id: 'api-key-header', type: 'header', name: 'x-api-key' },
  { id: 'token-header', type: 'header', name: 'token', contains: true },
  { id: 'secret-header', type: 'header', name: 'secret', contains: true },

  // Values, anywhere in a string.
  { id: 'private-key-pem', type: 'pem' },
  {
    id: 'jwt',
    type: 'regex',
    // The lookbehind rejects an `eyJ` inside a longer run, so a run of `eyJeyJ…` is scanned once, not per `eyJ`.
    pattern:
      'eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,4096}\\.eyJ[A-Za-z0-9_-]{8,16384}\\.[A-Za-z0-9_-]{0,1024}',
    hints: ['.eyJ'],
  },
  {
    id: 'aws-access-key-id',
    type: 'regex',
    pattern: '\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b',
    hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
  },
  { id: 'anthropic-api-key', type: 'regex', pattern: '\\bsk-ant-[A-Za-z0-9_-]{20,256}', hints: ['-ant-'] },
  { id: 'openai-api-key', type: 'regex', pattern: '\\bsk-[A-Za-z0-9_-]{20,256}', hints: ['sk-'] },
  {
    id: 'github-token',
    type: 'regex',
    pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})\\b',
    hints: ['_'],
  },
  { id: 'gitlab-token', type: 'regex', pattern: '\\bglpat-[A-Za-z0-9_-]{20,64}', hints: ['glpat-'] },
  { id: 'slack-token', type: 'regex', pattern: '\\bxox[abposr]-[A-Za-z0-9-]{10,250}', hints: ['-'] },
  { id: 'stripe-key', type: 'regex', pattern: '\\b(?:sk|rk)_live_[A-Za-z0-9]{16,247}', hints: ['_live_'] },
  {
    id: 'google-api-key',
    type: 'regex',
    pattern: '\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])',
    hints: ['AIza'],
  },
  { id: 'npm-token', type: 'regex', pattern: '\\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])', hints: ['npm_'] },
  {
    id: 'http-credential',
    type: 'regex',
    // Only the credential is hidden. It must hold a digit or be long, so prose ("a Bearer token") is left alone.
    pattern:
      '\\b(?:bearer|basic) {1,4}(?<secret>(?=[A-Za-z._~+/-]{0,64}[0-9])[A-Za-z0-9._~+/-]{8,4096}={0,2}|[A-Za-z0-9._~+/-]{24,4096}={0,2})',
    flags: 'i',
    // The scheme is case-insensitive, so the hint is the space every match holds: absent from base64 entirely.
    hints: [' '],
  },
  {
    id: 'url-password',
    type: 'regex',
    // scheme://user:pass@host — only `pass` is hidden.
    pattern: '://[^\\s/:@?#]{0,128}:(?<secret>[^\\s/@?#]{1,256})@',
    hints: ['://'],
  },
];
