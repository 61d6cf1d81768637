import { describe, expect, it } from 'vitest';
import {
  compile,
  createRedactor,
  findSecrets,
  redactArgv,
  redactHeaders,
  redactJson,
  redactText,
} from '../../src/redact/index.js';
import type { MessageLine, MetaLine } from '../../src/trace/types.js';
import { PROVIDER_EXAMPLES } from './provider-examples.js';

/**
 * When a name rule (`token`, `api-key`, a credential header) and a provider rule hide the same value, the provider
 * rule names it: `GITHUB_TOKEN: ghp_…` is a `github-token` in `scan` and in the marker, wherever it sits.
 */

const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
const T = '2026-12-01T00:00:00.000Z';

function example(rule: string, index = 0): string {
  const value = PROVIDER_EXAMPLES[rule]!.positives[index]!;
  return typeof value === 'string' ? value : value[1];
}

/** A generic name, the provider rule its value falls under, and the value. */
const CASES: Array<[name: string, rule: string, value: string]> = [
  ['GITHUB_TOKEN', 'github-token', example('github-token')],
  ['GH_TOKEN', 'github-token', example('github-token', 1)],
  ['SLACK_BOT_TOKEN', 'slack-token', example('slack-token')],
  ['AWS_ACCESS_KEY_ID', 'aws-access-key-id', example('aws-access-key-id')],
  ['OPENAI_API_KEY', 'openai-api-key', example('openai-api-key')],
  ['ANTHROPIC_API_KEY', 'anthropic-api-key', example('anthropic-api-key')],
  ['apiKey', 'anthropic-api-key', example('anthropic-api-key')],
  ['client_secret', 'stripe-key', example('stripe-key')],
];

describe('the most specific rule names a value several rules hide', () => {
  it.each(CASES)('%s holding a %s value: JSON key', (name, rule, value) => {
    expect(redactJson({ [name]: value }, compiled)).toEqual({ [name]: `[REDACTED:${rule}]` });
  });

  it.each(CASES)('%s holding a %s value: text pairs', (name, rule, value) => {
    expect(redactText(`${name}=${value}`, compiled)).toBe(`${name}=[REDACTED:${rule}]`);
    expect(redactText(`export ${name}="${value}"`, compiled)).toBe(`export ${name}="[REDACTED:${rule}]"`);
  });

  it.each(CASES)('%s holding a %s value: command line', (name, rule, value) => {
    expect(redactArgv([`${name}=${value}`, `--${name}`, value], compiled)).toEqual([
      `${name}=[REDACTED:${rule}]`,
      `--${name}`,
      `[REDACTED:${rule}]`,
    ]);
  });

  it.each(CASES)('%s holding a %s value: scan reports the provider rule', (name, rule, value) => {
    const line: MessageLine = {
      t: T,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: JSON.stringify({ [name]: value }, null, 2) }] },
      },
    };
    const found = findSecrets(line, compiled, { entropy: false });
    expect(found.map((f) => f.rule)).toEqual([rule]);
  });

  it('names a credential header by the token it holds, and keeps the session id hashed under its own rule', () => {
    const github = example('github-token');
    const out = redactHeaders(
      { 'x-api-key': example('anthropic-api-key'), 'x-auth-token': github, 'mcp-session-id': github },
      compiled,
    ) as Record<string, string>;
    expect(out['x-api-key']).toBe('[REDACTED:anthropic-api-key]');
    expect(out['x-auth-token']).toBe('[REDACTED:github-token]');
    expect(out['mcp-session-id']).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
  });

  it('names the value in a recorded command line', () => {
    const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
    const github = example('github-token');
    const line: MetaLine = {
      v: 1,
      type: 'meta',
      startedAt: T,
      label: 'server',
      transport: 'stdio',
      command: ['node', 'server.js', `GITHUB_TOKEN=${github}`],
    };
    const meta = redact(line);
    expect(meta.command).toEqual(['node', 'server.js', 'GITHUB_TOKEN=[REDACTED:github-token]']);
  });

  it('keeps the name rule where the value rule hides only part of the value, or nothing', () => {
    expect(redactJson({ authorization: 'Bearer abc123def456ghi789' }, compiled)).toEqual({
      authorization: '[REDACTED:authorization]',
    });
    expect(redactJson({ token: 'plain-opaque-value' }, compiled)).toEqual({ token: '[REDACTED:token]' });
    expect(redactJson({ token: `${example('github-token')} extra` }, compiled)).toEqual({
      token: '[REDACTED:token]',
    });
  });

  it('keeps the id a path rule gives, which names what its author pointed at', () => {
    const withPath = compile({
      defaults: true,
      rules: [{ type: 'path', path: '$.params.arguments.gh', id: 'deploy-key' }],
      mode: 'marker',
    });
    expect(redactJson({ params: { arguments: { gh: example('github-token') } } }, withPath)).toEqual({
      params: { arguments: { gh: '[REDACTED:deploy-key]' } },
    });
  });
});
