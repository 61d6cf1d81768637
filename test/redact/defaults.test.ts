import { describe, expect, it } from 'vitest';
import { compile, DEFAULT_RULES, redactHeaders, redactJson, redactText } from '../../src/redact/index.js';
import { RULE_ID } from '../../src/redact/marker.js';
import { regexHazard } from '../../src/redact/regex-safety.js';

const compiled = compile({ defaults: true, rules: [], mode: 'marker' });

/** Deterministic "random" characters, so the corpus is stable and still looks like real keys. */
function chars(
  n: number,
  alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  seed = 7,
): string {
  let out = '';
  let x = seed;
  for (let i = 0; i < n; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

interface Case {
  rule: string;
  /** Whole secrets, shown in a sentence; each must come out as exactly one marker of `rule`. */
  positives: string[];
  /** Near misses that must come out untouched. */
  negatives: string[];
}

const CORPUS: Case[] = [
  {
    rule: 'aws-access-key-id',
    positives: [
      'AKIAIOSFODNN7EXAMPLE',
      `ASIA${chars(16, UPPER_DIGITS)}`,
      `ABIA${chars(16, UPPER_DIGITS, 3)}`,
    ],
    negatives: ['AKIAIOSFODNN7EXAMPL', 'XAKIAIOSFODNN7EXAMPLE', 'akiaiosfodnn7example', 'AKIA is a prefix'],
  },
  {
    rule: 'openai-api-key',
    positives: [`sk-${chars(48)}`, `sk-proj-${chars(64, undefined, 11)}_${chars(20, undefined, 5)}`],
    negatives: [
      'the sk-learn library',
      'task-queue-processing-worker-pool',
      'sk-12345',
      'risk-free',
      'sk in prose',
    ],
  },
  {
    rule: 'anthropic-api-key',
    positives: [`sk-ant-api03-${chars(93, undefined, 13)}AA`, `sk-ant-admin01-${chars(40, undefined, 17)}`],
    negatives: ['sk-ant-short', 'desk-ant-api03-is-not-a-key'],
  },
  {
    rule: 'github-token',
    positives: [
      `ghp_${chars(36)}`,
      `gho_${chars(36, undefined, 19)}`,
      `ghs_${chars(36, undefined, 23)}`,
      `github_pat_11${chars(20, UPPER_DIGITS)}_${chars(59, undefined, 29)}`,
    ],
    negatives: ['ghp_short', 'my_ghp_token_here', `xghp_${chars(36)}`, 'github_pat_tooshort'],
  },
  {
    rule: 'gitlab-token',
    positives: [`glpat-${chars(20)}`, `glpat-${chars(20, undefined, 31)}`],
    negatives: ['glpat-short', 'glpat'],
  },
  {
    rule: 'slack-token',
    positives: [`xoxb-1234567890-1234567890123-${chars(24)}`, `xoxp-${chars(12, '0123456789')}-${chars(30)}`],
    negatives: ['xoxo-hugs', 'xox-1234567890', 'xoxz-1234567890123'],
  },
  {
    rule: 'stripe-key',
    positives: [`sk_live_${chars(24)}`, `rk_live_${chars(99, undefined, 37)}`],
    negatives: ['sk_live_short', 'pk_live_ is publishable'],
  },
  {
    rule: 'stripe-test-key',
    positives: [`sk_test_${chars(24)}`],
    negatives: ['sk_test_short', `pk_test_${chars(24)}`],
  },
  {
    rule: 'google-api-key',
    positives: [`AIza${chars(35, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-')}`],
    negatives: [`AIza${chars(20)}`, `AIza${chars(40)}`],
  },
  {
    rule: 'npm-token',
    positives: [`npm_${chars(36)}`],
    negatives: ['npm_config_cache', `npm_${chars(10)}`, `npm_${chars(40)}`],
  },
  {
    rule: 'jwt',
    positives: [
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
      `eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2F1dGgifQ.${chars(86, undefined, 41)}`,
    ],
    negatives: ['eyJhbGciOiJIUzI1NiJ9', 'eyJwYWdlIjoyfQ==', 'eyJhbGciOiJIUzI1NiJ9.notapayload.sig'],
  },
];

function markerCount(text: string): number {
  return text.split('[REDACTED:').length - 1;
}

describe('the default value rules', () => {
  for (const { rule, positives, negatives } of CORPUS) {
    describe(rule, () => {
      it.each(positives)('hides %s whole, wherever it stands in a string', (secret) => {
        expect(redactText(secret, compiled)).toBe(`[REDACTED:${rule}]`);
        expect(redactText(`key: ${secret}, then more`, compiled)).toBe(`key: [REDACTED:${rule}], then more`);
        expect(redactText(`"${secret}"`, compiled)).toBe(`"[REDACTED:${rule}]"`);
      });

      it.each(negatives)('leaves the near miss %s alone', (text) => {
        expect(markerCount(redactText(text, compiled))).toBe(0);
      });
    });
  }

  describe('http-credential (Bearer / Basic, the credential part only)', () => {
    it.each([
      // A header line on its own: the whole value goes, scheme and all (the header rule names it).
      ['Authorization: Bearer abc123def456ghi789', 'Authorization: [REDACTED:authorization-header]'],
      ['sent Bearer abc123def456ghi789 upstream', 'sent Bearer [REDACTED:http-credential] upstream'],
      ['bearer 9f8e7d6c5b4a39281706', 'bearer [REDACTED:http-credential]'],
      ['BEARER 9f8e7d6c5b4a39281706', 'BEARER [REDACTED:http-credential]'],
      ['Basic dXNlcjpwYXNzd29yZA==', 'Basic [REDACTED:http-credential]'],
      [
        'curl -H "Authorization: Bearer ya29.a0AfH6SMBx-token_value"',
        'curl -H "Authorization: Bearer [REDACTED:http-credential]"',
      ],
    ])('%s', (text, expected) => {
      expect(redactText(text, compiled)).toBe(expected);
    });

    it.each([
      'Use a Bearer token in the Authorization header',
      'Bearer <token>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, as written in docs
      'Bearer ${TOKEN}',
      'Basic authentication is disabled',
      'the bearer of bad news',
    ])('leaves prose alone: %s', (text) => {
      expect(redactText(text, compiled)).toBe(text);
    });
  });

  describe('url-password (only the password of scheme://user:pass@)', () => {
    it.each([
      [
        'postgres://admin:s3cr3t!@db.example.com:5432/app',
        'postgres://admin:[REDACTED:url-password]@db.example.com:5432/app',
      ],
      ['redis://:onlypass@cache:6379', 'redis://:[REDACTED:url-password]@cache:6379'],
      ['see https://bob:p%40ss@example.com/x ok', 'see https://bob:[REDACTED:url-password]@example.com/x ok'],
    ])('%s', (text, expected) => {
      expect(redactText(text, compiled)).toBe(expected);
    });

    it.each([
      'https://example.com:8443/path@v2',
      'https://user@example.com/',
      'mailto:someone@example.com',
      'ssh://git@github.com/org/repo.git',
      'git@github.com:org/repo.git',
    ])('leaves %s alone', (text) => {
      expect(redactText(text, compiled)).toBe(text);
    });
  });

  describe('private-key-pem', () => {
    const body = `${chars(64)}\n${chars(64, undefined, 5)}\n${chars(20, undefined, 9)}==`;
    it.each([
      'RSA PRIVATE KEY',
      'EC PRIVATE KEY',
      'OPENSSH PRIVATE KEY',
      'ENCRYPTED PRIVATE KEY',
      'PRIVATE KEY',
    ])('hides a whole %s block and nothing around it', (label) => {
      const pem = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
      expect(redactText(`key:\n${pem}\nafter`, compiled)).toBe('key:\n[REDACTED:private-key-pem]\nafter');
    });

    it('hides a legacy encrypted block whose headers hold dashes', () => {
      const pem = `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\n${body}\n-----END RSA PRIVATE KEY-----`;
      expect(redactText(pem, compiled)).toBe('[REDACTED:private-key-pem]');
    });

    it('hides a cut-off block to the end of the value', () => {
      expect(redactText(`x -----BEGIN PRIVATE KEY-----\n${body}`, compiled)).toBe(
        'x [REDACTED:private-key-pem]',
      );
    });

    it('leaves certificates and public keys alone', () => {
      for (const label of ['CERTIFICATE', 'PUBLIC KEY', 'RSA PUBLIC KEY']) {
        const pem = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
        expect(redactText(pem, compiled)).toBe(pem);
      }
    });
  });

  it('leaves data alone: base64 images, UUIDs, git SHAs, timestamps, model names', () => {
    const data = [
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      chars(4000, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
      '6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11',
      'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      '2026-11-29T22:17:34.063Z',
      'claude-3-5-sonnet-20241022',
      'notifications/progress',
    ];
    for (const text of data) expect(redactText(text, compiled)).toBe(text);
  });
});

describe('the default key rules', () => {
  it.each([
    'token',
    'accessToken',
    'access_token',
    'x-auth-token',
    'refresh_token',
    'id_token',
    'password',
    'Password',
    'db_password',
    'passwd',
    'pwd',
    'secret',
    'client_secret',
    'clientSecret',
    'api_key',
    'apiKey',
    'apikey',
    'X-API-Key',
    'APIKey',
    'authorization',
    'bearer',
    'cookie',
    'set-cookie',
    'private_key',
    'privateKey',
    'access_key',
    'aws_access_key_id',
    'session_token',
    'sessionToken',
  ])('hide the value of %s', (key) => {
    const out = redactJson({ [key]: 'value-1234' }, compiled) as Record<string, string>;
    expect(out[key]).toMatch(/^\[REDACTED:[a-z-]+\]$/);
  });

  it.each([
    'progressToken',
    'progress_token',
    'max_tokens',
    'maxTokens',
    'totalTokens',
    'inputTokens',
    'tokenizer',
    'token_type',
    'keyboard',
    'secretary_name',
    'passwordless',
    'cookies_enabled_count',
  ])('leave %s alone', (key) => {
    const value = { [key]: 'value-1234' };
    expect(redactJson(value, compiled)).toBe(value);
  });

  it('replace strings, objects, arrays, numbers and booleans, and keep null', () => {
    const value = {
      token: 'abc',
      secret: { nested: 'x' },
      api_key: ['a', 'b'],
      password: 42,
      pwd: true,
      cookie: null,
      max_tokens: 100,
    };
    expect(redactJson(value, compiled)).toEqual({
      token: '[REDACTED:token]',
      secret: '[REDACTED:secret]',
      api_key: '[REDACTED:api-key]',
      password: '[REDACTED:password]',
      pwd: '[REDACTED:pwd]',
      cookie: null,
      max_tokens: 100,
    });
  });

  it('keep numbers and booleans under names that end in a quantity or a setting', () => {
    const value = { token_count: 317, password_min_length: 12, auth_enabled: false, session_token_ttl: 3600 };
    expect(redactJson(value, compiled)).toBe(value);
  });
});

describe('the default header rules', () => {
  it('hide credentials and any header naming a token or secret, case-insensitively', () => {
    const headers = {
      Authorization: 'Bearer abc',
      'proxy-authorization': 'Basic xyz',
      Cookie: 'sid=1',
      'Set-Cookie': ['a=1', 'b=2'],
      'X-Api-Key': 'k',
      'X-Auth-Token': 't',
      'X-Client-Secret': 's',
      Accept: 'application/json',
      'Mcp-Session-Id': 'f3b1c2d4',
    };
    expect(redactHeaders(headers, compiled)).toEqual({
      Authorization: '[REDACTED:authorization-header]',
      'proxy-authorization': '[REDACTED:proxy-authorization-header]',
      Cookie: '[REDACTED:cookie-header]',
      'Set-Cookie': ['[REDACTED:set-cookie-header]', '[REDACTED:set-cookie-header]'],
      'X-Api-Key': '[REDACTED:api-key-header]',
      'X-Auth-Token': '[REDACTED:token-header]',
      'X-Client-Secret': '[REDACTED:secret-header]',
      Accept: 'application/json',
      // Kept as a stable hash: the same session id always gives the same marker.
      'Mcp-Session-Id': expect.stringMatching(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/),
    });
    const again = redactHeaders({ 'mcp-session-id': 'f3b1c2d4' }, compiled);
    expect(again['mcp-session-id']).toBe(
      (redactHeaders(headers, compiled) as Record<string, string>)['Mcp-Session-Id'],
    );
  });

  it('hide every header whose name says credential, but not the few that only look like one', () => {
    const hidden = {
      'api-key': 'azure-openai-key-1',
      'x-goog-api-key': 'g',
      'X-Auth': 'a',
      'x-csrf-token': 'c',
      'X-Hub-Signature-256': 'sha256=abc',
      'x-amz-security-token': 't',
      'x-session-id': 's',
      'X-Vault-Token': 'v',
      'x-upstream-credential': 'u',
      'x-admin-password': 'p',
    };
    const out = redactHeaders(hidden, compiled) as Record<string, string>;
    for (const name of Object.keys(hidden)) expect(out[name], name).toMatch(/^\[REDACTED:[a-z-]+-header\]$/);
    const harmless = {
      'WWW-Authenticate': 'Bearer realm="mcp", resource_metadata="https://x/.well-known"',
      'Access-Control-Allow-Credentials': 'true',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'x-api-version': '2024-01-01',
      'Content-Type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    };
    expect(redactHeaders(harmless, compiled)).toBe(harmless);
  });
});

describe('DEFAULT_RULES', () => {
  it('have unique ids fit for markers', () => {
    const ids = DEFAULT_RULES.map((rule) => rule.id);
    expect(ids.every((id) => id !== undefined && RULE_ID.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are linear by construction: hints, bounded quantifiers, no repeated group holding a quantifier', () => {
    for (const rule of DEFAULT_RULES) {
      if (rule.type !== 'regex') continue;
      expect(rule.hints?.length, rule.id).toBeGreaterThan(0);
      const bare = rule.pattern
        .replace(/\\./g, 'e') // escapes
        .replace(/\[(?:[^\]\\]|\\.)*\]/g, 'c'); // character classes
      expect(bare, `${rule.id}: unbounded quantifier`).not.toMatch(/[*+]|\{\d+,\}/);
      // The engine's own check, which user rules go through too.
      expect(regexHazard(rule.pattern, rule.flags), rule.id).toBeUndefined();
      // Optional groups (`(…)?`) are fine; a group repeated more than once is not.
      expect(bare, `${rule.id}: repeated group`).not.toMatch(/\)(?:[*+]|\{)/);
    }
  });
});
