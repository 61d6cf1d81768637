import { describe, expect, it } from 'vitest';
import { builtInOutputRedaction } from '../../../src/redact/output.js';
import { buildCassette, requestHash } from '../../../src/replay/cassette/cassette.js';
import { Matcher, type MatchResult } from '../../../src/replay/cassette/matcher.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import { call, fixtureCassette, req, res, traceLines } from '../helpers.js';

/** A cassette of tools/call exchanges: each [name, arguments, answer text]. */
async function calls(...list: [string, JsonObject, string][]) {
  return buildCassette(
    traceLines(
      list.flatMap(([name, args, text], i) => [
        ['in', req(i, 'tools/call', call(name, args))],
        ['out', res(i, { content: [{ type: 'text', text }] })],
      ]) as never,
    ),
  );
}

function text(result: MatchResult): string {
  if (result.kind === 'miss') return `miss: ${result.miss.message}`;
  const content = (result.exchange.response!.result as { content: { text: string }[] }).content;
  return content[0]!.text;
}

describe('keyed matching (the default)', () => {
  it('serves different requests in any order', async () => {
    const matcher = new Matcher(await calls(['a', {}, 'A'], ['b', {}, 'B']));
    expect(text(matcher.match('tools/call', call('b')))).toBe('B');
    expect(text(matcher.match('tools/call', call('a')))).toBe('A');
  });

  it('serves identical requests in recorded order', async () => {
    const matcher = new Matcher(
      await calls(['roll', {}, 'first'], ['other', {}, 'x'], ['roll', {}, 'second']),
    );
    expect(text(matcher.match('tools/call', call('roll')))).toBe('first');
    expect(text(matcher.match('tools/call', call('roll')))).toBe('second');
  });

  it('misses once every recording of a request was served, and names the setting that would help', async () => {
    const matcher = new Matcher(await calls(['roll', {}, 'first']));
    matcher.match('tools/call', call('roll'));
    expect(text(matcher.match('tools/call', call('roll')))).toBe(
      "miss: no recorded answer left for tools/call roll: its one recording was already served (repeat: 'last' serves the last one again)",
    );
  });

  it('names the setting as the caller sets it, and none the caller does not offer', async () => {
    const flags = {
      repeatLast: '--repeat last',
      matchOrdered: '--match ordered',
      matchKeyed: '--match keyed',
    };
    const matcher = new Matcher(await calls(['roll', {}, 'first']), { settingNames: flags });
    matcher.match('tools/call', call('roll'));
    expect(text(matcher.match('tools/call', call('roll')))).toBe(
      'miss: no recorded answer left for tools/call roll: its one recording was already served (--repeat last serves the last one again)',
    );
    const bare = new Matcher(await calls(['roll', {}, 'first']), { settingNames: {} });
    bare.match('tools/call', call('roll'));
    expect(text(bare.match('tools/call', call('roll')))).toBe(
      'miss: no recorded answer left for tools/call roll: its one recording was already served',
    );
    const ordered = new Matcher(await calls(['a', {}, 'A'], ['b', {}, 'B']), {
      match: 'ordered',
      settingNames: flags,
    });
    expect(text(ordered.match('tools/call', call('b')))).toBe(
      'miss: out of order: got tools/call b, expected tools/call a next (--match ordered; --match keyed accepts any order)',
    );
  });

  it("serves the last recording again with repeat: 'last'", async () => {
    const matcher = new Matcher(await calls(['roll', {}, 'first'], ['roll', {}, 'second']), {
      repeat: 'last',
    });
    const served = [1, 2, 3, 4].map(() => matcher.match('tools/call', call('roll')));
    expect(served.map(text)).toEqual(['first', 'second', 'second', 'second']);
    expect(served.map((r) => r.kind === 'hit' && r.repeated)).toEqual([false, false, true, true]);
    expect(matcher.report().repeats).toBe(2);
  });
});

describe('ordered matching', () => {
  it('demands the recorded order and names the expected request', async () => {
    const matcher = new Matcher(await calls(['a', {}, 'A'], ['b', { n: 1 }, 'B']), { match: 'ordered' });
    expect(text(matcher.match('tools/call', call('b', { n: 1 })))).toBe(
      "miss: out of order: got tools/call b {\"n\":1}, expected tools/call a next (match: 'ordered'; match: 'keyed' accepts any order)",
    );
    expect(text(matcher.match('tools/call', call('a')))).toBe('A');
    expect(text(matcher.match('tools/call', call('b', { n: 1 })))).toBe('B');
  });

  it('mentions the expected request when nothing matches', async () => {
    const matcher = new Matcher(await calls(['a', {}, 'A']), { match: 'ordered' });
    expect(text(matcher.match('tools/call', call('z')))).toMatch(/; expected next: tools\/call a$/);
  });
});

describe('misses', () => {
  it('name the closest recorded request and where it differs', async () => {
    const matcher = new Matcher(
      await calls(
        ['echo', { message: 'hi' }, 'e'],
        ['get-sum', { a: 2, b: 3 }, '5'],
        ['get-sum', { a: 9, b: 9 }, '18'],
      ),
    );
    const result = matcher.match('tools/call', call('get-sum', { a: 2, b: 4 }));
    expect(text(result)).toBe(
      'miss: no recorded answer for tools/call get-sum {"a":2,"b":4}; closest: tools/call get-sum {"a":2,"b":3} (differs at $.params.arguments.b: recorded 3, live 4)',
    );
    if (result.kind !== 'miss') throw new Error('expected a miss');
    expect(result.miss.reason).toBe('unknown');
    expect(result.miss.closest?.ordinal).toBe(1);
    expect(result.miss.diff?.entries).toEqual([{ path: '$.params.arguments.b', recorded: 3, live: 4 }]);
  });

  it('prefer a request of the same method, even when another is structurally nearer', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'prompts/get', { name: 'p', arguments: {} })],
        ['out', res(1, {})],
        ['in', req(2, 'tools/call', call('q', { long: 'list', of: 'args', here: 1 }))],
        ['out', res(2, {})],
      ]),
    );
    const result = new Matcher(cassette).match('tools/call', call('p'));
    expect(result.kind === 'miss' && result.miss.closest?.method).toBe('tools/call');
  });

  it('are counted in the report, with the unused exchanges', async () => {
    const matcher = new Matcher(await calls(['a', {}, 'A'], ['b', { x: 1 }, 'B'], ['c', {}, 'C']));
    matcher.match('tools/call', call('a'));
    matcher.match('tools/call', call('nope'));
    const report = matcher.report();
    expect(report).toMatchObject({ used: 1, total: 3, repeats: 0 });
    expect(report.misses).toHaveLength(1);
    expect(report.unused.map((u) => u.summary)).toEqual(['tools/call b {"x":1}', 'tools/call c']);
    expect(report.summary).toBe(
      'used 1 of 3 recorded exchanges; unused: #1 tools/call b {"x":1}, #2 tools/call c',
    );
    expect(matcher.done).toBe(false);
  });

  it('point the report at the line of each unused exchange in the trace file', async () => {
    const matcher = new Matcher(await fixtureCassette('mcporter/everything-get-sum.ndjson'));
    matcher.match('initialize', {});
    matcher.match('tools/list', undefined);
    expect(matcher.report().summary).toBe(
      'used 2 of 3 recorded exchanges; unused: #2 tools/call get-sum {"a":2,"b":3} (line 8)',
    );
  });
});

describe('misses and the unused list, shown with secrets hidden', () => {
  const TOKEN = 'ghp_Zq4Rt8Wm2Np6Ks0Lx3Vb7Hc1Jd5Fg9Ty2Ue4';
  const shown = builtInOutputRedaction();

  it('name the request and the closest one redacted, and still tell two secrets apart', async () => {
    const matcher = new Matcher(await calls(['login', { user: 'ada', password: 'hunter2-old' }, 'ok']), {
      shown,
    });
    const result = matcher.match('tools/call', call('login', { user: 'ada', password: 'Tr0ub4dor&3' }));
    if (result.kind !== 'miss') throw new Error('expected a miss: the passwords differ');
    expect(result.miss.message).toBe(
      'no recorded answer for tools/call login {"password":"[REDACTED:password]","user":"ada"}; closest: tools/call login {"password":"[REDACTED:password]","user":"ada"} (differs at $.params.arguments.password: recorded "[REDACTED:password]", live "[REDACTED:password]")',
    );
    expect(result.miss.shown.params).toEqual({
      name: 'login',
      arguments: { user: 'ada', password: '[REDACTED:password]' },
    });
    // What was asked stays as it was asked, for whoever handles the miss in process.
    expect(result.miss.request.params).toEqual({
      name: 'login',
      arguments: { user: 'ada', password: 'Tr0ub4dor&3' },
    });
  });

  it('list unused exchanges with their secrets hidden', async () => {
    const matcher = new Matcher(await calls(['fetch', { url: `https://x.example/?token=${TOKEN}` }, 'ok']), {
      shown,
    });
    expect(matcher.report().unused.map((u) => u.summary)).toEqual([
      'tools/call fetch {"url":"https://x.example/?token=[REDACTED:github-token]"}',
    ]);
  });
});

describe('normalization in matching', () => {
  it('ignores the paths it is told to', async () => {
    const cassette = await calls(['now', { tz: 'UTC', timestamp: 1 }, 'then']);
    expect(new Matcher(cassette).match('tools/call', call('now', { tz: 'UTC', timestamp: 2 })).kind).toBe(
      'miss',
    );
    const lenient = new Matcher(cassette, { ignore: ['$.params.arguments.timestamp'] });
    expect(text(lenient.match('tools/call', call('now', { tz: 'UTC', timestamp: 2 })))).toBe('then');
  });

  it('matches initialize from a different client build', async () => {
    const cassette = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    const result = new Matcher(cassette).match('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'someone-else', version: '42' },
    });
    expect(result.kind === 'hit' && result.exchange.ordinal).toBe(0);
  });

  it('lets custom matchers accept what the key would not, and veto what it would', async () => {
    const cassette = await calls(
      ['search', { q: 'cats', page: 1 }, 'cats!'],
      ['search', { q: 'dogs' }, 'dogs!'],
    );
    const sameQuery = (live: { params: JsonObject }, rec: { params: JsonObject }) =>
      (live.params.arguments as JsonObject).q === (rec.params.arguments as JsonObject).q;
    const matcher = new Matcher(cassette, { matchers: [sameQuery] });
    expect(text(matcher.match('tools/call', call('search', { q: 'cats', page: 7 })))).toBe('cats!');
    const never = new Matcher(cassette, { matchers: [() => false] });
    expect(never.match('tools/call', call('search', { q: 'dogs' })).kind).toBe('miss');
  });
});

describe('the 2026-07-28 era', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'another-client', version: '2.0.0' },
  };

  it('answers server/discover whatever it carries, as often as it is asked', async () => {
    const matcher = new Matcher(await fixtureCassette('era2026/era2026-stdio.jsonl'));
    for (let i = 0; i < 3; i++) {
      const result = matcher.match('server/discover', { _meta: meta });
      expect(result.kind === 'hit' && result.exchange.method).toBe('server/discover');
    }
  });

  it('serves multi-round-trip retries round by round, whatever requestState they echo', async () => {
    const matcher = new Matcher(await fixtureCassette('era2026/era2026-stdio.jsonl'));
    const deploy = (extra: JsonObject) => call('deploy', { env: 'prod' }, { ...extra, _meta: meta });
    const rounds = [
      matcher.match('tools/call', deploy({})),
      matcher.match(
        'tools/call',
        deploy({ inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }),
      ),
      matcher.match(
        'tools/call',
        deploy({
          inputResponses: { region: { action: 'accept', content: { region: 'eu-west-1' } } },
          requestState: 'v1.a-state-from-another-run',
        }),
      ),
    ];
    expect(rounds.map((r) => (r.kind === 'hit' ? r.exchange.mrtr?.round : r.miss.message))).toEqual([
      0, 1, 2,
    ]);
    const last = rounds[2]!;
    expect(last.kind === 'hit' && last.exchange.outcome).toBe('ok');
  });

  it('sends a retry to the round after the one whose requestState it echoes', async () => {
    // Two identical chains recorded back to back; the live client finishes the second one first.
    const retry = (id: number, state: string) =>
      req(
        id,
        'tools/call',
        call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: state }),
      );
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'tools/call', call('ship'))],
        ['out', res(1, { resultType: 'input_required', requestState: 'S1' })],
        ['in', req(2, 'tools/call', call('ship'))],
        ['out', res(2, { resultType: 'input_required', requestState: 'S2' })],
        ['in', retry(3, 'S1')],
        ['out', res(3, { content: [{ type: 'text', text: 'one' }] })],
        ['in', retry(4, 'S2')],
        ['out', res(4, { content: [{ type: 'text', text: 'two' }] })],
      ]),
    );
    const matcher = new Matcher(cassette);
    matcher.match('tools/call', call('ship'));
    matcher.match('tools/call', call('ship'));
    const answer = (state: string) =>
      matcher.match(
        'tools/call',
        call('ship', {}, { inputResponses: { ok: { action: 'accept' } }, requestState: state }),
      );
    expect(text(answer('S2'))).toBe('two');
    expect(text(answer('S1'))).toBe('one');
  });
});

describe('requests whose hashes collide', () => {
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

  it('keep separate queues, each served its own recorded answer in order', async () => {
    const [a, b] = collidingNames();
    expect(requestHash({ method: 'tools/call', params: call(a) })).toBe(
      requestHash({ method: 'tools/call', params: call(b) }),
    );
    const matcher = new Matcher(await calls([a, {}, 'A1'], [b, {}, 'B1'], [a, {}, 'A2'], [b, {}, 'B2']));
    expect(text(matcher.match('tools/call', call(b)))).toBe('B1');
    expect(text(matcher.match('tools/call', call(a)))).toBe('A1');
    expect(text(matcher.match('tools/call', call(a)))).toBe('A2');
    expect(text(matcher.match('tools/call', call(b)))).toBe('B2');
    expect(matcher.match('tools/call', call(a)).kind).toBe('miss');
  });
});

describe('server/discover, which a stdio client may ask in a probe process of its own', () => {
  async function withDiscover() {
    return buildCassette(
      traceLines([
        ['in', req('d', 'server/discover', {})],
        ['out', res('d', { supportedVersions: ['2026-07-28'], capabilities: {} })],
        ['in', req(1, 'tools/call', call('a'))],
        ['out', res(1, { content: [{ type: 'text', text: 'A' }] })],
      ] as never),
    );
  }

  it('is neither listed nor counted when nobody asked it', async () => {
    const matcher = new Matcher(await withDiscover());
    expect(text(matcher.match('tools/call', call('a')))).toBe('A');
    const report = matcher.report();
    expect(report.unused).toEqual([]);
    expect([report.used, report.total]).toEqual([1, 1]);
  });

  it('counts when it was asked', async () => {
    const matcher = new Matcher(await withDiscover());
    expect(matcher.match('server/discover', {}).kind).toBe('hit');
    expect(text(matcher.match('tools/call', call('a')))).toBe('A');
    expect([matcher.report().used, matcher.report().total]).toEqual([2, 2]);
  });

  it('stands outside the order that ordered matching demands, asked or not', async () => {
    const skipped = new Matcher(await withDiscover(), { match: 'ordered' });
    expect(text(skipped.match('tools/call', call('a')))).toBe('A');
    const late = new Matcher(await withDiscover(), { match: 'ordered' });
    expect(text(late.match('tools/call', call('a')))).toBe('A');
    expect(late.match('server/discover', {}).kind).toBe('hit');
  });
});
