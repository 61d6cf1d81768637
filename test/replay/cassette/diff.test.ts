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
