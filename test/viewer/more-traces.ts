import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STDIO_SESSION } from './view-page.js';

/** Trace files the viewer's debugging features are tried on, written into a test's temporary folder. */

const T0 = Date.parse('2026-11-30T09:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const jsonl = (lines: readonly object[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

/** The latencies of `flaky`'s calls: 995 fast ones, then five slow ones, the slowest last. */
export const FLAKY_SLOW = [48, 55, 61, 70, 84];

/**
 * A trace with many calls: `flaky` 1000 times (one failure, 2–4 ms but for five slow calls up to 84 ms) and
 * `broken` twice (both failing). Returns its path.
 */
export function writeManyCalls(dir: string): string {
  const lines: object[] = [
    { v: 1, type: 'meta', startedAt: at(0), label: 'many', kind: 'mcp', transport: 'stdio' },
  ];
  let seq = 0;
  let t = 0;
  const call = (id: number, name: string, latency: number, fails: boolean) => {
    t += 10;
    lines.push({
      t: at(t),
      seq: ++seq,
      dir: 'in',
      raw: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { n: id } } },
    });
    lines.push({
      t: at(t + latency),
      seq: ++seq,
      dir: 'out',
      raw: fails
        ? { jsonrpc: '2.0', id, error: { code: -32000, message: `${name} failed on call ${id}` } }
        : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `ok ${id}` }] } },
    });
  };
  for (let i = 1; i <= 995; i++) call(i, 'flaky', 2 + (i % 3), i === 500);
  FLAKY_SLOW.forEach((latency, i) => {
    call(996 + i, 'flaky', latency, false);
  });
  call(1001, 'broken', 5, true);
  call(1002, 'broken', 6, true);
  const path = join(dir, 'many.jsonl');
  writeFileSync(path, jsonl(lines));
  return path;
}

/**
 * The stdio session with one character changed in the middle of its longest echo message (and its echo back):
 * two long values that differ only 300 characters in. Returns its path.
 */
export function writeLongChange(dir: string): string {
  const long = 'x'.repeat(580);
  const text = readFileSync(STDIO_SESSION, 'utf8').replaceAll(
    long,
    `${'x'.repeat(300)}CHANGED${'x'.repeat(273)}`,
  );
  const path = join(dir, 'everything-changed.jsonl');
  writeFileSync(path, text);
  return path;
}

/** A file that is not a trace. */
export function writeNotATrace(dir: string): string {
  const path = join(dir, 'notes.md');
  writeFileSync(path, '# Notes\n\nNot a trace at all.\n');
  return path;
}

/**
 * A trace of `calls` tool calls (`tool_0` … `tool_6` in turn), one every 10 ms, each answered 3–19 ms later; with
 * `failEvery`, the result of every call whose id it divides is an error (`isError`). Written to `path`, returned.
 */
export function writeSteadyCalls(path: string, calls: number, failEvery?: number): string {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const time = (ms: number) => new Date(t0 + ms).toISOString();
  const lines: object[] = [
    { v: 1, type: 'meta', startedAt: time(0), label: 'many', kind: 'mcp', transport: 'stdio' },
  ];
  for (let id = 1; id <= calls; id++) {
    const request = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `tool_${id % 7}`, arguments: { n: id } },
    };
    const content = [{ type: 'text', text: `answer ${id}` }];
    const result = failEvery === undefined ? { content } : { content, isError: id % failEvery === 0 };
    lines.push(
      { t: time(id * 10), seq: id * 2 - 1, dir: 'in', raw: request },
      { t: time(id * 10 + 3 + (id % 17)), seq: id * 2, dir: 'out', raw: { jsonrpc: '2.0', id, result } },
    );
  }
  writeFileSync(path, jsonl(lines));
  return path;
}

/**
 * A trace of `messages` messages (a request and its answer per call, `tool_0` … `tool_11` in turn, one call every
 * 20 ms, answered 3–19 ms later), written in the recorded format as fast as a test can: a line is about 150
 * bytes, so a million messages take about 150 MB and a couple of seconds. Every `failEvery`th call (by id) fails
 * with a JSON-RPC error. Resolves to the path.
 */
export async function writeBigTrace(path: string, messages: number, failEvery: number): Promise<string> {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const out = createWriteStream(path, { mode: 0o600 });
  const time = (ms: number) => new Date(t0 + ms).toISOString();
  out.write(
    `${JSON.stringify({ v: 1, type: 'meta', startedAt: time(0), label: 'big', kind: 'mcp', transport: 'stdio' })}\n`,
  );
  let chunk = '';
  for (let id = 1; id <= messages / 2; id++) {
    const answer =
      id % failEvery === 0
        ? `"error":{"code":-32603,"message":"lookup ${id} failed"}`
        : `"result":{"content":[{"type":"text","text":"answer ${id}"}]}`;
    chunk +=
      `{"t":"${time(id * 20)}","seq":${id * 2 - 1},"dir":"in","raw":{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"tool_${id % 12}","arguments":{"n":${id}}}}}\n` +
      `{"t":"${time(id * 20 + 3 + (id % 17))}","seq":${id * 2},"dir":"out","raw":{"jsonrpc":"2.0","id":${id},${answer}}}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return path;
}
