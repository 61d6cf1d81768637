/**
 * The terminal renderers at 80 and 160 columns with wide characters (CJK, emoji with ZWJ sequences and variation
 * selectors): no line is longer than the width, and an error's message is always there in full.
 */
import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../src/report/text/color.js';
import { renderDiff } from '../../../src/report/text/diff-report.js';
import { renderStats } from '../../../src/report/text/stats-report.js';
import { renderTimeline } from '../../../src/report/text/timeline.js';
import { alignTraces } from '../../../src/trace/align.js';
import { pairTrace } from '../../../src/trace/pairing.js';
import { computeStats } from '../../../src/trace/stats.js';
import { displayWidth } from '../../../src/trace/text-width.js';
import type { Json, TraceLine } from '../../../src/trace/types.js';

const FAMILY = '👨‍👩‍👧‍👦';
const HEART = '❤️';
const LONG_URI = 'demo://resource/static/document/a-rather-long-document-name-in-a-deep-folder.md';
const READ_ERROR = `MCP error -32602: Resource ${LONG_URI} not found`;
const TOOL_ERROR =
  'データベースに接続できませんでした：接続がタイムアウトしました (after 30000 ms, 3 retries) 🔥';
const UNKNOWN_TOOL = 'MCP error -32602: Tool translate-the-whole-document-into-japanese not found';

function session(answer: string): TraceLine[] {
  let seq = 0;
  const msg = (dir: 'in' | 'out', raw: Json): TraceLine => {
    seq += 1;
    return { t: new Date(Date.parse('2026-05-01T00:00:00.000Z') + 7 * seq).toISOString(), seq, dir, raw };
  };
  const call = (id: number, name: string, args: Json): Json => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const text = (id: number, value: string, isError = false): Json => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) },
  });
  return [
    {
      v: 1,
      type: 'meta',
      startedAt: '2026-05-01T00:00:00.000Z',
      label: `家族 ${FAMILY}`,
      transport: 'stdio',
    },
    msg('in', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } }),
    msg('out', {
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'wide' } },
    }),
    msg('in', { jsonrpc: '2.0', method: 'notifications/initialized' }),
    msg(
      'in',
      call(1, 'echo', { message: `日本語のメッセージ ${FAMILY} ${HEART} と絵文字 🎉🎉🎉 がたくさん` }),
    ),
    msg('out', { jsonrpc: '2.0', id: 0, method: 'roots/list' }),
    msg('in', { jsonrpc: '2.0', id: 0, result: { roots: [] } }),
    msg('out', text(1, answer)),
    msg('in', { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: LONG_URI } }),
    msg('out', { jsonrpc: '2.0', id: 2, error: { code: -32602, message: READ_ERROR } }),
    msg('in', call(3, '翻訳ツール', { text: '長い長い長い長い長い長い長い長い文章' })),
    msg('out', text(3, TOOL_ERROR, true)),
    msg('in', call(4, 'translate-the-whole-document-into-japanese', {})),
    msg('out', text(4, UNKNOWN_TOOL, true)),
  ];
}

/** Every line at most `width` columns. */
function fits(output: string, width: number): void {
  for (const line of stripAnsi(output).split('\n'))
    expect(displayWidth(line), `"${line}" is ${displayWidth(line)} columns`).toBeLessThanOrEqual(width);
}

/** Text without its white space: what a wrapped message still says, wherever its lines broke. */
function flat(output: string): string {
  return stripAnsi(output).replace(/\s+/g, '');
}

describe.each([80, 160])('at %i columns', (width) => {
  const answer = `${FAMILY}${HEART} 日本語の答え `.repeat(6);
  const trace = session(answer);

  it('show fits every row and prints every error message in full', () => {
    for (const color of [false, true]) {
      const out = renderTimeline(pairTrace(trace), { color, width });
      fits(out, width);
      const text = flat(out);
      expect(text).toContain(flat(`error -32602 ${READ_ERROR}`));
      expect(text).toContain(flat(`tool error: ${TOOL_ERROR}`));
      expect(text).toContain(flat(`tool error: ${UNKNOWN_TOOL}`));
      // The request that failed is named on its row, however narrow.
      expect(stripAnsi(out)).toMatch(/← resources\/read demo:\/\/resource\/\S* #2 ✗ \d+ms/);
      // A roots/list only guessed into the call is not indented under it, and says so.
      expect(stripAnsi(out)).toMatch(/^ {2}\+\d\.\d{3}s {2}← roots\/list #0 maybe for #1$/m);
    }
  });

  it('show cuts only previews, never a wide character in half', () => {
    const out = renderTimeline(pairTrace(trace), { color: false, width });
    const row = out.split('\n').find((line) => line.includes('← tools/call echo #1'))!;
    expect(row).toMatch(/✓ \d+ms {2,}/);
    if (width === 80) expect(row.endsWith('…')).toBe(true);
    // No lone surrogate, and no emoji sequence broken apart.
    expect(row).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(row.includes('\u200d') ? row.includes(FAMILY) : true).toBe(true);
  });

  it('stats fits its tables, wrapping names rather than cutting them', async () => {
    const out = renderStats(await computeStats(trace), { color: false, width });
    fits(out, width);
    const lines = out.split('\n');
    const at = lines.findIndex((line) => line.includes('translate-the-whole-document-'));
    // A name too long for its column goes on under itself, its figures on its first line.
    const name = lines[at]!.match(/^ {2}(\S+)/)![1]! + (lines[at + 1]!.match(/^ {2}(\S+)$/)?.[1] ?? '');
    expect(name).toBe('translate-the-whole-document-into-japanese');
    expect(lines[at]).toMatch(/ 1 +1 +0 +7ms +7ms +7ms$/);
    expect(out).toContain('翻訳ツール');
  });

  it('diff fits and shows where two long wide values differ', () => {
    const other = session(`${answer}おわり`);
    const alignment = alignTraces(trace, other, { diff: { maxValueLength: Number.MAX_SAFE_INTEGER } });
    const sides = [
      { path: 'a.jsonl', format: 'tapedeck', label: 'a', startedAt: undefined, lineOf: () => undefined },
      { path: 'b.jsonl', format: 'tapedeck', label: 'b', startedAt: undefined, lineOf: () => undefined },
    ] as const;
    const out = renderDiff(alignment, sides, { color: false, all: true, width });
    fits(out, width);
    const lines = out.split('\n');
    const a = lines.find((line) => /^ {8}a /.test(line));
    const b = lines.find((line) => /^ {8}b /.test(line));
    // One answer is the start of the other: both excerpts end at the same place, b's goes on with what it adds.
    expect(a, out).toBeDefined();
    const [textA, textB] = [a!.slice(10), b!.slice(10)];
    // Too long for 80 columns: cut before the difference; whole at 160.
    expect(textA.startsWith('…')).toBe(width === 80);
    expect(textB.startsWith(textA.replace(/"$/, ''))).toBe(true);
    expect(textB.endsWith('おわり"')).toBe(true);
  });
});
