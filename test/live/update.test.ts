/**
 * `run --mode update` in process: serveUpdate over a pair of streams, the live server a real SDK server whose
 * "process" runs in this one (in-process-servers.ts), its waits on a hand-moved clock.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveUpdate, type UpdateOptions } from '../../src/live/update.js';
import { buildCassette } from '../../src/replay/cassette/cassette.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import { flush, ManualClock } from '../helpers/clock.js';
import { call, note, req, res, traceLines } from '../replay/helpers.js';
import { inProcessStdio } from './in-process-servers.js';

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: { sampling: {} },
  clientInfo: { name: 'update-test', version: '1.0.0' },
};

/** A cassette holding the handshake and tools/list only: every call is a miss. */
const cassette = () =>
  buildCassette(
    traceLines([
      ['in', req(0, 'initialize', INIT)],
      [
        'out',
        res(0, {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'rec', version: '1' },
        }),
      ],
      ['in', note('notifications/initialized')],
      ['in', req(1, 'tools/list')],
      ['out', res(1, { tools: [{ name: 'recorded-only', inputSchema: { type: 'object' } }] })],
    ]),
  );

/** serveUpdate with a client that writes lines in and collects what comes out. */
async function update(options: Partial<UpdateOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: JsonObject[] = [];
  let buffer = '';
  output.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      received.push(JSON.parse(buffer.slice(0, nl)) as JsonObject);
      buffer = buffer.slice(nl + 1);
    }
  });
  const live = inProcessStdio();
  const session = serveUpdate(await cassette(), { input, output, ...live, drainMs: 1000, ...options });
  const send = (message: JsonObject) => input.write(`${JSON.stringify(message)}\n`);
  /** Waits (in turns, not time) until a message with `id` came back. */
  const answer = async (id: number | string): Promise<JsonObject> => {
    for (let turn = 0; turn < 500; turn += 1) {
      const found = received.find((m) => m.id === id && ('result' in m || 'error' in m));
      if (found) return found;
      await flush(2);
    }
    throw new Error(`no answer to ${id}`);
  };
  const handshake = async () => {
    send(req(10, 'initialize', INIT));
    await answer(10);
    send(note('notifications/initialized'));
  };
  return { session, send, answer, received, input, live, handshake };
}

describe('run --mode update', () => {
  it('serves what the cassette holds, brings the live server up on the first miss, and keeps what it answered', async () => {
    const u = await update();
    await u.handshake();
    u.send(req(11, 'tools/list'));
    expect((await u.answer(11)).result).toEqual({
      tools: [{ name: 'recorded-only', inputSchema: { type: 'object' } }],
    });
    expect(u.live.started()).toBe(0);
    u.send(req(12, 'tools/call', call('echo', { message: 'new' })));
    expect(await u.answer(12)).toEqual({
      jsonrpc: '2.0',
      id: 12,
      result: { content: [{ type: 'text', text: 'echo: new' }] },
    });
    expect(u.live.started()).toBe(1);
    u.input.end();
    const outcome = await u.session.done;
    expect(outcome).toMatchObject({ forwarded: 1, failed: 0, liveExit: { code: 0, signal: null } });
    expect(outcome.lines.map((line) => [line.dir, line.raw])).toEqual([
      ['in', req(12, 'tools/call', call('echo', { message: 'new' }))],
      ['out', { jsonrpc: '2.0', id: 12, result: { content: [{ type: 'text', text: 'echo: new' }] } }],
    ]);
  });

  it('notes in the new lines that the client asked for another protocol version, and only when lines are added', async () => {
    const u = await update();
    u.send(req(10, 'initialize', { ...INIT, protocolVersion: '2024-11-05' }));
    expect(((await u.answer(10)).result as JsonObject).protocolVersion).toBe('2024-11-05');
    u.send(note('notifications/initialized'));
    u.send(req(12, 'tools/call', call('echo', { message: 'new' })));
    await u.answer(12);
    u.input.end();
    const { lines } = await u.session.done;
    expect(lines.map((line) => line.type ?? line.dir)).toEqual(['event', 'in', 'out']);
    expect(lines[0]).toMatchObject({
      type: 'event',
      name: 'version_negotiated',
      via: 'initialize',
      recorded: '2025-06-18',
      asked: '2024-11-05',
      answered: '2024-11-05',
    });
    const quiet = await update();
    quiet.send(req(10, 'initialize', { ...INIT, protocolVersion: '2024-11-05' }));
    await quiet.answer(10);
    quiet.input.end();
    expect((await quiet.session.done).lines).toEqual([]);
  });

  it('gives a forwarded request up at exactly requestTimeoutMs, and keeps nothing of it', async () => {
    const clock = new ManualClock();
    const u = await update({ scheduler: clock, requestTimeoutMs: 1000 });
    await u.handshake();
    u.send(req(12, 'tools/call', call('hang')));
    for (
      let turn = 0;
      turn < 500 && !clock.pending().some((t) => t.ms === 1000 && t.dueIn === 1000);
      turn += 1
    )
      await flush(2);
    // The live server's own handshake was answered; only the hang waits.
    expect(clock.pending().filter((t) => t.ms === 1000)).toEqual([{ ms: 1000, dueIn: 1000, unref: false }]);
    await clock.advance(999);
    expect(u.received.some((m) => m.id === 12)).toBe(false);
    await clock.advance(1);
    const answered = await u.answer(12);
    expect((answered.error as { message: string }).message).toMatch(
      /^no recorded answer for tools\/call hang; closest: .*; the live server did not answer within 1000 ms$/,
    );
    u.input.end();
    const done = u.session.done;
    await clock.advance(0);
    const outcome = await done;
    expect(outcome).toMatchObject({ forwarded: 0, failed: 1, lines: [] });
  });

  it('relays the server’s question to the client and its answer back; one left unanswered ends at answerTimeoutMs', async () => {
    const clock = new ManualClock();
    const u = await update({ scheduler: clock, answerTimeoutMs: 5000 });
    await u.handshake();
    u.send(req(12, 'tools/call', call('ask', { question: 'why?' })));
    for (
      let turn = 0;
      turn < 500 && !u.received.some((m) => m.method === 'sampling/createMessage');
      turn += 1
    )
      await flush(2);
    const asked = u.received.find((m) => m.method === 'sampling/createMessage')!;
    expect(asked.id).toBe('tapedeck-live-0');
    u.send({
      jsonrpc: '2.0',
      id: asked.id!,
      result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'because' } },
    });
    expect(((await u.answer(12)).result as { content: { text: string }[] }).content[0]?.text).toBe(
      'the model said: {"type":"text","text":"because"}',
    );
    // Asked again, and this time the client says nothing.
    u.send(req(13, 'tools/call', call('ask', { question: 'really?' })));
    for (
      let turn = 0;
      turn < 500 && u.received.filter((m) => m.method === 'sampling/createMessage').length < 2;
      turn += 1
    )
      await flush(2);
    await clock.advance(4999);
    expect(u.received.some((m) => m.id === 13)).toBe(false);
    await clock.advance(1);
    expect(JSON.stringify(await u.answer(13))).toContain(
      'the client did not answer sampling/createMessage within 5000 ms',
    );
    u.input.end();
    const done = u.session.done;
    await clock.advance(0);
    const outcome = await done;
    expect(outcome.forwarded).toBe(2);
    expect(
      outcome.lines.map((line) => [line.dir, (line.raw as JsonObject).method ?? (line.raw as JsonObject).id]),
    ).toEqual([
      ['in', 'tools/call'],
      ['out', 'sampling/createMessage'],
      ['in', 'tapedeck-live-0'],
      ['out', 12],
      ['in', 'tools/call'],
      ['out', 'sampling/createMessage'],
      ['out', 13],
    ]);
  });
});
