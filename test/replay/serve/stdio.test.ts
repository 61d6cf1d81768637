import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildCassette } from '../../../src/replay/cassette/cassette.js';
import type { Cassette } from '../../../src/replay/cassette/types.js';
import { discoverAnswer } from '../../../src/replay/engine/fallback.js';
import { serveStdio } from '../../../src/replay/serve/stdio.js';
import { loadTrace } from '../../../src/trace/io.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import type { Json } from '../../../src/trace/types.js';
import { flush, ManualClock } from '../../helpers/clock.js';
import { call, fixtureCassette, INTEROP, req, res, settle, traceLines } from '../helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';
const MODERN = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };

/** serveStdio over PassThroughs: write lines in, read parsed lines out. */
function serve(cassette: Cassette, options: Partial<Parameters<typeof serveStdio>[1]> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: JsonObject[] = [];
  let buffer = '';
  output.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      out.push(JSON.parse(buffer.slice(0, nl)) as JsonObject);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  });
  const server = serveStdio(cassette, { input, output, ...options });
  const send = (...messages: Json[]) => {
    for (const message of messages) input.write(`${JSON.stringify(message)}\n`);
  };
  return { input, out, server, send };
}

describe('serveStdio', () => {
  it('lets a playing script finish after EOF, then reports', async () => {
    const { input, out, server, send } = serve(await fixtureCassette(EVERYTHING));
    send(
      req(
        1,
        'tools/call',
        call('trigger-long-running-operation', { duration: 2, steps: 4 }, { _meta: { progressToken: 'p' } }),
      ),
    );
    input.end();
    const outcome = await server.done;
    expect(out.map((m) => m.method ?? m.id)).toEqual([...Array(4).fill('notifications/progress'), 1]);
    expect(outcome).toMatchObject({ ended: 'eof', requests: 1, probe: false });
    expect(outcome.report.used).toBe(1);
  });

  it('ends at EOF without waiting out the answer timeout of a request the client can no longer answer', async () => {
    const clock = new ManualClock();
    const { input, out, server, send } = serve(await fixtureCassette(EVERYTHING), {
      answerTimeoutMs: 60_000,
      scheduler: clock,
    });
    send(req(1, 'tools/call', call('trigger-sampling-request', { prompt: 'hi', maxTokens: 20 })));
    await flush();
    expect(clock.pending()).toEqual([{ ms: 60_000, dueIn: 60_000, unref: false }]);
    input.end();
    // Done with the clock standing still: no wait was left to run out.
    await server.done;
    expect(clock.elapsed).toBe(0);
    expect(clock.pending().filter((timer) => timer.ms === 60_000)).toEqual([]);
    expect(out.map((m) => m.method)).toEqual(['sampling/createMessage']);
  });

  it('stops on stop(), with stdin still open', async () => {
    const { server, send, out } = serve(await fixtureCassette(EVERYTHING));
    send(req(1, 'tools/list'));
    await settle(20);
    server.stop();
    const outcome = await server.done;
    expect(outcome.ended).toBe('stopped');
    expect(out.map((m) => m.id)).toEqual([1]);
  });

  it('knows a probe: a process asked server/discover and nothing else', async () => {
    const { server, send } = serve(await fixtureCassette('era2026/era2026-stdio.jsonl'));
    send(req('probe', 'server/discover', MODERN));
    await settle(20);
    server.stop();
    expect(await server.done).toMatchObject({ requests: 1, probe: true });
  });

  it('answers ping when the cassette recorded none', async () => {
    const events: string[] = [];
    const { server, send, out } = serve(await fixtureCassette(EVERYTHING), {
      onEvent: (e) => events.push(e.kind),
    });
    send(req(7, 'ping'));
    await settle(20);
    server.stop();
    const outcome = await server.done;
    expect(out).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
    expect(events).toEqual(['fallback']);
    expect(outcome.report.misses).toEqual([]);
  });
});

describe('logging/setLevel a cassette did not record', () => {
  it('is answered with {} for a server that had logging; a recorded level is served from the cassette', async () => {
    const events: string[] = [];
    const { server, send, out } = serve(await fixtureCassette(EVERYTHING), {
      onEvent: (e) => events.push(e.kind),
    });
    send(req(1, 'logging/setLevel', { level: 'warning' }), req(2, 'logging/setLevel', { level: 'debug' }));
    await settle(20);
    server.stop();
    const outcome = await server.done;
    // The recorded one plays its script too (the log messages the server sent after it).
    expect(out.filter((m) => m.method === undefined)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(events.filter((kind) => kind === 'fallback' || kind === 'hit')).toEqual(['fallback', 'hit']);
    expect(outcome.report.misses).toEqual([]);
  });

  it('is a miss for a server that had no logging', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} })],
        ['out', res(0, { protocolVersion: '2025-06-18', capabilities: { tools: {} } })],
      ]),
    );
    const { server, send, out } = serve(cassette);
    send(req(1, 'logging/setLevel', { level: 'debug' }));
    await settle(20);
    server.stop();
    await server.done;
    expect(out[0]?.error).toMatchObject({ code: -32090 });
  });
});

describe('server/discover a cassette did not record', () => {
  it('is served as recorded when it was recorded', async () => {
    expect(discoverAnswer(await fixtureCassette('era2026/era2026-stdio.jsonl'))).toEqual({
      kind: 'recorded',
    });
  });

  it('is derived from a 2026 session — the same answer the probe process recorded', async () => {
    const answer = discoverAnswer(await fixtureCassette('era2026/era2026-stdio-sibling-session.jsonl'));
    const probe = await loadTrace(`${INTEROP}era2026/era2026-stdio-sibling-probe.jsonl`);
    const recorded = probe.entries
      .map((e) => e.line)
      .find((line) => line.type === undefined && 'raw' in line && (line.raw as JsonObject).result);
    expect(answer).toEqual({ kind: 'derived', result: (recorded as { raw: JsonObject }).raw.result });
  });

  it('is Method not found for a cassette recorded with initialize, as a server of that era answers', async () => {
    expect(discoverAnswer(await fixtureCassette(EVERYTHING))).toMatchObject({
      kind: 'legacy',
      code: -32601,
      message: 'Method not found',
    });
  });

  it('is a miss when the cassette says nothing of either era', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'tools/list')],
        ['out', res(1, { tools: [] })],
      ]),
    );
    expect(discoverAnswer(cassette)).toEqual({ kind: 'none' });
    const { server, send, out } = serve(cassette, { onEvent: () => {} });
    send(req('d', 'server/discover', MODERN));
    await settle(20);
    server.stop();
    await server.done;
    expect(out[0]).toMatchObject({ id: 'd', error: { code: -32090 } });
    expect((out[0]!.error as JsonObject).message).toMatch(/^no recorded answer for server\/discover/);
  });
});
