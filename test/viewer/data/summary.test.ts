import { beforeAll, describe, expect, it } from 'vitest';
import { requestSummary, resultSummary } from '../../../src/trace/describe-summary.js';
import type { TraceModel } from '../../../viewer/src/data/model.js';
import type { Row } from '../../../viewer/src/data/rows.js';
import {
  formatBytes,
  formatLatency,
  progressSummary,
  rowDetail,
  rowTitle,
} from '../../../viewer/src/data/summary.js';
import { openModel } from '../open-model.js';
import { SAMPLE } from './sample.js';

describe("the viewer's style of sizes and latencies", () => {
  it('writes byte counts in B, KB and MB, kilobytes whole from 10', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024)).toBe('10 KB');
    expect(formatBytes(3 * 1024 * 1024 + 512 * 1024)).toBe('3.5 MB');
  });

  it('writes latencies in ms below 10 s, seconds above, a space before the unit', () => {
    expect(formatLatency(2005)).toBe('2005 ms');
    expect(formatLatency(12.4)).toBe('12 ms');
    expect(formatLatency(10_000)).toBe('10.0 s');
    expect(formatLatency(61_250)).toBe('61.3 s');
    expect(formatLatency(270_000)).toBe('4.5 min');
    expect(formatLatency(18_120_000)).toBe('5 h 02 min');
  });
});

describe('titles and details of timeline rows', () => {
  let model: TraceModel;
  const row = (key: string): Row => {
    const found = model.row(key);
    if (!found) throw new Error(`no row ${key}`);
    return found;
  };
  beforeAll(async () => {
    model = await openModel({ 'd0/calc.jsonl': SAMPLE });
  });

  it('names a request by its method and what it is about, on both of its rows', () => {
    expect(rowTitle(row('0.1'))).toBe('initialize');
    expect(rowTitle(row('0.6'))).toBe('tools/call add');
    expect(rowTitle(row('0.8'))).toBe('tools/call add');
    expect(rowTitle(row('0.18'))).toBe('resources/read file:///a.txt');
    expect(rowTitle(row('0.7'))).toBe('notifications/progress');
  });

  it('says what a request asked: tool arguments, the client and its protocol, else the params without _meta', () => {
    expect(rowDetail(row('0.1'))).toBe('probe · 2025-11-25');
    expect(rowDetail(row('0.6'))).toBe('a=40, b=2');
    expect(rowDetail(row('0.18'))).toBe('{"uri":"file:///a.txt"}');
    // No params at all, and params that are only _meta, say nothing.
    expect(rowDetail(row('0.4'))).toBe('');
    expect(requestSummary(row('0.20.0').exchange!)).toBe('');
    // Progress says how far: `1` without a total, `3/5` with one, then its message.
    expect(rowDetail(row('0.7'))).toBe('1');
    expect(progressSummary({ progressToken: 7, progress: 3, total: 5, message: 'copying' })).toBe(
      '3/5 · copying',
    );
    expect(progressSummary({ progress: 0.5, total: 1, stage: 'b' })).toBe('0.5/1 · {"stage":"b"}');
  });

  it('says what an answer said: the server, a list length, the text, the error, a tool error', () => {
    expect(rowDetail(row('0.3'))).toBe('calc 2.1.0 · 2025-11-25');
    expect(rowDetail(row('0.5'))).toBe('3 tools');
    expect(rowDetail(row('0.8'))).toBe('forty-two');
    expect(rowDetail(row('0.10'))).toBe('error -32602 division by zero');
    expect(rowDetail(row('0.12'))).toBe('isError: boom');
    expect(rowDetail(row('0.19'))).toBe('1 contents');
    // A request the trace ended without answering.
    expect(resultSummary(row('0.21').exchange!)).toBe('no response');
  });

  it('names the rows that are not messages of a pair', () => {
    expect([rowTitle(row('0.13')), rowDetail(row('0.13'))]).toEqual([
      'response #99 (no request)',
      '{"ok":true}',
    ]);
    expect(rowTitle(row('0.14'))).toBe('invalid message');
    expect(rowDetail(row('0.14'))).toContain('neither "method" nor "result"/"error"');
    expect([rowTitle(row('0.2')), rowDetail(row('0.2'))]).toEqual(['stderr', 'calc listening on stdio']);
    expect([rowTitle(row('0.17')), rowDetail(row('0.17'))]).toEqual(['text', 'calc: goodbye']);
    expect([rowTitle(row('0.15')), rowDetail(row('0.15'))]).toEqual([
      'http POST /mcp',
      'conn c1 · /mcp · application/json · session s-1',
    ]);
    expect([rowTitle(row('0.16')), rowDetail(row('0.16'))]).toEqual(['event dropped', '{"count":3}']);
    expect([rowTitle(row('0.end')), rowDetail(row('0.end'))]).toEqual(['end', 'process_exit · exit 0']);
  });
});
