import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceModel } from '../../../viewer/src/data/model.js';
import { isErrorRow, type Row } from '../../../viewer/src/data/rows.js';
import { openModel } from '../open-model.js';
import { expectedRows } from '../traces.js';
import { at, SAMPLE } from './sample.js';

describe('timeline rows', () => {
  let model: TraceModel;
  let rows: Row[];
  const row = (key: string) => rows.find((r) => r.key === key);
  beforeAll(async () => {
    model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    rows = model.rows();
  });

  it('gives one row per line but the meta line, and one per item of a batch', () => {
    expect(rows).toHaveLength(expectedRows(SAMPLE));
    expect(rows.map((r) => r.key).slice(18, 23)).toEqual(['0.19', '0.20.0', '0.20.1', '0.21', '0.end']);
    expect(rows.map((r) => r.kind)).toEqual([
      'request',
      'stderr',
      'response',
      'request',
      'response',
      'request',
      'notification',
      'response',
      'request',
      'response',
      'request',
      'response',
      'orphan',
      'invalid',
      'http',
      'event',
      'text',
      'request',
      'response',
      'request',
      'notification',
      'request',
      'end',
    ]);
    expect(row('0.20.1')?.item).toBe(1);
  });

  it('keeps where each row came from, when, in which direction, and its place under its request', () => {
    const progress = row('0.7')!;
    // The file's line 1 is the meta line: seq 7 is line 8.
    expect({ file: progress.file, lineNo: progress.lineNo }).toEqual({ file: 'd0/calc.jsonl', lineNo: 8 });
    expect(progress.time).toBe(Date.parse(at(25)));
    expect(progress.dir).toBe('out');
    expect(progress.depth).toBe(1);
    expect(progress.parent).toBe(row('0.6')!.exchange);
    expect(progress.via).toBe('progressToken');
    expect(row('0.2')!.dir).toBeUndefined();
    expect(row('0.end')!.time).toBe(Date.parse(at(90)));
  });

  it('shares one exchange between a request row and its response row', () => {
    const request = row('0.6')!;
    const response = row('0.8')!;
    expect(response.exchange).toBe(request.exchange);
    expect(request.exchange!.latencyMs).toBe(11);
    expect(model.sources[0]!.requestRow(request.exchange!)).toBe(request);
    expect(model.sources[0]!.responseRow(request.exchange!)).toBe(response);
    expect(row('0.13')!.response?.id).toBe(99);
    expect(row('0.14')!.reason).toContain('neither');
  });

  it('marks failed calls, tool errors, stray answers, invalid messages and the recorder’s own troubles', () => {
    expect(rows.filter(isErrorRow).map((r) => r.key)).toEqual([
      '0.9',
      '0.10',
      '0.11',
      '0.12',
      '0.13',
      '0.14',
      '0.16',
    ]);
    // An unanswered request is not an error of its own.
    expect(isErrorRow(row('0.21')!)).toBe(false);
  });
});
