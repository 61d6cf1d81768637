/**
 * replayTransport in-process, with the official SDK's Client: no processes, no ports.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../../src/base/errors.js';
import { REPLAY_ERROR_CODES } from '../../../src/replay/engine/codes.js';
import { replayTransport } from '../../../src/replay/sdk/replay-transport.js';
import { makeClient } from '../../helpers/sdk-session.js';
import { fixtureCassette, INTEROP } from '../helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';

describe('replayTransport', () => {
  it('is a Transport the SDK Client connects to; the cassette answers, progress and sampling included', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const transport = replayTransport(cassette);
    const sdkView: Transport = transport;
    expect(sdkView.sessionId).toBeUndefined();
    const { client, sampled } = makeClient('7.0.0');
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    const progress: number[] = [];
    const long = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    const sampling = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hi', maxTokens: 20 },
    });
    // In-process every message arrives on its own turn, so the SDK sees all progress, the last one included.
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(long.content).toEqual([
      { type: 'text', text: 'Long running operation completed. Duration: 2 seconds, Steps: 4.' },
    ]);
    expect(sampled).toEqual(['Resource trigger-sampling-request context: hi']);
    expect(JSON.stringify(sampling)).toContain('canned sampling reply');
    await transport.idle();
    const report = transport.report();
    expect(report.used).toBe(3);
    expect(report.unused.map((u) => u.method)).toContain('tools/list');
    // The client declares sampling and no roots: the recorded roots/list is not asked of it.
    expect(report.answers.map((a) => a.method)).toEqual(['sampling/createMessage']);
    await client.close();
  });

  it('answers a request it has no recording of with an error naming the closest one', async () => {
    const { client } = makeClient();
    await client.connect(replayTransport(await fixtureCassette(EVERYTHING)));
    const failure = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 9 } }).catch((e) => e);
    expect(failure).toMatchObject({ code: REPLAY_ERROR_CODES.miss });
    expect(String(failure.message)).toContain(
      'no recorded answer for tools/call get-sum {"a":1,"b":9}; closest: tools/call get-sum {"a":1,"b":2}',
    );
    await client.close();
  });

  it('reads a cassette path when the client connects', async () => {
    const transport = replayTransport(`${INTEROP}mcporter/everything-get-sum.ndjson`, {
      server: 'everything',
    });
    expect(() => transport.report()).toThrow(TapedeckError);
    const { client } = makeClient();
    await client.connect(transport);
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
    expect(transport.report().summary).toMatch(/^used 2 of 3 recorded exchanges; unused: #1 tools\/list/);
    await client.close();
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(/closed/);
  });

  it('answers a request after send returns, and lets timers run between answers to calls made one after another', async () => {
    const transport = replayTransport(`${INTEROP}mcporter/everything-get-sum.ndjson`, {
      server: 'everything',
      repeat: 'last',
    });
    const { client } = makeClient();
    await client.connect(transport);
    const delivered: unknown[] = [];
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      delivered.push(message);
      onmessage?.(message, extra);
    };
    const sent = transport.send({ jsonrpc: '2.0', id: 9001, method: 'ping' });
    expect(delivered).toEqual([]);
    await sent;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    for (let i = 0; i < 300; i += 1) {
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
    }
    clearInterval(timer);
    expect(delivered[0]).toMatchObject({ jsonrpc: '2.0', id: 9001 });
    expect(ticks).toBeGreaterThan(0);
    await client.close();
  });

  it('fails connect with one clear line when the cassette does not exist', async () => {
    const { client } = makeClient();
    await expect(client.connect(replayTransport('/nonexistent/cassette.jsonl'))).rejects.toThrow(
      'no such cassette: /nonexistent/cassette.jsonl',
    );
  });
});
