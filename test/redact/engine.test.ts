import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  compile,
  createRedactor,
  type RedactConfig,
  redactJson,
  redactText,
  type ValueHasher,
} from '../../src/redact/index.js';
import { hideInText } from '../../src/redact/values.js';
import { MemorySink } from '../../src/sink/memory.js';
import type {
  EventLine,
  HttpLine,
  Json,
  MessageLine,
  MetaLine,
  StderrLine,
  TextLine,
  TraceLine,
} from '../../src/trace/types.js';

const T = '2026-11-29T22:15:23.264Z';
const DEFAULTS: RedactConfig = { defaults: true, rules: [], mode: 'marker' };
const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const GHP2 = 'ghp_9876543210zyxwvutsrqZYXWVUTSRQ543210';

/** The test's HMAC, as the CLI injects one: the engine itself never imports node:crypto. */
const hasher: ValueHasher = (value) => createHmac('sha256', 'test-key').update(value).digest('hex');

function deepFreeze<V>(value: V): V {
  if (typeof value === 'object' && value !== null) {
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** Walks into a JSON value by keys and indexes. */
function at(value: unknown, ...path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

const message = (raw: Json, dir: 'in' | 'out' = 'in'): MessageLine => ({ t: T, seq: 2, dir, raw });

/** A session's worth of lines, each kind holding secrets in the places rules look. */
function sessionLines(): TraceLine[] {
  return [
    {
      v: 1,
      type: 'meta',
      startedAt: T,
      label: 'demo',
      command: [
        'node',
        'server.js',
        '--api-key',
        'abc123',
        `--token=${GHP}`,
        'GITHUB_TOKEN=xyz',
        '--verbose',
      ],
      url: 'https://admin:hunter22@mcp.example.com/mcp',
    },
    message({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'fetch',
        arguments: {
          url: 'https://example.com',
          apiKey: 'sk-live-123',
          headers: { Authorization: `Bearer ${GHP}` },
        },
        _meta: { progressToken: 'p-7' },
      },
    }),
    message(
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: `your token is ${GHP2}` }] } },
      'out',
    ),
    { t: T, seq: 4, type: 'stderr', text: `export AWS_KEY=AKIAIOSFODNN7EXAMPLE`, b64: 'ZXhwb3J0' },
    { t: T, seq: 5, type: 'text', dir: 'out', text: `banner: using ${GHP}`, b64: 'YmFubmVy' },
    {
      t: T,
      seq: 6,
      type: 'http',
      conn: 'c1',
      dir: 'in',
      method: 'POST',
      url: 'https://u:pw123456@host/mcp',
      headers: { authorization: 'Bearer x', accept: '*/*', 'x-note': `key ${GHP}` },
    },
    { t: T, seq: 7, type: 'event', name: 'spawn', ok: true, detail: { message: `failed with ${GHP}` } },
    { t: T, type: 'end', durationMs: 5, reason: 'process_exit' },
  ];
}

describe('createRedactor', () => {
  const redact = createRedactor(DEFAULTS);

  it('returns the very same line when there is nothing to hide', () => {
    const lines: TraceLine[] = [
      message({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { progressToken: 'abc' } } }),
      message({
        jsonrpc: '2.0',
        id: 1,
        result: { usage: { max_tokens: 10, totalTokens: 30, tokenizer: 'bpe' } },
      }),
      { t: T, seq: 3, type: 'stderr', text: 'Starting default (STDIO) server...', b64: 'U3RhcnQ=' },
      { t: T, seq: 4, type: 'text', dir: 'out', text: 'hello' },
      {
        t: T,
        seq: 5,
        type: 'http',
        // The recorder's own exchange id (a session id would be kept as a hash).
        conn: 'h5',
        dir: 'out',
        status: 200,
        headers: { 'content-type': 'text/plain' },
      },
      { t: T, seq: 6, type: 'event', name: 'exit', exitCode: 0 },
      {
        v: 1,
        type: 'meta',
        startedAt: T,
        label: 'x',
        command: ['npx', '-y', '@scope/server', '--port', '3000'],
      },
      { t: T, type: 'end', durationMs: 1 },
    ];
    for (const line of lines) expect(redact(deepFreeze(line))).toBe(line);
  });

  it('hides secrets in every kind of line, without mutating the input', () => {
    const lines = sessionLines().map(deepFreeze);
    const before = JSON.stringify(lines);
    const out = lines.map(redact);
    expect(JSON.stringify(lines)).toBe(before);

    const [meta, call, result, stderr, text, http, event, end] = out as [
      MetaLine,
      MessageLine,
      MessageLine,
      StderrLine,
      TextLine,
      HttpLine,
      EventLine,
      TraceLine,
    ];
    expect(meta.command).toEqual([
      'node',
      'server.js',
      '--api-key',
      '[REDACTED:api-key]',
      // The value is a GitHub token: its format names it better than the flag does.
      '--token=[REDACTED:github-token]',
      'GITHUB_TOKEN=[REDACTED:token]',
      '--verbose',
    ]);
    expect(meta.url).toBe('https://admin:[REDACTED:url-password]@mcp.example.com/mcp');
    expect(call.raw).toEqual({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {
        name: 'fetch',
        arguments: {
          url: 'https://example.com',
          apiKey: '[REDACTED:api-key]',
          headers: { Authorization: '[REDACTED:authorization]' },
        },
        _meta: { progressToken: 'p-7' },
      },
    });
    expect(at(result.raw, 'result', 'content', 0, 'text')).toBe('your token is [REDACTED:github-token]');
    expect(stderr).toEqual({
      t: T,
      seq: 4,
      type: 'stderr',
      text: 'export AWS_KEY=[REDACTED:aws-access-key-id]',
      redacted: true,
    });
    expect(text).toEqual({
      t: T,
      seq: 5,
      type: 'text',
      dir: 'out',
      text: 'banner: using [REDACTED:github-token]',
      redacted: true,
    });
    expect(http.url).toBe('https://u:[REDACTED:url-password]@host/mcp');
    expect(http.headers).toEqual({
      authorization: '[REDACTED:authorization-header]',
      accept: '*/*',
      'x-note': 'key [REDACTED:github-token]',
    });
    expect(event).toEqual({
      t: T,
      seq: 7,
      type: 'event',
      name: 'spawn',
      ok: true,
      detail: { message: 'failed with [REDACTED:github-token]' },
    });
    expect(end).toBe(lines[7]);
  });

  it('hides tokens in a meta label and server name as well as the command', () => {
    const meta: MetaLine = { v: 1, type: 'meta', startedAt: T, label: `server-${GHP}`, server: `s ${GHP2}` };
    expect(redact(deepFreeze(meta))).toEqual({
      ...meta,
      label: 'server-[REDACTED:github-token]',
      server: 's [REDACTED:github-token]',
    });
  });

  it('is idempotent: a redacted line redacts to itself, in both modes', () => {
    for (const config of [DEFAULTS, { ...DEFAULTS, mode: 'hash' as const }]) {
      const again = createRedactor(config, { hasher });
      for (const line of sessionLines()) {
        const once = again(line);
        expect(again(deepFreeze(once))).toBe(once);
      }
    }
  });

  it('never lets a line through unredacted when redaction throws', () => {
    const onError = vi.fn();
    const failing = createRedactor(
      { ...DEFAULTS, mode: 'hash' },
      {
        hasher: () => {
          throw new Error('key store unreadable');
        },
        onError,
      },
    );
    const out = sessionLines().map((line) => failing(line));
    expect(onError).toHaveBeenCalledTimes(7);
    expect(onError).toHaveBeenCalledWith(new Error('key store unreadable'));
    const text = JSON.stringify(out);
    for (const secret of [
      GHP,
      GHP2,
      'abc123',
      'hunter22',
      'sk-live-123',
      'AKIAIOSFODNN7EXAMPLE',
      'pw123456',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect((out[1] as MessageLine).raw).toBe('[REDACTED:redaction_error]');
    expect(out[3]).toEqual({
      t: T,
      seq: 4,
      type: 'stderr',
      text: '[REDACTED:redaction_error]',
      redacted: true,
    });
    expect(out[6]).toEqual({
      t: T,
      seq: 7,
      type: 'event',
      name: 'spawn',
      redacted: '[REDACTED:redaction_error]',
    });
  });

  it('survives an onError that throws too', () => {
    const failing = createRedactor(
      { ...DEFAULTS, mode: 'hash' },
      {
        hasher: () => {
          throw new Error('boom');
        },
        onError: () => {
          throw new Error('handler broke');
        },
      },
    );
    expect(failing(message({ token: 'x' }))).toMatchObject({ raw: '[REDACTED:redaction_error]' });
  });

  it('lets the sink reuse the wire text only while a message is untouched', async () => {
    const sink = new MemorySink({ redact });
    sink.start({ v: 1, type: 'meta', startedAt: T, label: 'x' });
    const clean = '{ "jsonrpc": "2.0", "id": 1, "method": "ping" }';
    const dirty = '{ "jsonrpc": "2.0", "id": 2, "params": { "password": "hunter2" } }';
    sink.append({ t: T, dir: 'in', raw: JSON.parse(clean) }, clean);
    sink.append({ t: T, dir: 'in', raw: JSON.parse(dirty) }, dirty);
    await sink.close({ reason: 'process_exit' });
    expect(sink.text[1]).toContain(clean);
    expect(sink.text[2]).not.toContain('hunter2');
    expect(JSON.parse(sink.text[2]!).raw.params.password).toBe('[REDACTED:password]');
  });
});

describe('short strings', () => {
  it('remembers only clean ones, and a remembered string still redacts the same', () => {
    const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
    const secret = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    for (let round = 0; round < 2; round += 1) {
      expect(hideInText('echo', compiled)).toBe('echo');
      expect(hideInText(secret, compiled)).toBe('[REDACTED:github-token]');
    }
    expect(compiled.clean.has('echo')).toBe(true);
    expect(compiled.clean.has(secret)).toBe(false);
  });

  it('forgets what it remembered once it holds too many', () => {
    const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
    for (let i = 0; i < 5000; i += 1) hideInText(`value ${i}`, compiled);
    expect(compiled.clean.size).toBeLessThanOrEqual(4096);
    expect(compiled.clean.size).toBeGreaterThan(0);
  });
});

describe('hash mode', () => {
  const compiled = compile({ ...DEFAULTS, mode: 'hash' }, { hasher });

  it('gives equal secrets equal markers and different secrets different ones', () => {
    const a = redactText(`${GHP} and ${GHP}`, compiled);
    const [first, second] = a.split(' and ');
    expect(first).toMatch(/^\[REDACTED:github-token:[0-9a-f]{12}\]$/);
    expect(second).toBe(first);
    expect(redactText(GHP2, compiled)).not.toBe(first);
    expect(first).toBe(`[REDACTED:github-token:${hasher(GHP).slice(0, 12)}]`);
  });

  it('hashes objects as canonical JSON, whatever their key order', () => {
    const one = at(redactJson({ secret: { a: 1, b: [2, { c: 3, d: 4 }] } }, compiled), 'secret');
    const two = at(redactJson({ secret: { b: [2, { d: 4, c: 3 }], a: 1 } }, compiled), 'secret');
    expect(one).toBe(two);
    expect(one).toBe(`[REDACTED:secret:${hasher('{"a":1,"b":[2,{"c":3,"d":4}]}').slice(0, 12)}]`);
  });

  it('needs a hasher', () => {
    expect(() => compile({ ...DEFAULTS, mode: 'hash' })).toThrow(/mode "hash" needs a value hasher/);
  });
});

describe('keys that name prototypes', () => {
  it('are data: a __proto__ or constructor value is replaced as an own property, prototypes untouched', () => {
    const compiled = compile({
      defaults: true,
      rules: [
        { id: 'proto', type: 'key', name: 'proto' },
        { id: 'ctor', type: 'key', name: 'constructor' },
      ],
      mode: 'marker',
    });
    const value = deepFreeze(
      JSON.parse('{"__proto__":{"isAdmin":true},"constructor":"x","inner":{"__proto__":{"token":"t"}}}'),
    );
    const out = redactJson(value, compiled) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('[REDACTED:proto]');
    expect(Object.getOwnPropertyDescriptor(out, 'constructor')?.value).toBe('[REDACTED:ctor]');
    expect(JSON.stringify(out)).toBe(
      '{"__proto__":"[REDACTED:proto]","constructor":"[REDACTED:ctor]","inner":{"__proto__":"[REDACTED:proto]"}}',
    );
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const tokenOnly = redactJson(JSON.parse('{"__proto__":{"token":"t","n":1}}'), compile(DEFAULTS));
    expect(JSON.stringify(tokenOnly)).toBe('{"__proto__":{"token":"[REDACTED:token]","n":1}}');
    expect(Object.getPrototypeOf(tokenOnly)).toBe(Object.prototype);
  });
});

describe('markers', () => {
  const compiled = compile({
    defaults: true,
    rules: [{ id: 'word', type: 'regex', pattern: 'REDACTED|github' }],
    mode: 'marker',
  });

  it('are never redacted again, whole or inside a string', () => {
    expect(redactText('[REDACTED:github-token]', compiled)).toBe('[REDACTED:github-token]');
    expect(redactText('a [REDACTED:jwt:0123456789ab] b', compiled)).toBe('a [REDACTED:jwt:0123456789ab] b');
    const value = { token: '[REDACTED:token]', note: 'see [REDACTED:token]' };
    expect(redactJson(value, compiled)).toBe(value);
  });
});
