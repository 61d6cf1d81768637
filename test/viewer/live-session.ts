import { join } from 'node:path';
import { type Collector, startCollector } from '../../src/collector/index.js';

/** A collector and the session lines a recorder sends it, for the tests of the viewer on the collector. */

/**
 * A session as a recorder streams it, line by line: its meta line, `add` tool calls and their answers (one message
 * per seq: the request on odd seqs, its answer on the next), and an end line. Times count from `startedAt`.
 *
 * @example const s = liveSession('2026-11-29T12:00:00.000Z', 'live-calc'); jsonl([s.meta, ...s.calls(1, 4), s.end(200)]);
 */
export function liveSession(startedAt: string, label: string) {
  const t0 = Date.parse(startedAt);
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  return {
    meta: { v: 1, type: 'meta', startedAt: at(0), label, kind: 'mcp', transport: 'stdio' },
    /** Lines `from`..`to`, one every 10 ms: a request on each odd seq, its answer on the even one after it. */
    calls(from: number, to: number): object[] {
      const lines: object[] = [];
      for (let seq = from; seq <= to; seq++) {
        const id = Math.ceil(seq / 2);
        const raw =
          seq % 2 === 1
            ? {
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'add', arguments: { a: id, b: 1 } },
              }
            : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(id + 1) }] } };
        lines.push({ t: at(seq * 10), seq, dir: seq % 2 === 1 ? 'in' : 'out', raw });
      }
      return lines;
    },
    /** The end line of a session that lasted `ms`. */
    end: (ms: number) => ({ t: at(ms), type: 'end', durationMs: ms, reason: 'process_exit' }),
  };
}

/**
 * A collector in `dir` for a test: `token` guards its API, `port` 0 picks a free one (pass the old port to start it
 * again where a page expects it), heartbeats every second so a page notices it going away quickly.
 *
 * @example const collector = await startTestCollector(dir, 'ab'.repeat(32));
 */
export function startTestCollector(dir: string, token: string, port = 0): Promise<Collector> {
  return startCollector({ dbPath: join(dir, 'db', 'tapedeck.db'), token, port, live: { heartbeatMs: 1000 } });
}
