/**
 * Faults injected by `record --upstream`'s proxy, between a live server-everything (Streamable HTTP) and the SDK's
 * client: the named calls get the fault, the other calls the same answers as without faults, the trace the
 * upstream's true answers plus a `fault` event per injection. A hand-made upstream that answers in JSON bodies
 * covers the JSON side.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultInput } from '../../../src/faults/profile.js';
import type { EventLine, MessageLine } from '../../../src/trace/types.js';
import {
  eventsOf,
  messagesOf,
  type RunningEverything,
  startEverything,
  startRecording,
  startUpstream,
} from '../../helpers/http-proxy.js';

const echo = { name: 'echo', arguments: { message: 'faults' } };
const sum = { name: 'get-sum', arguments: { a: 2, b: 3 } };

let upstream: RunningEverything;
beforeAll(async () => {
  upstream = await startEverything('streamableHttp');
}, 30_000);
afterAll(async () => {
  await upstream?.stop();
});

/** A client through a recording proxy injecting `faults`; `done()` closes both and returns the trace. */
async function through(faults: FaultInput[], seed = 1) {
  const recording = await startRecording(`${upstream.origin}/mcp`, { faults, seed });
  const client = new Client({ name: 'faults', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(new StreamableHTTPClientTransport(new URL(recording.proxy.url)));
  return {
    client,
    errors,
    async done() {
      await client.close().catch(() => {});
      await recording.stop();
      return recording.sink.lines;
    },
  };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error) => error,
  );
const faultEvents = (lines: Parameters<typeof eventsOf>[0]): EventLine[] => eventsOf(lines, 'fault');

describe('record --upstream with faults, live server-everything, SDK Streamable HTTP client', () => {
  it('injects an error into the named call only; the trace keeps the upstream’s answer and says what was injected', async () => {
    const plain = await through([]);
    const expected = await plain.client.callTool(sum);
    await plain.done();

    const run = await through(['error=-32050@tools/call:echo']);
    const failure = await failureOf(run.client.callTool(echo));
    expect(failure).toMatchObject({ code: -32050 });
    expect(await run.client.callTool(sum)).toEqual(expected);
    const lines = await run.done();
    const [event] = faultEvents(lines);
    expect(event).toMatchObject({ kind: 'error', method: 'tools/call', target: 'echo', code: -32050 });
    expect(typeof event!.conn).toBe('string');
    // The upstream's own answer to that call is in the trace, under the event's connection.
    const answer = messagesOf(lines).find(
      (line: MessageLine) =>
        line.dir === 'out' && JSON.stringify(line.raw).includes('Echo: faults') && line.conn === event!.conn,
    );
    expect(answer).toBeDefined();
    expect(lines.indexOf(event!)).toBeLessThan(lines.indexOf(answer!));
  });

  it('answers tool-error, latency and duplicate', async () => {
    const run = await through([
      'tool-error@tools/call:echo',
      'latency=200@tools/call:get-sum#1',
      'duplicate@tools/call:get-sum#2',
    ]);
    expect((await run.client.callTool(echo)).isError).toBe(true);
    const started = Date.now();
    const first = await run.client.callTool(sum);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await run.client.callTool(sum)).toEqual(first);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(run.errors.map((e) => e.message).join('\n')).toMatch(/unknown message ID/i);
    const lines = await run.done();
    expect(faultEvents(lines).map((e) => e.kind)).toEqual(['tool-error', 'latency', 'duplicate']);
  });

  it('drops an answer and cuts another short: the client waits, and reports what it could not read', async () => {
    const run = await through(['drop@tools/call:echo', 'malformed@tools/call:get-sum']);
    expect((await failureOf(run.client.callTool(echo, undefined, { timeout: 400 })))?.message).toMatch(
      /timed out/i,
    );
    expect((await failureOf(run.client.callTool(sum, undefined, { timeout: 400 })))?.message).toMatch(
      /timed out/i,
    );
    expect(run.errors.some((e) => /JSON|Unexpected/i.test(e.message))).toBe(true);
    await run.done();
  });

  it('disconnects the named call before any byte of its answer; later calls still work', async () => {
    const run = await through(['disconnect@tools/call:echo#1']);
    const failure = await failureOf(run.client.callTool(echo, undefined, { timeout: 3000 }));
    expect(failure?.message).not.toMatch(/timed out/i);
    expect(await run.client.callTool(sum)).toMatchObject({ content: [{ text: 'The sum of 2 and 3 is 5.' }] });
    const lines = await run.done();
    expect(faultEvents(lines)).toMatchObject([{ kind: 'disconnect', target: 'echo' }]);
  });

  it('trickles a slow-stream answer', async () => {
    const run = await through(['slow-stream=400/s@tools/call:get-sum']);
    const started = Date.now();
    expect(await run.client.callTool(sum)).toMatchObject({ content: [{ text: 'The sum of 2 and 3 is 5.' }] });
    // The event is over 100 bytes: a quarter of a second at 400 B/s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(220);
    await run.done();
  });

  it('faults the same calls with the same seed', async () => {
    const once = async () => {
      const run = await through(['error@tools/call:get-sum%40'], 21);
      const outcomes: string[] = [];
      for (let i = 0; i < 10; i++)
        outcomes.push(
          await run.client.callTool(sum).then(
            () => 'ok',
            () => 'error',
          ),
        );
      await run.done();
      return outcomes;
    };
    const first = await once();
    expect(await once()).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['ok', 'error']));
  });
});

describe('record --upstream with faults, an upstream that answers in JSON bodies', () => {
  it('doubles, cuts and drops JSON answers as the faults say', async () => {
    const json = await startUpstream((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { method: message.method } }));
      });
    });
    const recording = await startRecording(`${json.origin}/mcp`, {
      faults: ['duplicate@tools/list', 'malformed@prompts/list', 'drop@resources/list'],
    });
    const post = (id: number, method: string, accept = 'application/json, text/event-stream') =>
      fetch(recording.proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ jsonrpc: '2.0', id, method }),
        signal: AbortSignal.timeout(500),
      });
    const doubled = await post(1, 'tools/list');
    expect(doubled.headers.get('content-type')).toBe('text/event-stream');
    expect(
      (await doubled.text()).match(/data: \{"jsonrpc":"2.0","id":1,"result":\{"method":"tools\/list"\}\}/g),
    ).toHaveLength(2);
    const cut = await (await post(2, 'prompts/list')).text();
    expect('{"jsonrpc":"2.0","id":2,"result":{"method":"prompts/list"}}'.startsWith(cut)).toBe(true);
    expect(() => JSON.parse(cut)).toThrow(SyntaxError);
    expect(await failureOf(post(3, 'resources/list'))).toMatchObject({ name: 'TimeoutError' });
    const plain = await (await post(4, 'ping')).json();
    expect(plain).toEqual({ jsonrpc: '2.0', id: 4, result: { method: 'ping' } });
    await recording.stop();
    await json.close();
  });
});
