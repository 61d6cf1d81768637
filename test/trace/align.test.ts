import { describe, expect, it } from 'vitest';
import { compileIgnorePath } from '../../src/replay/cassette/paths.js';
import { type AlignedItem, alignExchanges, alignTraces } from '../../src/trace/align.js';
import { collectExchanges } from '../../src/trace/pairing.js';
import { type Call, list, session, tool } from '../helpers/diff-sessions.js';

const sum = (a: number, b: number, latencyMs = 10) =>
  tool('get-sum', { a, b }, `The sum of ${a} and ${b} is ${a + b}.`, latencyMs);
const echo = (message: string) => tool('echo', { message }, `Echo: ${message}`);
const init = (client: string): Call => ({
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: client, version: '1' } },
  result: {
    protocolVersion: '2025-06-18',
    serverInfo: { name: 'everything', version: '1' },
    capabilities: {},
  },
});

function diff(a: Call[], b: Call[], options: Parameters<typeof alignTraces>[2] = {}) {
  return alignTraces(session(a), session(b, { idBase: 100 }), options);
}

/** Each item as `kind method target`, the way a person skims the report. */
function shape(items: readonly AlignedItem[]): string[] {
  return items.map((item) => [item.kind, item.method, item.target].filter(Boolean).join(' '));
}

describe('alignTraces', () => {
  it('finds two runs of the same session identical, whatever their ids, tokens and client versions', () => {
    const calls = [list(['echo', 'get-sum']), echo('hi'), sum(2, 3)];
    const { items, summary } = alignTraces(
      session([init('client-a'), ...calls]),
      session([init('client-b'), ...calls], { idBase: 40 }),
    );
    expect(shape(items)).toEqual([
      'same initialize',
      'same tools/list',
      'same tools/call echo',
      'same tools/call get-sum',
    ]);
    expect(summary).toMatchObject({ same: 4, changed: 0, added: 0, removed: 0, identical: true });
    expect(items.map((item) => [item.aIndex, item.bIndex])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(items[1]?.a?.id).toBe(2);
    expect(items[1]?.b?.id).toBe(42);
  });

  it('shows an inserted request as added where it was, and the rest as same', () => {
    const { items, summary } = diff([echo('a'), echo('c')], [echo('a'), echo('b'), echo('c')]);
    expect(shape(items)).toEqual(['same tools/call echo', 'added tools/call echo', 'same tools/call echo']);
    expect(items[1]).toMatchObject({ kind: 'added', a: undefined, aIndex: undefined, bIndex: 1 });
    expect(items[1]?.b?.request.params?.arguments).toEqual({ message: 'b' });
    expect(summary).toMatchObject({ same: 2, added: 1, identical: false, requests: { a: 2, b: 3 } });
  });

  it('shows a deleted request as removed', () => {
    const { items } = diff([list([]), echo('x'), sum(1, 1)], [list([]), sum(1, 1)]);
    expect(shape(items)).toEqual(['same tools/list', 'removed tools/call echo', 'same tools/call get-sum']);
    expect(items[1]).toMatchObject({ aIndex: 1, bIndex: undefined, b: undefined });
  });

  it('shows a changed argument as one changed item with a params diff, not as removed and added', () => {
    const { items, summary } = diff([echo('x'), sum(2, 3), echo('y')], [echo('x'), sum(2, 4), echo('y')]);
    expect(shape(items)).toEqual([
      'same tools/call echo',
      'changed tools/call get-sum',
      'same tools/call echo',
    ]);
    expect(items[1]?.params).toEqual({ entries: [{ path: '$.params.arguments.b', a: 3, b: 4 }], total: 1 });
    expect(items[1]?.result).toEqual({
      entries: [
        { path: '$.result.content[0].text', a: 'The sum of 2 and 3 is 5.', b: 'The sum of 2 and 4 is 6.' },
      ],
      total: 1,
    });
    expect(summary).toMatchObject({ same: 2, changed: 1, added: 0, removed: 0 });
  });

  it('pairs changed requests in a run by tool name, in order, and leaves the others removed or added', () => {
    const { items } = diff(
      [list([]), sum(1, 1), echo('a'), sum(2, 2), list([])],
      [list([]), echo('b'), sum(2, 5), list([])],
    );
    expect(shape(items)).toEqual([
      'same tools/list',
      'removed tools/call get-sum',
      'changed tools/call echo',
      'changed tools/call get-sum',
      'same tools/list',
    ]);
    expect(items[3]?.params?.entries).toEqual([{ path: '$.params.arguments.b', a: 2, b: 5 }]);
  });

  it('shows a changed answer to the same request as changed with a result diff', () => {
    const before = { ...echo('x'), result: { content: [{ type: 'text', text: 'Echo: x' }] } };
    const after = { ...echo('x'), result: { content: [{ type: 'text', text: 'ECHO: x' }], isError: true } };
    const { items } = diff([before], [after]);
    expect(items[0]?.kind).toBe('changed');
    expect(items[0]?.params).toBeUndefined();
    expect(items[0]?.result?.entries).toEqual([
      { path: '$.result.content[0].text', a: 'Echo: x', b: 'ECHO: x' },
      { path: '$.result.isError', b: true },
    ]);
  });

  it('compares errors and unanswered requests as answers', () => {
    const failed: Call = { ...sum(1, 2), error: { code: -32602, message: 'bad b' } };
    const silent: Call = { ...sum(1, 2), unanswered: true };
    const { items } = diff([sum(1, 2), sum(1, 2), failed], [failed, silent, failed]);
    expect(shape(items)).toEqual([
      'changed tools/call get-sum',
      'changed tools/call get-sum',
      'same tools/call get-sum',
    ]);
    expect(items[0]?.result?.entries.map((e) => e.path)).toEqual(['$.error', '$.result']);
    // The answer that is gone is shown shortened (diff.maxValueLength).
    expect(items[1]?.result?.entries).toEqual([
      {
        path: '$.result',
        a: expect.stringMatching(/^\{"content":\[\{"type":"text","text":"The sum of 1 and 2.*…$/),
      },
    ]);
    const whole = diff([sum(1, 2)], [silent], { diff: { maxValueLength: 1000 } });
    expect(whole.items[0]?.result?.entries[0]?.a).toEqual({
      content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
    });
  });

  it('pairs repeated identical requests in order', () => {
    const ping = (n: number): Call => ({ method: 'ping', result: { n } });
    const { items } = diff([ping(1), ping(2), ping(3)], [ping(1), ping(3)]);
    expect(shape(items)).toEqual(['same ping', 'changed ping', 'removed ping']);
    expect(items[1]?.result?.entries).toEqual([{ path: '$.result.n', a: 2, b: 3 }]);
  });

  it('reads a moved request as removed at its old place and added at its new one', () => {
    const { items } = diff([echo('a'), echo('b'), echo('c')], [echo('b'), echo('c'), echo('a')]);
    expect(shape(items)).toEqual([
      'removed tools/call echo',
      'same tools/call echo',
      'same tools/call echo',
      'added tools/call echo',
    ]);
  });

  it('lines up lists of named things by name: a new tool is one difference', () => {
    const { items } = diff([list(['echo', 'get-sum'])], [list(['add', 'echo', 'get-sum'])]);
    expect(items[0]?.result?.entries).toEqual([
      { path: '$.result.tools[2]', b: { name: 'add', inputSchema: {} } },
    ]);
  });

  it('leaves ignored locations of answers and of requests out: never a change', () => {
    const stamp = (ts: number, text: string): Call => tool('now', { ts }, text);
    const a = [stamp(1, 'it is 10:00'), sum(1, 2)];
    const b = [stamp(2, 'it is 10:05'), sum(1, 2)];
    expect(shape(diff(a, b).items)).toEqual(['changed tools/call now', 'same tools/call get-sum']);
    const ignore = ['$.params.arguments.ts', '$.result.content[*].text'].map(compileIgnorePath);
    const { items, summary } = diff(a, b, { ignore });
    expect(shape(items)).toEqual(['same tools/call now', 'same tools/call get-sum']);
    expect(summary.identical).toBe(true);
  });

  it('adds up latency deltas of the requests in both traces', () => {
    const { items, summary } = diff(
      [sum(1, 1, 10), echo('x'), sum(2, 2, 30)],
      [sum(1, 1, 25), sum(2, 2, 20)],
    );
    expect(items.map((item) => item.latencyDeltaMs)).toEqual([15, undefined, -10]);
    expect(summary.latencyDeltaMs).toBe(5);
  });

  it('keys requests by server in multi-server traces, and --server takes one', () => {
    const on = (server: string, call: Call): Call => ({ ...call, server });
    const a = [on('alpha', echo('x')), on('beta', echo('x'))];
    const b = [on('beta', echo('x')), on('alpha', echo('x'))];
    const both = diff(a, b);
    expect(both.multiServer).toBe(true);
    expect(both.items.map((item) => `${item.kind} ${item.server}`)).toEqual([
      'removed alpha',
      'same beta',
      'added alpha',
    ]);
    const beta = diff(a, b, { server: 'beta' });
    expect(beta.multiServer).toBe(false);
    expect(beta.items.map((item) => `${item.kind} ${item.server}`)).toEqual(['same beta']);
    expect(() => diff(a, b, { server: 'gamma', labels: ['one.jsonl', 'two.jsonl'] })).toThrow(
      'no server "gamma" in one.jsonl; it holds "alpha", "beta": choose one with the server option (--server)',
    );
  });

  it('takes a server from the meta line when the messages name none', () => {
    const a = alignTraces(
      session([echo('x')], { meta: { server: 'main' } }),
      session([echo('x')], { meta: { server: 'main' } }),
    );
    expect(a.items[0]).toMatchObject({ kind: 'same', server: 'main' });
  });

  it('aligns the exchanges pairing produced as it aligns lines', () => {
    const a = session([list([]), echo('a'), sum(1, 2)]);
    const b = session([list([]), sum(1, 3), echo('z')], { idBase: 9 });
    const side = (lines: typeof a) => {
      const paired = collectExchanges(lines);
      return [...paired.unanswered, ...paired.exchanges];
    };
    const fromExchanges = alignExchanges(side(a), side(b));
    const fromLines = alignTraces(a, b);
    expect(shape(fromExchanges.items)).toEqual(shape(fromLines.items));
    expect(fromExchanges.summary).toEqual(fromLines.summary);
  });

  it('covers every request of both traces once, in order, on random sessions', () => {
    let state = 3;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    const pick = (): Call => {
      const n = Math.floor(next() * 6);
      return n < 2 ? echo(`m${n}`) : n < 4 ? sum(n, Math.floor(next() * 2)) : list([`t${n}`]);
    };
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: Math.floor(next() * 12) }, pick);
      const b = Array.from({ length: Math.floor(next() * 12) }, pick);
      const { items, summary } = diff(a, b);
      const aSeen = items.flatMap((item) => (item.aIndex === undefined ? [] : [item.aIndex]));
      const bSeen = items.flatMap((item) => (item.bIndex === undefined ? [] : [item.bIndex]));
      expect(aSeen).toEqual(a.map((_, i) => i));
      expect(bSeen).toEqual(b.map((_, i) => i));
      expect(summary.same + summary.changed + summary.removed).toBe(a.length);
    }
  });
});
