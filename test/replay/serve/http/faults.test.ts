/**
 * Faults on the HTTP replay server, in process: the official SDK's Streamable HTTP client sees each kind on the
 * requests named and nothing else changed; a JSON-only client's bodies are cut or slowed the same way.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultInput } from '../../../../src/faults/profile.js';
import { type HttpReplayServer, serveHttp } from '../../../../src/replay/serve/http/server.js';
import { fixtureCassette } from '../../helpers.js';
import { rawRequest } from './helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';
const echo = { name: 'echo', arguments: { message: 'hello' } };
const sum = { name: 'get-sum', arguments: { a: 1, b: 2 } };

let server: HttpReplayServer | undefined;
afterEach(async () => {
  server?.stop();
  await server?.done;
  server = undefined;
});

async function connect(faults: FaultInput[], seed = 1) {
  server = await serveHttp(await fixtureCassette(EVERYTHING), { port: 0, faults, seed, repeat: 'last' });
  const client = new Client({ name: 'faults', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return { client, errors, server };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error) => error,
  );

describe('serveHttp with faults, to the SDK Streamable HTTP client', () => {
  it('answers the named call with an injected error and leaves the other calls as recorded', async () => {
    const { client } = await connect(['error=-32002@tools/call:echo']);
    const plain = await client.callTool(sum);
    const failure = await failureOf(client.callTool(echo));
    expect(failure).toMatchObject({ code: -32002 });
    expect(failure?.message).toContain('Injected fault: error -32002');
    expect(await client.callTool(sum)).toEqual(plain);
    await client.close();
    server!.stop();
    const { report } = await server!.done;
    expect(report.faults).toEqual([
      expect.objectContaining({ kind: 'error', id: 2, method: 'tools/call', target: 'echo', code: -32002 }),
    ]);
  });

  it('answers tool-error, latency and duplicate', async () => {
    const { client, errors } = await connect([
      'tool-error@tools/call:echo',
      'latency=150@tools/call:get-sum#1',
      'duplicate@tools/call:get-sum#2',
    ]);
    expect((await client.callTool(echo)).isError).toBe(true);
    const started = Date.now();
    const slow = await client.callTool(sum);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await client.callTool(sum)).toEqual(slow);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors.map((e) => e.message).join('\n')).toMatch(/unknown message ID/i);
    await client.close();
  });

  it('never answers a dropped call; a malformed answer reaches the client as an error it reports', async () => {
    const { client, errors } = await connect(['drop@tools/call:echo', 'malformed@tools/call:get-sum']);
    expect((await failureOf(client.callTool(echo, undefined, { timeout: 300 })))?.message).toMatch(
      /timed out/i,
    );
    expect((await failureOf(client.callTool(sum, undefined, { timeout: 300 })))?.message).toMatch(
      /timed out/i,
    );
    expect(errors.some((e) => /JSON|Unexpected|parse/i.test(e.message))).toBe(true);
    await client.close();
  });

  it('cuts the connection of a disconnected call: the call fails, the session carries on', async () => {
    const { client } = await connect(['disconnect@tools/call:echo#1']);
    const failure = await failureOf(client.callTool(echo, undefined, { timeout: 2000 }));
    expect(failure).toBeInstanceOf(Error);
    expect(failure?.message).not.toMatch(/timed out/i);
    expect(await client.callTool(sum)).toMatchObject({ content: [{ text: 'The sum of 1 and 2 is 3.' }] });
    await client.close();
  });

  it('trickles a slow-stream answer', async () => {
    const { client } = await connect(['slow-stream=500/s@tools/call:get-sum']);
    const started = Date.now();
    expect(await client.callTool(sum)).toMatchObject({ content: [{ text: 'The sum of 1 and 2 is 3.' }] });
    // The event frame is over 100 bytes: more than a fifth of a second at 500 B/s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    await client.close();
  });
});

describe('serveHttp --sse with faults, to the SDK legacy SSE client', () => {
  it('sends the injected error down the session stream, and a disconnect cuts that stream', async () => {
    server = await serveHttp(await fixtureCassette(EVERYTHING), {
      port: 0,
      transport: 'sse',
      faults: ['error=-32003@tools/call:echo', 'disconnect@tools/call:get-sum'],
    });
    const client = new Client({ name: 'faults', version: '1.0.0' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(new SSEClientTransport(new URL(server.url)));
    expect(await failureOf(client.callTool(echo))).toMatchObject({ code: -32003 });
    // The client hears its stream end; the call it was waiting on is never answered.
    const cut = await failureOf(client.callTool(sum, undefined, { timeout: 500 }));
    expect(cut?.message).toMatch(/timed out/i);
    expect(errors.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/SSE error: .*(terminated|closed)/),
    );
    await client.close();
  });
});

describe('serveHttp with faults, to a client that takes JSON only', () => {
  const headers = (session?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json',
    ...(session ? { 'mcp-session-id': session } : {}),
  });
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const call = (id: number, params: object) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });

  it('cuts the JSON body of a malformed answer, and trickles a slow one', async () => {
    server = await serveHttp(await fixtureCassette(EVERYTHING), {
      port: 0,
      faults: ['malformed@tools/call:echo', 'slow-stream=1kb/s@tools/call:get-sum'],
      repeat: 'last',
    });
    const opened = await rawRequest(server.url, { method: 'POST', headers: headers(), body: init });
    const session = opened.headers['mcp-session-id'] as string;
    const cut = await rawRequest(server.url, {
      method: 'POST',
      headers: headers(session),
      body: call(1, echo),
    });
    expect(cut.status).toBe(200);
    expect(cut.body.startsWith('{"jsonrpc":"2.0","id":1,')).toBe(true);
    expect(() => JSON.parse(cut.body)).toThrow(SyntaxError);
    const started = Date.now();
    const slow = await rawRequest(server.url, {
      method: 'POST',
      headers: headers(session),
      body: call(2, sum),
    });
    expect(JSON.parse(slow.body)).toMatchObject({
      id: 2,
      result: { content: [{ text: 'The sum of 1 and 2 is 3.' }] },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(((slow.body.length - 50) / 1000) * 1000);
  });
});
