/**
 * The paged search for one or two characters, which the trigram filter cannot narrow: the file's bytes are
 * searched for every spelling of the text, and the lines found are the ones the line test finds (the message part
 * only, any case, never a character outside ASCII for an ASCII letter), across reads and over long lines.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { compileSearch, runFilter } from '../../src/view/paged/query.js';
import { isShortAscii, markShortText, spellings } from '../../src/view/paged/short-search.js';
import { TraceIndex } from '../../src/view/paged/trace-index.js';
import { viewFiles } from '../../src/view/server.js';

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-short-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Words that hold the short texts in some lines only, in either case, and look-alikes outside ASCII. */
function wordOf(id: number): string {
  const words = [
    'Zq first',
    'zQ',
    'plain',
    'ſtraße',
    'Kelvin \u212a',
    'café É',
    'x:y',
    'a"b',
    'QZ',
    'nothing',
  ];
  if (id === 77) return `long ${'w'.repeat(9000)} zq`;
  return words[id % words.length]!;
}

/** A trace of 600 exchanges; a server name holds `zq` outside the message; the last line has no newline. */
function writeTrace(): string {
  const lines = [JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', kind: 'mcp' })];
  for (let id = 1; id <= 600; id++) {
    const t = new Date(Date.parse('2026-01-01T00:00:00.000Z') + id * 10).toISOString();
    const server = id % 13 === 0 ? { server: 'zq-kqz' } : {};
    const params = { name: `t${id % 3}`, arguments: { q: wordOf(id) } };
    lines.push(
      JSON.stringify({
        t,
        seq: id * 2 - 1,
        dir: 'in',
        ...server,
        raw: { jsonrpc: '2.0', id, method: 'tools/call', params },
      }),
    );
    const result = { content: [{ type: 'text', text: id % 5 === 0 ? 'vide' : 'ok' }] };
    lines.push(
      JSON.stringify({ t, seq: id * 2, dir: 'out', ...server, raw: { jsonrpc: '2.0', id, result } }),
    );
  }
  const file = join(dir, 'short.jsonl');
  writeFileSync(file, lines.join('\n'));
  return file;
}

const QUERIES = [
  'z',
  'Z',
  'q',
  'zq',
  'QZ',
  'k',
  's',
  'ß',
  'é',
  'É',
  'é ',
  ':',
  '"',
  'x:',
  'ok',
  'v',
  'è',
  '9',
];

describe('a search for one or two characters', () => {
  it('knows which texts it answers and spells them every way', () => {
    expect(isShortAscii('a')).toBe(true);
    expect(isShortAscii('a1')).toBe(true);
    expect(isShortAscii('abc')).toBe(false);
    expect(isShortAscii('é')).toBe(false);
    expect(isShortAscii('')).toBe(false);
    expect(spellings('aB').map(String)).toEqual(['ab', 'aB', 'Ab', 'AB']);
    expect(spellings('1:').map(String)).toEqual(['1:']);
  });

  it('marks the lines a test of every line marks, across small reads and a line longer than one', async () => {
    const file = writeTrace();
    const bytes = readFileSync(file);
    const lines = bytes.toString('utf8').split('\n');
    for (const q of ['z', 'zq', 'QZ', 'k', 's', ':', '"', 'x:', 'ok', 'v']) {
      const search = compileSearch({ q });
      if ('error' in search) throw new Error(search.error);
      const bits = new Uint8Array(lines.length + 2);
      await markShortText(file, bytes.length, q, bits, 4096);
      const found = [...bits.keys()].filter((i) => bits[i] === 1);
      const expected = lines.flatMap((line, i) => (search.test(line) ? [i + 1] : []));
      expect(found, q).toEqual(expected);
      expect(found.length, q).toBeGreaterThan(0);
    }
  });

  it('finds the same rows as the search read line by line, for ASCII, case and text outside ASCII', async () => {
    const file = writeTrace();
    const index = await TraceIndex.open(file, viewFiles(await traceFilesFor([file])));
    await index.finished;
    let some = 0;
    for (const q of QUERIES) {
      const fast = await runFilter(index, { q });
      // The same text as a regular expression of its escaped self: the search that reads every line.
      const slow = await runFilter(index, { q: q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), regex: true });
      expect(fast.error).toBeUndefined();
      expect(Array.from(fast.rows!), q).toEqual(Array.from(slow.rows!));
      if (fast.rows!.length > 0 && fast.rows!.length < index.rowCount) some++;
    }
    // Most texts match some rows and not others: the comparison is not between two empty or two full lists.
    expect(some).toBeGreaterThan(QUERIES.length / 2);
  });
});
