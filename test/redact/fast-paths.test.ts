import { describe, expect, it } from 'vitest';
import { compile, createRedactor, type RedactConfig, redactJson } from '../../src/redact/index.js';
import { hasTokenRun } from '../../src/redact/patterns.js';
import type { Json, MessageLine } from '../../src/trace/types.js';

/**
 * The shortcuts the engine takes on values with nothing to hide — a token-run test that reads a fraction of prose,
 * hints looked for behind their rarest character, fields read without a key list — must never let a secret through
 * nor change what a copy looks like.
 */

const DEFAULTS: RedactConfig = { defaults: true, rules: [], mode: 'marker' };

const TOKEN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** The longest run of token characters (`A-Z a-z 0-9 _ -`), character by character. */
function longestRun(text: string): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < text.length; i += 1) {
    run = TOKEN.includes(text[i]!) ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** A small deterministic generator (tests must repeat). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

describe('hasTokenRun', () => {
  it('says what a character-by-character count says, in generated values', () => {
    const next = random(3);
    const pieces = [
      'a',
      'Z',
      '9',
      '_',
      '-',
      ' ',
      '.',
      ':',
      '/',
      'é',
      '😀',
      '\n',
      'token',
      'abcdefghijklmnop',
    ];
    for (let round = 0; round < 3000; round += 1) {
      let text = '';
      const length = Math.floor(next() * 80);
      const dense = next();
      while (text.length < length) text += next() < dense ? 'x' : pieces[Math.floor(next() * pieces.length)];
      for (const length of [1, 2, 5, 15, 16, 17, 32]) {
        expect(hasTokenRun(text, length), `${JSON.stringify(text)} ${length}`).toBe(
          longestRun(text) >= length,
        );
      }
    }
  });

  it('finds a run of exactly the length anywhere in prose: at the start, the end, between words', () => {
    const prose = 'The user asked for a short summary of the EMEA numbers, with the variance against plan.';
    const run = 'Ab3_x-9Zq2Lm7Rt4';
    for (let at = 0; at <= prose.length; at += 1) {
      const text = `${prose.slice(0, at)} ${run} ${prose.slice(at)}`;
      expect(hasTokenRun(text, 16)).toBe(true);
      expect(hasTokenRun(text.replace(run, run.slice(1)), 16)).toBe(
        longestRun(text.replace(run, run.slice(1))) >= 16,
      );
    }
    expect(hasTokenRun(run, 16)).toBe(true);
    expect(hasTokenRun(run.slice(1), 16)).toBe(false);
    expect(hasTokenRun('', 16)).toBe(false);
  });
});

/** A tools/call request like the bench's typical one, `context` holding prose around `inside`. */
function call(inside: string, short: string): MessageLine {
  return {
    t: '2026-01-01T00:00:00.000Z',
    seq: 1,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'search_documents',
        arguments: {
          query: 'quarterly revenue report for the EMEA region',
          context: `The user asked for a short summary of the EMEA numbers. ${inside} Keep the same format as before.`,
          note: short,
          options: { max_tokens: 1024, temperature: 0.2 },
        },
      },
    },
  };
}

/** Secrets in prose, each reached through a different value rule, and how each must come out. */
const IN_PROSE: Array<[string, string]> = [
  ['use bearer sk9x2Lq8Zt4Wm7Rv1Np6 for it', 'use bearer [REDACTED:http-credential] for it'],
  ['basic dXNlcjpwYXNzd29yZA== was sent', 'basic [REDACTED:http-credential] was sent'],
  [
    'see https://ada:hunter2pass@db.example.com/x',
    'see https://ada:[REDACTED:url-password]@db.example.com/x',
  ],
  ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ ok', 'token [REDACTED:jwt] ok'],
  [
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'aws_secret_access_key = [REDACTED:aws-secret-access-key]',
  ],
  [
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
    '[REDACTED:private-key-pem]',
  ],
  ['key ghp_0123456789abcdefghijABCDEFGHIJ012345 there', 'key [REDACTED:github-token] there'],
  ['login failed for ada (password hunter2!)', 'login failed for ada (password [REDACTED:password])'],
];

describe('secrets in a typical call', () => {
  it('are caught in long prose and in short strings alike, and the rest of the call is kept', () => {
    const redact = createRedactor(DEFAULTS);
    // Twice: the second time the short values found clean before are remembered.
    for (let round = 0; round < 2; round += 1) {
      for (const [secret, hidden] of IN_PROSE) {
        const line = call(secret, secret);
        const out = redact(line);
        const args = (out.raw as { params: { arguments: Record<string, Json> } }).params.arguments;
        expect(args.context).toBe(
          `The user asked for a short summary of the EMEA numbers. ${hidden} Keep the same format as before.`,
        );
        expect(args.note).toBe(hidden);
        const before = (line.raw as { params: { arguments: Record<string, Json> } }).params.arguments;
        expect(args.options).toBe(before.options);
        expect(args.query).toBe('quarterly revenue report for the EMEA region');
      }
    }
  });

  it('leave a call without them untouched: the very same line comes back', () => {
    const redact = createRedactor(DEFAULTS);
    const line = call('Mention the data freshness at the end.', 'finance');
    expect(redact(line)).toBe(line);
  });
});

describe('copies', () => {
  const compiled = compile(DEFAULTS);

  it('keep the fields in their order, numeric names first, when a later field changes', () => {
    const value = JSON.parse(
      '{"b":1,"2":"x","token":"abc","a":{"password":"hunter2"},"1":"y","z":[1]}',
    ) as Json;
    const out = redactJson(value, compiled) as Record<string, Json>;
    expect(Object.keys(out)).toEqual(Object.keys(value as object));
    expect(JSON.stringify(out)).toBe(
      '{"1":"y","2":"x","b":1,"token":"[REDACTED:token]","a":{"password":"[REDACTED:password]"},"z":[1]}',
    );
  });

  it('hold the own fields only: what an object inherits is neither walked nor copied', () => {
    const inherited = Object.create({
      token: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
      value: 'hunter2',
    }) as Record<string, Json>;
    inherited.name = 'password';
    inherited.note = 'plain';
    expect(redactJson(inherited as Json, compiled)).toBe(inherited);
    inherited.apiKey = 'abc123';
    const out = redactJson(inherited as Json, compiled) as Record<string, Json>;
    expect(Object.keys(out)).toEqual(['name', 'note', 'apiKey']);
    expect(out.apiKey).toBe('[REDACTED:api-key]');
    expect(Object.hasOwn(out, 'token')).toBe(false);
  });
});

describe('a repeated `name:` looked up once', () => {
  const compiled = compile(DEFAULTS);
  const redact = (text: string) => redactJson(text, compiled);

  it('takes a header value only where the name starts a line or reads as a header, each time it repeats', () => {
    expect(
      redact(
        'Authorization: Bearer abc123def456\nsee Authorization: later words here\nAuthorization: Bearer zzz999yyy888',
      ),
    ).toBe(
      'Authorization: [REDACTED:authorization-header]\nsee Authorization: later words here\nAuthorization: [REDACTED:authorization-header]',
    );
    expect(redact('note Authorization: Basic dXNlcjpwYXNz\n  Authorization: Basic dXNlcjpwYXNz')).toBe(
      'note Authorization: Basic dXNlcjpwYXNz\n  Authorization: [REDACTED:authorization-header]',
    );
    expect(redact('x X-Api-Key: k3y-value-123 and X-Api-Key: other-777\nX-Api-Key: third-888')).toBe(
      'x X-Api-Key: [REDACTED:api-key-header]\nX-Api-Key: [REDACTED:api-key-header]',
    );
    expect(redact('Cookie: sid=abc123\nmy Cookie: sid=def456\ncookie: x=1')).toBe(
      'Cookie: [REDACTED:cookie-header]\nmy Cookie: [REDACTED:cookie-header]\ncookie: [REDACTED:cookie-header]',
    );
  });

  it('keeps judging a secret-named key value by value when the name repeats', () => {
    expect(
      redact('password: hunter22\npassword: hunter33 and then password: must be long\n- password: zz9zz9'),
    ).toBe(
      'password: [REDACTED:password]\npassword: [REDACTED:password] and then password: must be long\n- password: [REDACTED:password]',
    );
  });
});

describe('a long value of prose', () => {
  const compiled = compile(DEFAULTS);
  // Over LONG_VALUE (256 KiB), words only: no run of token characters, so the gated rules are skipped.
  const prose = 'the server returned a list of files: index.ts, notes and more.\n'.repeat(4200);

  it('has no token run, yet its pairs and credentials in links are hidden, and a token once it holds one', () => {
    expect(prose.length).toBeGreaterThanOrEqual(1 << 18);
    expect(hasTokenRun(prose, 16)).toBe(false);
    const middle = (mid: string) => {
      const out = redactJson(prose + mid + prose, compiled) as string;
      return out.slice(prose.length, out.length - prose.length);
    };
    expect(middle('password: hunter22\n')).toBe('password: [REDACTED:password]\n');
    expect(middle('DB_PASSWORD=hunter22 PORT=5432\n')).toBe('DB_PASSWORD=[REDACTED:password] PORT=5432\n');
    expect(middle('see https://ada:s3cr3t-pw@example.com/x now\n')).toBe(
      'see https://ada:[REDACTED:url-password]@example.com/x now\n',
    );
    expect(middle('token ghp_0123456789abcdefghijABCDEFGHIJ012345 used\n')).toBe(
      'token [REDACTED:github-token] used\n',
    );
    expect(middle('no secret here\n')).toBe('no secret here\n');
  });
});
