import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpMiddleware, instrument } from '../../src/instrument/index.js';
import { loadTrace } from '../../src/trace/io.js';
import { collectExchanges } from '../../src/trace/pairing.js';
import type { EndLine, HttpLine, MessageLine, MetaLine, TraceLine } from '../../src/trace/types.js';
import { linkClient } from './helpers.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function asUser(user: string, call: () => Promise<unknown>): Promise<unknown> {
  const req = {
    method: 'POST',
    url: '/mcp',
    headers: { host: 'mcp.local', authorization: `Bearer token-of-${user}`, 'x-user': user },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  return new Promise((resolve, reject) => httpMiddleware()(req, {}, () => call().then(resolve, reject)));
}

describe('instrument: a trace file per session', () => {
  it('writes each session as a private JSONL v1 trace that tapedeck reads back and pairs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-instrument-files-'));
    const out = join(dir, 'traces', 'prod');
    const server = new McpServer({ name: 'files', version: '1.2.3' }, { capabilities: { logging: {} } });
    server.registerTool('count', { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let progress = 1; progress <= to && progressToken !== undefined; progress += 1) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total: to },
        });
      }
      return { content: [{ type: 'text', text: `counted to ${to}` }] };
    });
    server.registerTool('fail', {}, async () => ({ content: [], isError: true }));
    const recorder = instrument(server, {
      to: { type: 'files', dir: out },
      getUser: (ctx) => ({ id: String(ctx.headers['x-user'] ?? 'system') }),
      relatedMessages: 'full',
      flushInterval: 60_000,
    });
    const client = await linkClient(server);
    await asUser('ada', () =>
      client.callTool({ name: 'count', arguments: { to: 2 } }, undefined, { onprogress: () => {} }),
    );
    await asUser('bob', () => client.callTool({ name: 'fail', arguments: {} }));
    await asUser('ada', () => client.callTool({ name: 'count', arguments: { to: 1 } }));
    await recorder.shutdown();

    expect(statSync(out).mode & 0o777).toBe(0o700);
    const files = readdirSync(out).sort();
    // initialize (no HTTP request: user "system"), ada, bob.
    expect(files).toHaveLength(3);
    const traces = await Promise.all(files.map((name) => loadTrace(join(out, name))));
    for (const name of files) expect(statSync(join(out, name)).mode & 0o777).toBe(0o600);
    const byUser = new Map(
      traces.map((trace) => [(trace.meta.session as { user: { id: string } }).user.id, trace] as const),
    );
    const ada = byUser.get('ada')!;
    const lines: TraceLine[] = ada.entries.map((entry) => entry.line);
    const meta: MetaLine = ada.meta;
    expect(meta).toMatchObject({ v: 1, type: 'meta', server: 'files', transport: 'memory', kind: 'mcp' });
    expect(meta.label).toBe('files · ada');
    const messages = lines.filter((line): line is MessageLine => line.type === undefined);
    expect(new Set(messages.map((m) => m.conn))).toEqual(new Set([meta.traceId]));
    expect(messages.map((m) => `${m.dir} ${(m.raw as { method?: string }).method ?? 'answer'}`)).toEqual([
      'in tools/call',
      'out notifications/progress',
      'out notifications/progress',
      'out answer',
      'in tools/call',
      'out answer',
    ]);
    const http = lines.filter((line): line is HttpLine => line.type === 'http');
    expect(http).toHaveLength(2);
    expect(http[0]?.headers.authorization).toBe('[REDACTED:authorization-header]');
    expect(http[0]?.url).toBe('http://mcp.local/mcp');
    const end = lines.at(-1) as EndLine;
    expect(end).toMatchObject({ type: 'end', reason: 'producer_shutdown', counts: { in: 2, out: 4 } });
    const paired = collectExchanges(lines);
    expect(paired.exchanges.map((e) => [e.method, e.outcome])).toEqual([
      ['tools/call', 'ok'],
      ['tools/call', 'ok'],
    ]);
    const bob = collectExchanges(byUser.get('bob')!.entries.map((entry) => entry.line));
    expect(bob.exchanges.map((e) => [e.method, e.outcome])).toEqual([['tools/call', 'tool_error']]);
    for (const trace of traces) expect(JSON.stringify(trace.entries)).not.toContain('token-of-');

    // The recorder goes on after shutdown: the session continues in a new file.
    await asUser('ada', () => client.callTool({ name: 'count', arguments: { to: 1 } }));
    await recorder.shutdown();
    const later = readdirSync(out).sort();
    expect(later).toHaveLength(4);
    const added = later.find((name) => !files.includes(name))!;
    expect(added).toMatch(/-2\.jsonl$/);
    await client.close();
  });

  it('keeps at most maxOpenFiles open: the least recently written session is ended and goes on in a new file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-instrument-files-'));
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    server.registerTool('ping-tool', {}, async () => ({ content: [] }));
    const recorder = instrument(server, {
      to: { type: 'files', dir, maxOpenFiles: 2 },
      getUser: (ctx) => ({ id: String(ctx.headers['x-user'] ?? 'system') }),
      flushInterval: 60_000,
      maxBatchSize: 1,
    });
    const client = await linkClient(server);
    for (const user of ['ada', 'bob', 'cy', 'ada']) {
      await asUser(user, () => client.callTool({ name: 'ping-tool', arguments: {} }));
      await recorder.flush();
    }
    await recorder.shutdown();
    const files = readdirSync(dir).sort();
    // system (initialize), ada, bob, cy, and ada again after being ended to make room.
    expect(files).toHaveLength(5);
    expect(files.filter((name) => name.endsWith('-2.jsonl'))).toHaveLength(1);
    for (const name of files) {
      const trace = await loadTrace(join(dir, name));
      expect(trace.entries.at(-1)?.line.type).toBe('end');
    }
    await client.close();
  });
});
