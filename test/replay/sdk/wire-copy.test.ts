import { describe, expect, it } from 'vitest';
import { buildCassette } from '../../../src/replay/cassette/cassette.js';
import { responseToSend } from '../../../src/replay/cassette/script-builder.js';
import { wireCopy } from '../../../src/replay/sdk/wire-copy.js';
import { memoryTraceFiles } from '../../../src/trace/import/files.js';
import { openTraceWith } from '../../../src/trace/import/open.js';

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('wireCopy', () => {
  it('gives what JSON text would, as new objects', () => {
    const message = {
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'hi' }], isError: false, n: -0, gone: undefined },
      list: [1, 'a', null, true, { deep: [[]] }],
    };
    const copy = wireCopy(message);
    expect(copy).toStrictEqual(roundTrip(message));
    expect(Object.is(copy.result.n, 0)).toBe(true);
    expect(copy.result).not.toBe(message.result);
    expect(copy.list[4]).not.toBe(message.list[4]);
  });

  it('goes through the text for what a walk would copy differently', () => {
    const cases: unknown[] = [
      { when: new Date(Date.UTC(2026, 0, 1)) },
      { custom: { toJSON: () => 'as text' } },
      { items: [1, undefined, () => 2] },
      { nan: Number.NaN, inf: Number.POSITIVE_INFINITY },
      JSON.parse('{"__proto__":{"polluted":true},"ok":1}'),
      {
        instance: new (class Point {
          x = 1;
        })(),
      },
      { map: new Map([[1, 2]]) },
      // deeper than the walk goes
      JSON.parse(`${'['.repeat(200)}1${']'.repeat(200)}`),
    ];
    for (const value of cases) expect(wireCopy(value)).toStrictEqual(roundTrip(value));
    const polluted = wireCopy(cases[4]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype);
    expect(Object.hasOwn(polluted, '__proto__')).toBe(true);
  });

  it('throws as JSON.stringify does on a cycle and a bigint', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => wireCopy(cycle)).toThrow(TypeError);
    expect(() => wireCopy({ big: 1n })).toThrow(TypeError);
  });
});

describe('responseToSend', () => {
  const lines = (response: string) =>
    [
      '{"v":1,"type":"meta","startedAt":"2026-01-01T00:00:00.000Z","label":"r"}',
      '{"t":"2026-01-01T00:00:00.001Z","seq":1,"dir":"in","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}',
      response,
      '',
    ].join('\n');

  async function exchangeOf(response: string) {
    const files = memoryTraceFiles({ 'r.jsonl': lines(response) });
    const trace = await openTraceWith(files, 'r.jsonl', { lineText: true });
    const cassette = await buildCassette(trace.batches(), { meta: trace.meta });
    return cassette.exchanges[0]!;
  }

  const expected = { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'raw', raw: 1 }] } };

  it('parses an unread response for each send, owned, and leaves exchange.response as it was', async () => {
    const exchange = await exchangeOf(
      '{"t":"2026-01-01T00:00:00.002Z","seq":2,"dir":"out","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"raw","raw":1}]}}}',
    );
    const first = responseToSend(exchange);
    const second = responseToSend(exchange);
    expect(first).toEqual({ response: expected, owned: true });
    expect(second.response).not.toBe(first.response);
    const read = exchange.response;
    expect(read).toEqual(expected);
    expect(exchange.response).toBe(read);
    // Once read, the exchange's own object is what is sent, and it is not the sender's to keep.
    expect(responseToSend(exchange)).toEqual({ response: read, owned: false });
    expect(responseToSend(exchange).response).toBe(read);
  });

  it('reads lines whose raw is not last, or follows an object, as a whole', async () => {
    for (const line of [
      '{"t":"2026-01-01T00:00:00.002Z","dir":"out","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"raw","raw":1}]}},"seq":2}',
      '{"t":"2026-01-01T00:00:00.002Z","note":{"raw":5},"dir":"out","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"raw","raw":1}]}}}',
      '{"t":"2026-01-01T00:00:00.002Z","dir":"out","x\\"raw":{"a":1}, "raw" :{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"raw","raw":1}]}}}',
    ]) {
      const exchange = await exchangeOf(line);
      expect(responseToSend(exchange).response).toEqual(expected);
    }
  });
});
