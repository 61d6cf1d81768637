import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/peers.js';

/** Trace files for the viewer tests: the interop fixtures as they are, and a small rotated tapedeck trace. */

export const MCP_TAPE = join(REPO_ROOT, 'test', 'fixtures', 'interop', 'mcp-tape', 'everything-stdio.jsonl');
export const MCPORTER = join(
  REPO_ROOT,
  'test',
  'fixtures',
  'interop',
  'mcporter',
  'everything-get-sum.ndjson',
);

/**
 * How many timeline rows a JSONL trace gives: every line but the meta lines, a batch counting once per item, and
 * for an mcporter file the end line its import adds.
 *
 * @example expectedRows(readFileSync(MCP_TAPE, 'utf8')) // → 78
 */
export function expectedRows(text: string, format: 'native' | 'mcporter' = 'native'): number {
  // An mcporter file has no end line; the import adds one.
  let rows = format === 'mcporter' ? 1 : 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const value = JSON.parse(line) as { type?: string; raw?: unknown };
    if (value.type === 'meta') continue;
    rows += Array.isArray(value.raw) ? value.raw.length : 1;
  }
  return rows;
}

const PRODUCER = { name: 'tapedeck', version: '0.1.0' };
const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function meta(segment: number) {
  return {
    v: 1,
    type: 'meta',
    startedAt: at(0),
    label: 'calc',
    kind: 'mcp',
    producer: PRODUCER,
    traceId: 'trace-viewer-test',
    segment,
    transport: 'stdio',
    command: ['node', 'calc-server.mjs'],
  };
}

const jsonl = (lines: readonly object[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

/**
 * A tapedeck trace rotated into two segments (`calc.1.jsonl` then `calc.jsonl`): a handshake, a stderr line, two
 * tool calls (one with progress), a failing call, a banner text line, an end line. Returns the files and how many
 * rows the stitched trace has.
 */
export function writeRotatedTrace(dir: string): { files: string[]; rows: number } {
  const first = [
    meta(0),
    {
      t: at(1),
      seq: 1,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'viewer-test', version: '1.0.0' },
        },
      },
    },
    { t: at(2), seq: 2, type: 'stderr', text: 'calc-server listening on stdio' },
    {
      t: at(9),
      seq: 3,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'calc', version: '2.1.0' },
        },
      },
    },
  ];
  const second = [
    meta(1),
    {
      t: at(20),
      seq: 4,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 40, b: 2 }, _meta: { progressToken: 7 } },
      },
    },
    {
      t: at(25),
      seq: 5,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 7, progress: 1, total: 2 },
      },
    },
    {
      t: at(31),
      seq: 6,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'forty-two' }] } },
    },
    {
      t: at(40),
      seq: 7,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'divide', arguments: { a: 1, b: 0 } },
      },
    },
    {
      t: at(44),
      seq: 8,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'division by zero' } },
    },
    { t: at(50), seq: 9, type: 'text', dir: 'out', text: 'calc: goodbye' },
    {
      t: at(60),
      type: 'end',
      durationMs: 60,
      exitCode: 0,
      reason: 'process_exit',
      counts: { in: 2, out: 4, stderr: 1, text: 1 },
    },
  ];
  const files = [join(dir, 'calc.1.jsonl'), join(dir, 'calc.jsonl')];
  writeFileSync(files[0]!, jsonl(first));
  writeFileSync(files[1]!, jsonl(second));
  return { files, rows: first.length - 1 + second.length - 1 };
}

/** The mcp-tape fixture with one argument of get-sum changed (b: 2 → 5) and its answer to match. */
export function writeChangedCopy(path: string): void {
  const text = readFileSync(MCP_TAPE, 'utf8')
    .replace('"arguments":{"a":1,"b":2}', '"arguments":{"a":1,"b":5}')
    .replace('The sum of 1 and 2 is 3.', 'The sum of 1 and 5 is 6.');
  writeFileSync(path, text);
}
