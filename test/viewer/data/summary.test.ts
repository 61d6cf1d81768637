import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceModel } from '../../../viewer/src/data/model.js';
import type { Row } from '../../../viewer/src/data/rows.js';
import {
  argumentSummary,
  base64Bytes,
  clip,
  compact,
  contentSummary,
  formatBytes,
  formatLatency,
  formatOffset,
  idTag,
  requestSummary,
  resultSummary,
  rowDetail,
  rowTitle,
} from '../../../viewer/src/data/summary.js';
import { openModel } from '../open-model.js';
import { SAMPLE } from './sample.js';

describe('one-line descriptions of values', () => {
  it('writes values as short JSON, whitespace folded, cut with an ellipsis', () => {
    expect(compact({ a: 1, b: 'x' }, 10)).toBe('{"a":1,"b…');
    expect(compact(undefined)).toBe('');
    expect(compact('two\n  lines')).toBe('two lines');
    expect(compact([1, 2, 3])).toBe('[1,2,3]');
    expect(clip('abcdef', 6)).toBe('abcdef');
    expect(clip('abcdefg', 6)).toBe('abcde…');
    // A multi-megabyte value is cut before it is folded: the work stays proportional to what is shown.
    expect(clip('x'.repeat(5_000_000), 8)).toBe('xxxxxxx…');
  });

  it('writes tool arguments as name=value pairs (strings bare), and anything else as JSON', () => {
    expect(argumentSummary({ a: 2, b: 'three' })).toBe('a=2, b=three');
    expect(argumentSummary({ list: [1, 2], nested: { deep: true } })).toBe(
      'list=[1,2], nested={"deep":true}',
    );
    expect(argumentSummary(undefined)).toBe('');
    expect(argumentSummary([1, 2])).toBe('[1,2]');
    expect(argumentSummary({ long: 'y'.repeat(100) }, 20)).toBe(`long=${'y'.repeat(14)}…`);
  });

  it('tags ids so that 1 and "1" stay apart', () => {
    expect(idTag(1)).toBe('#1');
    expect(idTag('1')).toBe('#"1"');
    expect(idTag(null)).toBe('#null');
  });

  it('measures base64 data and writes byte counts for people', () => {
    expect(base64Bytes('YQ==')).toBe(1);
    expect(base64Bytes('aGk=')).toBe(2);
    expect(base64Bytes('YWJj')).toBe(3);
    expect(base64Bytes('aGVsbG8=')).toBe(5);
    expect(base64Bytes('')).toBe(0);
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024)).toBe('10 KB');
    expect(formatBytes(3 * 1024 * 1024 + 512 * 1024)).toBe('3.5 MB');
  });

  it('describes each kind of MCP content item in a few words', () => {
    expect(contentSummary({ type: 'text', text: 'hello' })).toBe('hello');
    expect(contentSummary({ type: 'image', mimeType: 'image/png', data: 'aGk=' })).toBe(
      '[image image/png, 2 B]',
    );
    expect(contentSummary({ type: 'audio', mimeType: 'audio/wav' })).toBe('[audio audio/wav]');
    expect(contentSummary({ type: 'resource_link', uri: 'file:///a' })).toBe('[link file:///a]');
    expect(contentSummary({ type: 'resource', resource: { uri: 'file:///b', text: 'B' } })).toBe(
      '[resource file:///b]',
    );
    expect(contentSummary({ type: 'widget', size: 3 })).toBe('{"type":"widget","size":3}');
    expect(contentSummary('plain')).toBe('plain');
  });

  it('writes latencies in ms below 10 s and offsets from the start in seconds', () => {
    expect(formatLatency(2005)).toBe('2005 ms');
    expect(formatLatency(12.4)).toBe('12 ms');
    expect(formatLatency(10_000)).toBe('10.0 s');
    expect(formatLatency(61_250)).toBe('61.3 s');
    expect(formatOffset(12_345)).toBe('+12.345s');
    expect(formatOffset(0)).toBe('+0.000s');
    expect(formatOffset(-5)).toBe('-0.005s');
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
    expect(rowDetail(row('0.7'))).toBe('{"progressToken":7,"progress":1}');
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

describe('answers of other shapes', () => {
  it('describes modern-era answers and answers still awaited', async () => {
    const t = (ms: number) => new Date(Date.parse('2026-11-29T10:00:00.000Z') + ms).toISOString();
    const lines = [
      { v: 1, type: 'meta', startedAt: t(0), label: 'era', kind: 'mcp', transport: 'http' },
      { t: t(1), seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 'd', method: 'server/discover' } },
      {
        t: t(2),
        seq: 2,
        dir: 'out',
        raw: { jsonrpc: '2.0', id: 'd', result: { supportedVersions: ['2026-07-28', '2025-11-25'] } },
      },
      {
        t: t(3),
        seq: 3,
        dir: 'in',
        raw: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask' } },
      },
      {
        t: t(4),
        seq: 4,
        dir: 'out',
        raw: {
          jsonrpc: '2.0',
          id: 2,
          result: { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create' } } },
        },
      },
      {
        t: t(5),
        seq: 5,
        dir: 'in',
        raw: { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'p' } },
      },
      {
        t: t(6),
        seq: 6,
        dir: 'out',
        raw: { jsonrpc: '2.0', id: 3, result: { messages: [{ role: 'user' }, { role: 'assistant' }] } },
      },
      {
        t: t(7),
        seq: 7,
        dir: 'in',
        raw: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow' } },
      },
    ];
    const model = await openModel({
      'd0/era.jsonl': `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    });
    const [discover, ask, prompt, slow] = model.sources[0]!.exchanges;
    expect(resultSummary(discover!)).toBe('versions 2026-07-28, 2025-11-25');
    expect(resultSummary(ask!)).toBe('input required: elicitation/create');
    expect(resultSummary(prompt!)).toBe('2 messages');
    expect(requestSummary(prompt!)).toBe('{"name":"p"}');
    // The trace has no end line: a reader that finished says the call was never answered.
    expect(resultSummary(slow!)).toBe('no response');
  });
});
