import type { LineQuery } from 'mcp-tapedeck/trace';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileFilter,
  filterRows,
  haystack,
  rootExchange,
  rowMethod,
} from '../../../viewer/src/data/filter.js';
import { isErrorRow, type Row } from '../../../viewer/src/data/rows.js';
import { openModel } from '../open-model.js';
import { SAMPLE } from './sample.js';

describe('search and filters of the timeline and the calls table', () => {
  let rows: Row[];
  const keys = (filter: LineQuery, name = 'calc.jsonl') =>
    filterRows(rows, compileFilter(filter), () => name).map((r) => r.key);
  beforeAll(async () => {
    rows = (await openModel({ 'd0/calc.jsonl': SAMPLE })).rows();
  });

  it('keeps everything, as the same array, when nothing is asked', () => {
    const filter = compileFilter({ regex: false, q: '  ' });
    expect(filter.empty).toBe(true);
    expect(filterRows(rows, filter, () => '')).toBe(rows);
  });

  it('searches both sides of an exchange, case-insensitively, and the text of non-message lines', () => {
    // The answer's text finds the request row too: a call is found by what it returned.
    expect(keys({ q: 'FORTY' })).toEqual(['0.6', '0.8']);
    expect(keys({ q: 'division by zero' })).toEqual(['0.9', '0.10']);
    expect(keys({ q: 'goodbye' })).toEqual(['0.17']);
    expect(keys({ q: 'listening' })).toEqual(['0.2']);
    // Other lines are searched as their JSON.
    expect(keys({ q: 'mcp-session-id' })).toEqual(['0.15']);
  });

  it('takes a regular expression, and says why one does not compile instead of failing', () => {
    expect(keys({ q: '"a":\\s*40\\b|division by', regex: true })).toEqual(['0.6', '0.8', '0.9', '0.10']);
    const broken = compileFilter({ q: '(unclosed', regex: true });
    expect(broken.error).toMatch(/unterminated group|Unterminated group/i);
    expect(filterRows(rows, broken, () => '')).toEqual([]);
    // Without `regex` the same text is plain text.
    expect(compileFilter({ q: '(unclosed' }).error).toBeUndefined();
  });

  it('narrows by tool (with the call’s progress), method, direction, errors and server', () => {
    expect(keys({ tool: 'AD' })).toEqual(['0.6', '0.7', '0.8']);
    expect(keys({ method: 'tools/list' })).toEqual(['0.4', '0.5']);
    expect(keys({ method: 'notifications' })).toEqual(['0.7', '0.20.1']);
    expect(keys({ dir: 'out' })).toEqual(rows.filter((r) => r.dir === 'out').map((r) => r.key));
    expect(keys({ dir: 'out' })).toContain('0.17');
    expect(keys({ errors: true })).toEqual(rows.filter(isErrorRow).map((r) => r.key));
    expect(keys({ tool: 'div', errors: true })).toEqual(['0.9', '0.10']);
    expect(keys({ tool: 'div', errors: true, dir: 'in' })).toEqual(['0.9']);
    // A server filter matches a row's `server` or, with several traces open, the trace's name.
    expect(keys({ server: 'calc.jsonl' })).toHaveLength(rows.length);
    expect(keys({ server: 'other' })).toEqual([]);
  });

  it('finds the request a row belongs to, its method and its searchable text', () => {
    const progress = rows.find((r) => r.key === '0.7')!;
    expect(rootExchange(progress)?.method).toBe('tools/call');
    expect(rowMethod(progress)).toBe('notifications/progress');
    expect(haystack(progress)).toBe('notifications/progress {"progressToken":7,"progress":1}');
    const request = rows.find((r) => r.key === '0.9')!;
    expect(haystack(request)).toBe(
      'tools/call {"name":"divide","arguments":{"a":1,"b":0}} {"code":-32602,"message":"division by zero"}',
    );
    expect(rowMethod(rows.find((r) => r.key === '0.2')!)).toBeUndefined();
  });
});
