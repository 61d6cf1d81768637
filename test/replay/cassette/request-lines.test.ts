import { describe, expect, it } from 'vitest';
import { buildCassette, requestHash } from '../../../src/replay/cassette/cassette.js';
import { loadCassette } from '../../../src/replay/cassette/load.js';
import { Matcher, type MatchResult } from '../../../src/replay/cassette/matcher.js';
import { recordedRequest } from '../../../src/replay/cassette/recorded-exchange.js';
import type { Cassette } from '../../../src/replay/cassette/types.js';
import type { ReplayOptions } from '../../../src/replay/options.js';
import { memoryTraceFiles } from '../../../src/trace/import/files.js';
import { openTraceWith } from '../../../src/trace/import/open.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import type { Json, TraceLine } from '../../../src/trace/types.js';
import { call, req, res, traceLines } from '../helpers.js';

/**
 * A cassette loaded from a file keeps its requests as the text of their lines until they are read, and keys them
 * by hashes worked out while building it. Everything must read and match as in a cassette built from parsed lines.
 */

/** Two different tools/call requests with the same structural hash, found by a birthday search. */
function collidingNames(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const name = `tool-${i}`;
    const hash = requestHash({ method: 'tools/call', params: call(name) });
    const other = seen.get(hash);
    if (other !== undefined) return [other, name];
    seen.set(hash, name);
  }
}

const [A, B] = collidingNames();
const VERSION = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const retry = (id: number, state: string) =>
  req(
    id,
    'tools/call',
    call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: state }),
  );
const answer = (id: number, text: string) => res(id, { content: [{ type: 'text', text }] });

function recording(): TraceLine[] {
  const lines = traceLines([
    [
      'in',
      req(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c' } }),
    ],
    [
      'out',
      res(0, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } }),
    ],
    ['in', req(1, 'tools/list')],
    ['out', res(1, { tools: [] })],
    ['in', req(2, 'tools/list')],
    ['out', res(2, { tools: [{ name: 'second' }] })],
    ['in', req(3, 'tools/call', call(A, { n: 1 }, { _meta: { progressToken: 7 } }))],
    ['out', answer(3, 'A1')],
    ['in', req(4, 'tools/call', call(B, { n: 1 }))],
    ['out', answer(4, 'B1')],
    ['in', req(5, 'tools/call', call(A, { n: 1 }))],
    ['out', answer(5, 'A2')],
    ['in', req(6, 'tools/call', call('ship', {}, { _meta: VERSION }))],
    ['out', res(6, { resultType: 'input_required', requestState: 'S1' })],
    ['in', req(7, 'tools/call', call('ship', {}, { _meta: VERSION }))],
    ['out', res(7, { resultType: 'input_required', requestState: 'S2' })],
    ['in', retry(8, 'S2')],
    ['out', answer(8, 'two')],
    ['in', retry(9, 'S1')],
    ['out', answer(9, 'one')],
    ['in', [req(10, 'ping'), req(11, 'tools/call', call('batched'))] as Json],
    ['out', [res(10, {}), answer(11, 'from a batch')] as Json],
  ]);
  return lines;
}

async function bothWays(): Promise<{ lazy: Cassette; eager: Cassette }> {
  const lines = recording();
  const files = memoryTraceFiles({ 'c.jsonl': `${lines.map((line) => JSON.stringify(line)).join('\n')}\n` });
  const { cassette: lazy } = await loadCassette('c.jsonl', { files });
  // Read without the lines' text: every message parsed up front, as before requests were kept as text.
  const trace = await openTraceWith(files, 'c.jsonl');
  const eager = await buildCassette(trace.batches(), { meta: trace.meta });
  return { lazy, eager };
}

/** The live requests of a session that asks everything recorded, in another order, and some things twice. */
const SESSION: [string, JsonObject | undefined][] = [
  [
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'other', version: '2' } },
  ],
  ['tools/call', call(B, { n: 1 })],
  ['tools/list', undefined],
  ['tools/call', call(A, { n: 1 })],
  ['tools/call', call(A, { n: 1 }, { _meta: { progressToken: 'x' } })],
  ['tools/call', call(A, { n: 1 })],
  ['tools/list', {}],
  ['tools/call', call('ship', {}, { _meta: VERSION })],
  ['tools/call', call('ship', {}, { _meta: VERSION })],
  ['tools/call', call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: 'S1' })],
  ['tools/call', call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: 'S2' })],
  ['tools/call', call('batched')],
  ['tools/call', call('never-recorded')],
];

function outcome(result: MatchResult): Json {
  if (result.kind === 'miss') return `miss ${result.miss.reason}`;
  return {
    ordinal: result.exchange.ordinal,
    repeated: result.repeated,
    response: result.exchange.response ?? null,
  };
}

function play(cassette: Cassette, options: ReplayOptions): Json[] {
  const matcher = new Matcher(cassette, options);
  const results = SESSION.map(([method, params]) => outcome(matcher.match(method, params)));
  const { used, total, unused, summary } = matcher.report();
  return [...results, { used, total, unused: unused as unknown as Json, summary }];
}

describe('requests kept as the text of their lines', () => {
  it('read as the requests of a cassette built from parsed lines, and are parsed once', async () => {
    const { lazy, eager } = await bothWays();
    // Held as text until read, but for the items of a batch line, taken out at once.
    expect(lazy.exchanges.map((x) => recordedRequest(x).kept)).toEqual([
      ...Array(10).fill(false),
      true,
      true,
    ]);
    expect(eager.exchanges.every((x) => recordedRequest(x).kept)).toBe(true);
    expect(lazy.exchanges.map((x) => x.request)).toEqual(eager.exchanges.map((x) => x.request));
    expect(lazy.exchanges.map((x) => x.message)).toEqual(eager.exchanges.map((x) => x.message));
    expect(lazy.exchanges.map((x) => x.mrtr)).toEqual(eager.exchanges.map((x) => x.mrtr));
    for (const exchange of lazy.exchanges) {
      expect(exchange.request).toBe(exchange.request);
      expect(exchange.request.params).toBe(exchange.message.params);
    }
  });

  it('match as those of a cassette built from parsed lines, with default and with custom normalization', async () => {
    const settings: ReplayOptions[] = [
      {},
      { ignore: ['$.params.arguments.n'] },
      { repeat: 'last' },
      { match: 'ordered' },
      {
        matchers: [
          (live, recorded) => (live.method === 'tools/list' ? recorded.method === live.method : undefined),
        ],
      },
    ];
    for (const options of settings) {
      const { lazy, eager } = await bothWays();
      const expected = play(eager, options);
      expect(play(lazy, options)).toEqual(expected);
      // Nothing matching read was kept: the requests read afterwards are still those recorded.
      expect(lazy.exchanges.map((x) => x.request)).toEqual(eager.exchanges.map((x) => x.request));
    }
  });

  it('serve colliding and repeated requests in recorded order, and MRTR retries by the state they echo', async () => {
    const { lazy } = await bothWays();
    const matcher = new Matcher(lazy);
    const texts = [call(B, { n: 1 }), call(A, { n: 1 }), call(A, { n: 1 })].map((params) =>
      outcome(matcher.match('tools/call', params)),
    );
    expect(texts.map((t) => (t as { ordinal: number }).ordinal)).toEqual([4, 3, 5]);
    expect(outcome(matcher.match('tools/list', undefined))).toMatchObject({ ordinal: 1 });
    expect(outcome(matcher.match('tools/list', undefined))).toMatchObject({ ordinal: 2 });
    matcher.match('tools/call', call('ship', {}, { _meta: VERSION }));
    matcher.match('tools/call', call('ship', {}, { _meta: VERSION }));
    const state = (s: string) =>
      matcher.match(
        'tools/call',
        call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: s }),
      );
    expect(outcome(state('S1'))).toMatchObject({ ordinal: 9 });
    expect(outcome(state('S2'))).toMatchObject({ ordinal: 8 });
  });
});
