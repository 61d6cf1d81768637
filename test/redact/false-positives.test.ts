import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redact/index.js';
import type { TraceLine } from '../../src/trace/types.js';

/**
 * What must come through redaction unchanged, in every place a secret is looked for: values that look a little like
 * secrets (ids, hashes, images) and prose that talks about them. Each probe must leave its line the very same
 * object, so the trace keeps the wire text byte for byte.
 */

const T = '2026-12-01T00:00:00.000Z';

/** A small PNG-like payload: a header, then deflated data with long runs of zero bytes (as real images have). */
function image(): string {
  const pixels = Buffer.alloc(60_000);
  for (let i = 0; i < pixels.length; i += 97) pixels[i] = (i * 31) & 255;
  const header = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  return Buffer.concat([header, deflateSync(pixels), pixels.subarray(0, 3000), randomBytes(2000)]).toString(
    'base64',
  );
}

const PROBES: Record<string, string> = {
  uuid: '6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11',
  'uuid list': '6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11,0b7d8a6e-2f3c-4d1e-8b9a-7c6d5e4f3a2b',
  'git sha': 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
  'short sha in prose': 'fixed in 3f9a0c1 and da39a3e',
  sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'sha256 digest': 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'file path': '/srv/data/reports/2026/q3/emea-summary_FINAL-v2.md',
  'windows path': 'C:\\Users\\ada\\AppData\\Local\\tapedeck\\traces\\session.jsonl',
  'base64 image': image(),
  'data URL': `data:image/png;base64,${image().slice(0, 4000)}`,
  'password prose': 'Forgot your password? We will email you a link to choose a new password.',
  'password prose with a colon': 'Password: must be at least 12 characters and include a digit.',
  'bearer prose': 'Send a Bearer token in the Authorization header; see the auth docs.',
  'basic prose': 'Basic authentication is disabled for this server.',
  'aws region': 'eu-west-1',
  'aws arn': 'arn:aws:iam::123456789012:role/service-role/lambda-exec-role',
  'aws s3 arn': 'arn:aws:s3:::acme-reports-2026/exports/q3/summary.csv',
  email: 'ada.lovelace+tapedeck@example.com',
  'mailto link': 'mailto:support@example.com?subject=Token%20expired',
  'iso time': '2026-11-29T22:17:34.063Z',
  'model name': 'claude-3-5-sonnet-20241022',
  'npm package': '@modelcontextprotocol/server-everything@2026.8.31',
  'semver range': '^1.32.0 || >=2.4.0-beta.3',
  'long identifier': 'internationalization_configuration_loader',
  css: 'color: #1e90ff; font-family: "Inter", sans-serif;',
  'markdown table': '| metric | value |\n| --- | --- |\n| max_tokens | 1024 |\n| tokenizer | cl100k |',
  'key-less yaml': 'name: deploy\nsteps:\n  - run: npm test\n  - run: npm run build',
  'url with harmless query': 'https://example.com/search?q=token+bucket&page=2&sort=desc',
  'jwt-looking prose': 'the header eyJhbGciOi is base64 of {"alg":',
  'secrets manager arn': 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-credentials-AbCdEf',
  'secret santa prose': 'secret_santa: Grace draws Ada this year',
};

const KEYED = {
  progressToken: 'abc-123',
  max_tokens: 1024,
  maxTokens: 2048,
  tokenizer: 'o200k_base',
  token_type: 'Bearer',
  totalTokens: 317,
  keyboard: 'us',
  passwordless: true,
  secretary_name: 'Grace',
  secret_santa: 'Grace',
  token_usage: { input_tokens: 1204, output_tokens: 317, total_tokens: 1521 },
  password_policy: { min_length: 12, require_digit: true, max_age_days: 90 },
  passwordField: {
    type: 'password',
    label: 'Password',
    placeholder: 'at least 12 characters',
    required: true,
  },
  SecretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-credentials-AbCdEf',
};

function linesFor(text: string): TraceLine[] {
  return [
    {
      t: T,
      seq: 1,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'probe', arguments: { value: text, ...KEYED }, _meta: { progressToken: 7 } },
      },
    },
    {
      t: T,
      seq: 2,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text }], structuredContent: { text } },
      },
    },
    { t: T, seq: 3, dir: 'out', raw: { jsonrpc: '2.0', id: 2, error: { code: -32000, message: text } } },
    { t: T, seq: 4, type: 'stderr', text },
    { t: T, seq: 5, type: 'text', dir: 'out', text },
    {
      t: T,
      seq: 6,
      type: 'http',
      conn: 'h6',
      dir: 'in',
      method: 'POST',
      url: `http://127.0.0.1:7430/mcp?note=${encodeURIComponent(text.slice(0, 200))}`,
      headers: { 'x-note': text.slice(0, 200), 'content-type': 'application/json' },
    },
    { t: T, seq: 7, type: 'event', name: 'note', detail: text },
  ];
}

describe('the false-positive corpus', () => {
  const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });

  it.each(Object.entries(PROBES))('%s comes through unchanged in every kind of line', (_name, text) => {
    for (const line of linesFor(text)) expect(redact(line), JSON.stringify(line).slice(0, 120)).toBe(line);
  });

  it('keys that only look secret-named come through unchanged', () => {
    const line: TraceLine = { t: T, seq: 1, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: KEYED } };
    expect(redact(line)).toBe(line);
  });
});
