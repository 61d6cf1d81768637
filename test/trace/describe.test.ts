import { describe, expect, it } from 'vitest';
import { clip, compact, describeRequest, idTag, requestLabel } from '../../src/trace/describe.js';
import { notificationDetail, requestDetail, responseDetail } from '../../src/trace/describe-detail.js';
import {
  argumentSummary,
  base64Bytes,
  contentSummary,
  requestSummary,
  resultSummary,
} from '../../src/trace/describe-summary.js';
import type { RpcNotification, RpcRequest, RpcResponse } from '../../src/trace/jsonrpc.js';
import { collectExchanges } from '../../src/trace/pairing.js';
import type { TraceLine } from '../../src/trace/types.js';

describe('clip: one line of at most so many characters', () => {
  it('folds white space, trims the ends and never cuts a character in half', () => {
    expect(clip('  a\n\t b  ')).toBe('a b');
    expect(clip('😀😀😀😀', 3)).toBe('😀😀…');
    expect(clip('a  b', 10, { fold: false })).toBe('a  b');
    expect(clip('abcdef', 4, { fold: false })).toBe('abc…');
  });
});

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

  it('measures base64 data', () => {
    expect(base64Bytes('YQ==')).toBe(1);
    expect(base64Bytes('aGk=')).toBe(2);
    expect(base64Bytes('YWJj')).toBe(3);
    expect(base64Bytes('aGVsbG8=')).toBe(5);
    expect(base64Bytes('')).toBe(0);
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
});

describe('answers of other shapes', () => {
  it('describes modern-era answers and answers never given', () => {
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
    const paired = collectExchanges(lines.map((line) => line as unknown as TraceLine));
    const [discover, ask, prompt] = paired.exchanges;
    const [slow] = paired.unanswered;
    expect(resultSummary(discover!)).toBe('versions 2026-07-28, 2025-11-25');
    expect(resultSummary(ask!)).toBe('input required: elicitation/create');
    expect(resultSummary(prompt!)).toBe('2 messages');
    expect(requestSummary(prompt!)).toBe('{"name":"p"}');
    // The trace has no end line: a reader that finished says the call was never answered.
    expect(resultSummary(slow!)).toBe('no response');
  });
});

describe("the timeline's details", () => {
  it('says what a request is about after its headline', () => {
    const call: RpcRequest = {
      kind: 'request',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { m: 'hi' } },
    };
    expect(requestLabel(call)).toBe('tools/call echo');
    expect(requestDetail(call)).toBe('{"m":"hi"}');
    const init: RpcRequest = {
      kind: 'request',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', clientInfo: { name: 'probe', version: '1.0' } },
    };
    expect(requestDetail(init)).toBe('probe 1.0 · protocol 2025-11-25');
  });

  it('says what an answer said, by the method it answers', () => {
    const list: RpcResponse = {
      kind: 'response',
      id: 1,
      result: { resourceTemplates: [{}, {}] },
      error: undefined,
    };
    expect(responseDetail('resources/templates/list', list)).toBe('2 templates');
    const failed: RpcResponse = {
      kind: 'response',
      id: 2,
      result: undefined,
      error: { code: -32602, message: 'bad', data: undefined },
    };
    expect(responseDetail('tools/call', failed)).toBe('-32602 bad');
    const text: RpcResponse = {
      kind: 'response',
      id: 3,
      result: { content: [{ type: 'text', text: 'forty-two' }, { type: 'image' }] },
      error: undefined,
    };
    expect(responseDetail('tools/call', text)).toBe('forty-two [image]');
  });

  it('says what a notification reported', () => {
    const progress: RpcNotification = {
      kind: 'notification',
      method: 'notifications/progress',
      params: { progress: 1, total: 4, message: 'half' },
    };
    expect(notificationDetail(progress)).toBe('1/4 half');
    const cancelled: RpcNotification = {
      kind: 'notification',
      method: 'notifications/cancelled',
      params: { requestId: 'a', reason: 'user' },
    };
    expect(notificationDetail(cancelled)).toBe('request "a" · user');
  });
});

describe('a request described by its matching key', () => {
  it('names the method and target, then the rest as canonical JSON', () => {
    expect(
      describeRequest({ method: 'tools/call', params: { name: 'get-sum', arguments: { b: 3, a: 2 } } }),
    ).toBe('tools/call get-sum {"a":2,"b":3}');
    expect(describeRequest({ method: 'resources/read', params: { uri: 'file:///a' } })).toBe(
      'resources/read file:///a',
    );
    expect(describeRequest({ method: 'ping', params: {} })).toBe('ping');
  });

  it('keeps JSON as written and cuts each part after max characters', () => {
    expect(
      describeRequest({ method: 'tools/call', params: { name: 'say', arguments: { text: 'a  b' } } }),
    ).toBe('tools/call say {"text":"a  b"}');
    const long = describeRequest({ method: 'm', params: { text: 'x'.repeat(50) } }, 20);
    expect(long).toBe(`m {"text":"${'x'.repeat(11)}…`);
  });
});
