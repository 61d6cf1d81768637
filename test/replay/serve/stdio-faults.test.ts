/**
 * Faults on the stdio replay server, at the byte level: what the client reads for the named requests, and that
 * every other line is byte for byte what a run without faults writes.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Cassette } from '../../../src/replay/cassette/types.js';
import { type ServeStdioOptions, serveStdio } from '../../../src/replay/serve/stdio.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import { call, fixtureCassette, req, settle } from '../helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';

/** The session's requests: init, a list, two tool calls. */
const SESSION = [
  req(0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  }),
  req(1, 'tools/list'),
  req(2, 'tools/call', call('echo', { message: 'hello' })),
  req(3, 'tools/call', call('get-sum', { a: 1, b: 2 })),
];

/** Serves the session's requests one after the other; resolves with the raw output lines and when each came. */
async function run(cassette: Cassette, options: Partial<ServeStdioOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  const chunks: { at: number; bytes: number }[] = [];
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    chunks.push({ at: Date.now(), bytes: chunk.length });
  });
  const server = serveStdio(cassette, { input, output, seed: 5, ...options });
  for (const message of SESSION) {
    input.write(`${JSON.stringify(message)}\n`);
    await settle(30);
  }
  input.end();
  const outcome = await server.done;
  return { lines: text.split('\n').filter((line) => line !== ''), outcome, chunks };
}

/** Every line but those about the echo call (id 2): its answer, or what a fault made of it. */
const notEcho = (lines: string[]) => lines.filter((line) => !line.startsWith('{"jsonrpc":"2.0","id":2,'));

describe('serveStdio with faults', () => {
  it('writes every other answer byte for byte as a run without faults does', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const plain = await run(cassette);
    for (const fault of [
      'error=-32001',
      'drop',
      'duplicate',
      'malformed',
      'slow-stream=2kb/s',
      'latency=40',
    ]) {
      const faulted = await run(cassette, { faults: [`${fault}@tools/call:echo`] });
      expect(notEcho(faulted.lines), fault).toEqual(notEcho(plain.lines));
      expect(notEcho(plain.lines)).toHaveLength(3);
      expect(
        faulted.outcome.report.faults.map((f) => f.kind),
        fault,
      ).toEqual([fault.split('=')[0]]);
    }
  });

  it('writes a line that is not JSON for malformed, the answer twice for duplicate, nothing for drop', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const plain = await run(cassette);
    const answer = plain.lines.find((line) => line.startsWith('{"jsonrpc":"2.0","id":2'))!;
    expect(answer).toContain('Echo: hello');

    const malformed = await run(cassette, { faults: ['malformed@tools/call:echo'] });
    const cut = malformed.lines.find((line) => answer.startsWith(line) && line !== answer)!;
    expect(cut.length).toBe(Math.floor(answer.length / 2));
    expect(() => JSON.parse(cut)).toThrow(SyntaxError);

    const duplicate = await run(cassette, { faults: ['duplicate@tools/call:echo'] });
    expect(duplicate.lines.filter((line) => line === answer)).toHaveLength(2);

    const dropped = await run(cassette, { faults: ['drop@tools/call:echo'] });
    expect(dropped.lines.filter((line) => line.startsWith('{"jsonrpc":"2.0","id":2'))).toEqual([]);
    expect(dropped.outcome.report.used).toBe(plain.outcome.report.used);

    const failed = await run(cassette, { faults: ['error=-32001@tools/call:echo'] });
    const error = JSON.parse(
      failed.lines.find((line) => line.startsWith('{"jsonrpc":"2.0","id":2'))!,
    ) as JsonObject;
    expect(error).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32001,
        message: 'Injected fault: error -32001 (tapedeck --fault error=-32001@tools/call:echo)',
      },
    });
  });

  it('trickles a slow-stream answer in pieces at the given rate', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const { chunks, lines } = await run(cassette, { faults: ['slow-stream=400/s@tools/call:get-sum'] });
    const answer = lines.find((line) => line.startsWith('{"jsonrpc":"2.0","id":3'))!;
    const pieces = chunks.slice(-Math.ceil((answer.length + 1) / 20));
    // 400 B/s in pieces every 50 ms: 20 bytes a piece.
    expect(pieces.every((piece) => piece.bytes <= 20)).toBe(true);
    const took = pieces.at(-1)!.at - pieces[0]!.at;
    expect(took).toBeGreaterThanOrEqual(((answer.length + 1 - 20) / 400) * 1000 - 60);
  });

  it('ends the session on disconnect once the named request arrives', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const { lines, outcome } = await run(cassette, { faults: ['disconnect@tools/call:echo'] });
    expect(outcome.ended).toBe('disconnected');
    expect(lines.map((line) => (JSON.parse(line) as JsonObject).id)).toEqual([0, 1]);
    expect(outcome.report.faults).toMatchObject([{ kind: 'disconnect', id: 2, target: 'echo' }]);
  });

  it('disconnects at a moment with a timed fault', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const { outcome, lines } = await run(cassette, { faults: [{ after: '45ms', kind: 'disconnect' }] });
    expect(outcome.ended).toBe('disconnected');
    expect(lines.length).toBeLessThan(4);
    expect(outcome.report.faults).toMatchObject([{ kind: 'disconnect', fault: 'disconnect after 45ms' }]);
  });
});
