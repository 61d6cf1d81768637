import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { previewOf } from '../../src/redact/detect.js';
import { looksLikeSecret, shannonEntropy } from '../../src/redact/entropy.js';
import { compile, createRedactor, findSecrets, type RedactConfig } from '../../src/redact/index.js';
import type { TraceLine } from '../../src/trace/types.js';

const T = '2026-11-29T22:15:23.264Z';
const DEFAULTS: RedactConfig = { defaults: true, rules: [], mode: 'marker' };
const compiled = compile(DEFAULTS);
const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const RANDOM = 'Zx8kP2mQ9vL4nR7tW1yB6cF3hJ5sD0gA';

function session(): TraceLine[] {
  return [
    {
      v: 1,
      type: 'meta',
      startedAt: T,
      label: 'demo',
      command: ['node', 'server.js', '--api-key', 'abc123', `--note=${GHP}`],
    },
    {
      t: T,
      seq: 1,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'deploy',
          arguments: { apiKey: 'k-123', 'x-y': [{ note: `token ${GHP}` }], max_tokens: 10 },
          _meta: { progressToken: 'abc' },
        },
      },
    },
    {
      t: T,
      seq: 2,
      type: 'stderr',
      text: 'pem -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----',
    },
    { t: T, seq: 3, type: 'http', conn: 'h3', dir: 'in', headers: { Authorization: 'Bearer abcdef' } },
    { t: T, seq: 4, type: 'event', name: 'spawn', error: { detail: `env GH=${GHP}` } },
  ];
}

describe('findSecrets', () => {
  it('reports what the rules would hide, with a path and a masked preview', () => {
    const findings = session().flatMap((line) => findSecrets(line, compiled));
    expect(findings).toEqual([
      { rule: 'api-key', path: 'command[3]', preview: 'a…(6)' },
      { rule: 'github-token', path: 'command[4]', preview: 'ghp_…(40)' },
      { rule: 'api-key', path: '$.params.arguments.apiKey', preview: 'k…(5)' },
      { rule: 'github-token', path: "$.params.arguments['x-y'][0].note", preview: 'ghp_…(40)' },
      { rule: 'private-key-pem', path: 'text', preview: '----…(68)' },
      { rule: 'authorization-header', path: 'headers.authorization', preview: 'Bea…(13)' },
      { rule: 'github-token', path: 'error.detail', preview: 'ghp_…(40)' },
    ]);
  });

  it('adds high-entropy strings no rule covers, and can leave them out', () => {
    const line: TraceLine = { t: T, seq: 1, dir: 'out', raw: { result: { note: `opaque ${RANDOM} here` } } };
    expect(findSecrets(line, compiled)).toEqual([
      { rule: 'entropy', path: '$.result.note', preview: 'Zx8k…(32)' },
    ]);
    expect(findSecrets(line, compiled, { entropy: false })).toEqual([]);
    const text: TraceLine = { t: T, seq: 2, type: 'text', dir: 'out', text: `SESSION_KEY=${RANDOM}` };
    expect(findSecrets(text, compiled)).toEqual([{ rule: 'entropy', path: 'text', preview: 'Zx8k…(32)' }]);
  });

  it("says in which column of the line's text each value starts, when given the text", () => {
    const line = session()[1]!;
    const text = JSON.stringify(line);
    const findings = findSecrets(line, compiled, { text });
    expect(findings.map((f) => f.rule)).toEqual(['api-key', 'github-token']);
    // The column points at the value itself, inside its quotes (1-based, as SARIF counts).
    const [apiKey, token] = findings;
    expect(text.slice(apiKey!.column! - 1, apiKey!.column! - 1 + 'k-123'.length)).toBe('k-123');
    expect(text.slice(token!.column! - 1, token!.column! - 1 + GHP.length)).toBe(GHP);
    expect(text[apiKey!.column! - 2]).toBe('"');
  });

  it('gives no column for a value the text does not hold as written, nor without the text', () => {
    const line = session()[1]!;
    expect(findSecrets(line, compiled).every((f) => f.column === undefined)).toBe(true);
    const elsewhere = findSecrets(line, compiled, { text: '{"nothing":"here"}' });
    expect(elsewhere).toHaveLength(2);
    expect(elsewhere.every((f) => f.column === undefined)).toBe(true);
  });

  it('points a short value at its whole string, never at the same letters inside another one', () => {
    const line: TraceLine = {
      t: T,
      seq: 1,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: 1, method: 'x', params: { note: 'k-12 k-1', password: 'k-1' } },
    };
    const text = JSON.stringify(line);
    const [finding] = findSecrets(line, compiled, { text, entropy: false });
    expect(finding).toMatchObject({ rule: 'password', path: '$.params.password' });
    expect(finding!.column).toBe(text.indexOf('"k-1"') + 2);
  });

  it('gives a column to every kind of finding: short values inside longer strings, stderr and text lines, URLs', () => {
    const lines: TraceLine[] = [
      {
        t: T,
        seq: 1,
        dir: 'in',
        raw: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'login',
            // The same short password as a whole value first, then inside a note: each is pointed at where it is.
            arguments: {
              password: 'hunter2',
              note: 'PASSWORD=hunter2 and pwd: s3cr3t',
              url: 'https://bob:pa55w0rd@x/',
            },
          },
        },
      },
      { t: T, seq: 2, type: 'stderr', text: 'connecting with password=abc123 to db' },
      { t: T, seq: 3, type: 'text', dir: 'out', text: 'line one\nDB_PASSWORD=hunter2' },
      {
        t: T,
        seq: 4,
        type: 'http',
        conn: 'c',
        dir: 'in',
        url: 'http://x/mcp?password=letmein',
        headers: { 'x-password': 'qwerty' },
      },
    ];
    for (const line of lines) {
      const text = JSON.stringify(line);
      const findings = findSecrets(line, compiled, { text, entropy: false });
      expect(findings.length).toBeGreaterThan(0);
      for (const finding of findings) {
        const shown = finding.preview.slice(0, finding.preview.indexOf('…'));
        expect({ ...finding, at: text.slice(finding.column! - 1).startsWith(shown) }).toMatchObject({
          column: expect.any(Number),
          at: true,
        });
      }
    }
    const [password, inNote] = findSecrets(lines[0]!, compiled, {
      text: JSON.stringify(lines[0]),
      entropy: false,
    });
    const text = JSON.stringify(lines[0]);
    expect(password!.column).toBe(text.indexOf('"hunter2"') + 2);
    expect(inNote!.column).toBe(text.indexOf('PASSWORD=hunter2') + 'PASSWORD='.length + 1);
  });

  it('points a short value inside a string only at a word of its own', () => {
    const line: TraceLine = { t: T, seq: 1, type: 'stderr', text: 'xabc1234 then password=abc123' };
    const text = JSON.stringify(line);
    const [finding] = findSecrets(line, compiled, { text, entropy: false });
    expect(finding).toMatchObject({ rule: 'password', column: text.indexOf('=abc123') + 2 });
  });

  it('finds nothing in a trace that redaction produced, in either mode', () => {
    const hasher = (value: string) => createHmac('sha256', 'k').update(value).digest('hex');
    for (const config of [DEFAULTS, { ...DEFAULTS, mode: 'hash' as const }]) {
      const redact = createRedactor(config, { hasher });
      const rules = compile(config, { hasher });
      const before = session().flatMap((line) => findSecrets(line, rules));
      expect(before.length).toBeGreaterThan(5);
      const after = session()
        .map(redact)
        .flatMap((line) => findSecrets(line, rules));
      expect(after).toEqual([]);
    }
  });
});

describe('the entropy heuristic', () => {
  it.each([
    RANDOM,
    'q8Xk2Lm9Pz4Rt7Wv1Yb6Nc3Hj5Sd0Ga',
    'A1b2C3d4E5f6G7h8I9j0K1l2M3n4',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ])('flags %s', (token) => {
    expect(looksLikeSecret(token)).toBe(true);
  });

  it.each([
    ['a UUID', '6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11'],
    ['a git SHA', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
    ['a sha256', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [
      'an integrity digest',
      'sha512-Vh3oNHXu8q/9TchvVQx3T1MTDzuCahT0swsq0nGQmSRjkQnnb0A5RHLT8fXsJ2JUvDPnUNE6Y8h9Gg0bVFjW0Q==',
    ],
    ['a ULID', '01HQ3K4Z8XWJ5V9TQ2N6YBM7CR'],
    ['a timestamp', '2026-11-29T22:17:34.063Z'],
    ['a model name', 'claude-3-5-sonnet-20241022'],
    ['a URL', 'https://example.com/a1b2c3d4e5f6g7h8i9j0k1l2m3'],
    ['a path', '/home/user/.cache/models/x7y8z9a1b2c3d4e5f6'],
    ['a relative path', 'src/redact/v2/engine-9f8e7d.ts'],
    [
      'a small inline PNG',
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    ],
    ['a big base64 blob', `${'QUJD'.repeat(200)}x9Z1`],
    ['a word', 'internationalization_rules'],
    ['a short token', 'a1B2c3D4'],
    ['a marker', '[REDACTED:github-token:0123456789ab]'],
  ])('does not flag %s', (_what, token) => {
    expect(looksLikeSecret(token)).toBe(false);
  });

  it('measures bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});

describe('previewOf', () => {
  it('shows at most four characters, fewer of a short value, and the length', () => {
    expect(previewOf(GHP)).toBe('ghp_…(40)');
    expect(previewOf('hunter2')).toBe('h…(7)');
    expect(previewOf('abc')).toBe('…(3)');
    expect(previewOf({ b: 1, a: 2 })).toBe('{"a…(13)');
  });
});
