import type { IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpMiddleware, type InstrumentOptions, instrument } from '../../src/instrument/index.js';
import { truncateJson } from '../../src/instrument/values.js';
import { eventsOf, linkClient, memoryEvents } from './helpers.js';

const CREDENTIALS = {
  authorization: 'Bearer abc.def.ghi',
  cookie: 'sid=s3cr3t',
  'x-api-key': 'key-123456',
  'proxy-authorization': 'Basic dXNlcjpwYXNz',
  'x-auth-token': 'tok-999',
  'x-tenant': 'acme',
  accept: 'application/json',
};

async function run(options: Omit<InstrumentOptions, 'to'>, headers: Record<string, string> = CREDENTIALS) {
  const kept = memoryEvents();
  const errors: string[] = [];
  const server = new McpServer({ name: 'values', version: '1.0.0' });
  server.registerTool(
    'store',
    { inputSchema: { text: z.string(), apiKey: z.string().optional() } },
    async ({ text }) => ({
      content: [{ type: 'text', text: `stored ${text.length} chars: ${text}` }],
    }),
  );
  const recorder = instrument(server, {
    to: { type: 'sink', sink: kept.sink },
    onError: (e) => errors.push(e.message),
    ...options,
  });
  const client = await linkClient(server);
  const req = {
    method: 'POST',
    url: '/mcp',
    headers: { host: 'h', ...headers },
    socket: { remoteAddress: '127.0.0.1' },
  };
  const call = (args: Record<string, string>) =>
    new Promise((resolve, reject) =>
      httpMiddleware()(req as unknown as IncomingMessage, {}, () => {
        client.callTool({ name: 'store', arguments: args }).then(resolve, reject);
      }),
    );
  return { kept, errors, recorder, client, call };
}

describe('instrument: what leaves the process', () => {
  it('always hides credential headers, even with every redaction default turned off, plus redactHeaders', async () => {
    const { kept, recorder, client, call } = await run({
      redaction: { defaults: false, rules: [], mode: 'marker' },
      redactHeaders: ['X-Tenant'],
    });
    await call({ text: 'hi' });
    await recorder.flush();
    const headers = eventsOf(kept.events, 'tools/call')[0]?.http?.headers;
    expect(headers).toMatchObject({
      authorization: '[REDACTED:authorization-header]',
      cookie: '[REDACTED:cookie-header]',
      'x-api-key': '[REDACTED:api-key-header]',
      'proxy-authorization': '[REDACTED:proxy-authorization-header]',
      'x-auth-token': '[REDACTED:token-header]',
      accept: 'application/json',
    });
    expect(headers?.['x-tenant']).toMatch(/^\[REDACTED:/);
    const text = JSON.stringify(kept.events);
    for (const secret of ['abc.def.ghi', 's3cr3t', 'key-123456', 'dXNlcjpwYXNz', 'tok-999', 'acme']) {
      expect(text).not.toContain(secret);
    }
    await client.close();
  });

  it('applies the redaction rules to params and results', async () => {
    const { kept, recorder, client, call } = await run({});
    await call({ text: 'my key is sk-ant-abcdefghijklmnopqrstuvwxyz012345', apiKey: 'plain-value-1' });
    await recorder.flush();
    const [event] = eventsOf(kept.events, 'tools/call');
    expect(event?.params).toEqual({
      name: 'store',
      arguments: { text: 'my key is [REDACTED:anthropic-api-key]', apiKey: '[REDACTED:api-key]' },
    });
    expect(JSON.stringify(event?.result)).toContain('[REDACTED:anthropic-api-key]');
    expect(JSON.stringify(kept.events)).not.toContain('abcdefghijklmnopqrstuvwxyz012345');
    await client.close();
  });

  it('cuts long values to maxValueLength and says which fields it cut', async () => {
    const { kept, recorder, client, call } = await run({ maxValueLength: 1000 });
    await call({ text: 'x'.repeat(5000) });
    await call({ text: 'short' });
    await recorder.flush();
    const [long, short] = eventsOf(kept.events, 'tools/call');
    expect(long?.truncated).toEqual(['params', 'result']);
    expect(JSON.stringify(long?.params).length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(long?.params)).toMatch(/…\[truncated \d+ chars\]/);
    expect(short?.truncated).toBeUndefined();
    expect(short?.params).toEqual({ name: 'store', arguments: { text: 'short' } });
    await client.close();
  });

  it('turns capture of params, results and headers off on request', async () => {
    const { kept, recorder, client, call } = await run({
      disableParamCapture: true,
      disableResultCapture: true,
      disableHeaderCapture: true,
    });
    await call({ text: 'private' });
    await recorder.flush();
    const [event] = eventsOf(kept.events, 'tools/call');
    expect(event).toMatchObject({ target: 'store', outcome: 'ok', isError: false });
    expect(event?.params).toBeUndefined();
    expect(event?.result).toBeUndefined();
    expect(event?.http?.headers).toBeUndefined();
    expect(event?.http?.peerAddress).toBe('127.0.0.1');
    expect(JSON.stringify(kept.events)).not.toContain('private');
    await client.close();
  });

  it('lets sanitizeEvent change an event or drop it (a throwing sanitizer drops it too)', async () => {
    const { kept, errors, recorder, client, call } = await run({
      sanitizeEvent: (event) => {
        const text = (event.params as { arguments?: { text?: string } } | undefined)?.arguments?.text;
        if (text === 'drop me') return null;
        if (text === 'throw') throw new Error('sanitizer bug');
        return { ...event, release: 'sanitized' };
      },
    });
    await call({ text: 'keep' });
    await call({ text: 'drop me' });
    await call({ text: 'throw' });
    await recorder.flush();
    const calls = eventsOf(kept.events, 'tools/call');
    expect(calls.map((e) => (e.params as { arguments: { text: string } }).arguments.text)).toEqual(['keep']);
    expect(calls[0]?.release).toBe('sanitized');
    expect(recorder.stats().sanitized).toBe(2);
    expect(errors.some((m) => m.includes('sanitizer bug'))).toBe(true);
    await client.close();
  });
});

describe('truncateJson', () => {
  it('returns the same value when it fits, cuts strings first, and falls back to a preview', () => {
    const small = { a: 'b' };
    expect(truncateJson(small, 100)).toBe(small);
    const cut = truncateJson({ text: 'y'.repeat(500), n: 1 }, 200) as { text: string; n: number };
    expect(cut.n).toBe(1);
    expect(cut.text).toMatch(/^y+…\[truncated \d+ chars\]$/);
    const many = truncateJson(
      Array.from({ length: 100 }, (_, i) => i),
      50,
    );
    expect(typeof many).toBe('string');
    expect(many as string).toMatch(/^\[0,1,2,.*…\[truncated \d+ chars\]$/);
  });
});
