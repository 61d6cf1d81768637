import { describe, expect, it } from 'vitest';
import { childPath, diffSize, formatDiff, structuralDiff } from '../../../src/replay/cassette/diff.js';

describe('structural diff', () => {
  it('names each difference by JSON path with both sides', () => {
    const diff = structuralDiff(
      { params: { arguments: { a: 2, b: 3 }, list: [1, 2] } },
      { params: { arguments: { a: 2, b: 4 }, list: [1] } },
    );
    expect(diff.entries).toEqual([
      { path: '$.params.arguments.b', recorded: 3, live: 4 },
      { path: '$.params.list[1]', recorded: 2 },
    ]);
    expect(diff.total).toBe(2);
  });

  it('writes keys that are not identifiers in brackets', () => {
    expect(childPath('$._meta', 'io.modelcontextprotocol/clientInfo')).toBe(
      "$._meta['io.modelcontextprotocol/clientInfo']",
    );
    expect(childPath('$', "it's")).toBe("$['it\\'s']");
  });

  it('treats a change of kind as one difference at that path', () => {
    expect(structuralDiff({ a: { x: 1 } }, { a: [1] }).entries).toEqual([
      { path: '$.a', recorded: { x: 1 }, live: [1] },
    ]);
  });

  it('caps the list but keeps counting, and shortens long values', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const diff = structuralDiff(many, {}, '$', { maxEntries: 3 });
    expect(diff.entries).toHaveLength(3);
    expect(diff.total).toBe(30);
    const long = structuralDiff({ s: 'x'.repeat(200) }, { s: 'y' }, '$', { maxValueLength: 10 });
    expect(long.entries[0]!.recorded).toBe(`${'x'.repeat(10)}…`);
  });

  it('formats as one line', () => {
    const diff = structuralDiff({ a: 1, b: 2, c: 3 }, { a: 2, b: 3, c: 4 });
    expect(formatDiff(diff)).toBe('$.a: recorded 1, live 2; $.b: recorded 2, live 3; and 1 more');
    expect(formatDiff(structuralDiff({}, { a: 'x' }))).toBe('$.a: recorded absent, live "x"');
  });

  it('counts distance with a limit', () => {
    expect(diffSize({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(1);
    expect(diffSize(Array(50).fill(1), [], 10)).toBe(10);
  });
});

describe('structural diff with shown sides', () => {
  it('compares the values and shows the shown ones, a hidden subtree standing for everything in it', () => {
    const diff = structuralDiff(
      { user: { password: 'a1', name: 'ada' }, creds: { key: 'k1', id: 7 } },
      { user: { password: 'b2', name: 'bob' }, creds: { key: 'k2', id: 7 } },
      '$',
      {},
      {
        recorded: { user: { password: '[REDACTED:password]', name: 'ada' }, creds: '[REDACTED:credentials]' },
        live: { user: { password: '[REDACTED:password]', name: 'bob' }, creds: '[REDACTED:credentials]' },
      },
    );
    expect(diff.total).toBe(3);
    expect(diff.entries).toEqual([
      { path: '$.creds.key', recorded: '[REDACTED:credentials]', live: '[REDACTED:credentials]' },
      { path: '$.user.name', recorded: 'ada', live: 'bob' },
      { path: '$.user.password', recorded: '[REDACTED:password]', live: '[REDACTED:password]' },
    ]);
  });

  it('keeps an absent side absent', () => {
    const diff = structuralDiff(
      {},
      { token: 'abc' },
      '$',
      {},
      { recorded: {}, live: { token: '[REDACTED:token]' } },
    );
    expect(diff.entries).toEqual([{ path: '$.token', live: '[REDACTED:token]' }]);
  });

  it('never cuts a marker in two when it shortens a value', () => {
    const long = `${'x'.repeat(50)} [REDACTED:github-token] and more`;
    const [entry] = structuralDiff('a', long, '$', { maxValueLength: 60 }).entries;
    expect(entry!.live).toBe(`${'x'.repeat(50)} …`);
  });
});
