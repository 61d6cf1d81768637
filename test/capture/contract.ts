/**
 * The capture-point contract, as one suite every capture point runs (test/capture/contract.test.ts): the same
 * scripted exchange — a handshake, a call with progress, a server→client request and the client's answer, a
 * log notification, the call's result — crosses each capture point, and each must record the same message lines:
 * every message once, with its direction and payload as sent, stamped, in the order it crossed.
 */
import { describe, expect, it } from 'vitest';
import { MemorySink } from '../../src/sink/memory.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import { newMeta } from '../../src/trace/meta.js';
import type { Direction, MessageLine } from '../../src/trace/types.js';

/** One message of the exchange: `in` went client→server, `out` server→client. */
export type Step = readonly [Direction, JsonObject];

/** The scripted exchange every capture point is fed. */
export const EXCHANGE: readonly Step[] = [
  [
    'in',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { sampling: {} },
        clientInfo: { name: 'scripted', version: '1.0.0' },
      },
    },
  ],
  [
    'out',
    {
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 's', version: '1' },
      },
    },
  ],
  ['in', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  [
    'in',
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'summarize', arguments: { text: 'héllo ✓' }, _meta: { progressToken: 'p-2' } },
    },
  ],
  [
    'out',
    {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p-2', progress: 1, total: 2 },
    },
  ],
  [
    'out',
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'summarize héllo ✓' } }],
        maxTokens: 20,
      },
    },
  ],
  [
    'in',
    {
      jsonrpc: '2.0',
      id: 0,
      result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'a greeting' } },
    },
  ],
  ['out', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'sampled' } }],
  [
    'out',
    {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p-2', progress: 2, total: 2 },
    },
  ],
  ['out', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'a greeting' }] } }],
];

/** Feeds `exchange`, in order, through the capture point into `sink` (started); resolves once all crossed. */
export type CapturePoint = (exchange: readonly Step[], sink: MemorySink) => Promise<void>;

/**
 * Runs the capture-point contract against `feed`.
 *
 * @example captureContract('PipeCapture', async (exchange, sink) => { … });
 */
export function captureContract(name: string, feed: CapturePoint): void {
  describe(`${name} keeps the capture-point contract`, () => {
    async function captured(): Promise<MessageLine[]> {
      const sink = new MemorySink();
      sink.start(newMeta({ label: 'capture', transport: 'stdio' }));
      await feed(EXCHANGE, sink);
      return sink.lines.filter((line): line is MessageLine => line.type === undefined && 'raw' in line);
    }

    it('records every message once, with its direction and payload as sent, in the order it crossed', async () => {
      const lines = await captured();
      expect(lines.map((line) => [line.dir, line.raw])).toEqual(
        EXCHANGE.map(([dir, message]) => [dir, message]),
      );
    });

    it('stamps every message with the time it crossed, in order, and numbers it in sequence', async () => {
      const before = Date.now();
      const lines = await captured();
      const times = lines.map((line) => Date.parse(line.t));
      expect(times.every((ms) => Number.isFinite(ms) && ms >= before - 1000 && ms <= Date.now() + 1000)).toBe(
        true,
      );
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const seqs = lines.map((line) => line.seq ?? 0);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    });

    it('keeps a server→client request and the client’s answer apart from the client’s own ids', async () => {
      const lines = await captured();
      const ids = lines.map((line) => [line.dir, (line.raw as { id?: unknown }).id ?? null]);
      // Id 0 goes out as a server request and comes back in as the client's answer; the client's ids 1 and 2 go in
      // as requests and come back out as responses.
      expect(ids.filter(([, id]) => id !== null)).toEqual([
        ['in', 1],
        ['out', 1],
        ['in', 2],
        ['out', 0],
        ['in', 0],
        ['out', 2],
      ]);
    });
  });
}
