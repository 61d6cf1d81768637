/**
 * The paged search's text filter: on a trace of many blocks, a plain-text search reads only the blocks that may
 * hold the text, and still finds every row that holds it (upper or lower case, next to text outside ASCII, on the
 * last line without a newline), the same rows as a test of every line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { runFilter } from '../../src/view/paged/query.js';
import { TextFilter, trigramBits } from '../../src/view/paged/text-filter.js';
import { TraceIndex } from '../../src/view/paged/trace-index.js';
import { viewFiles } from '../../src/view/server.js';

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-text-filter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The words the calls carry: a few rare ones among many plain ones. */
function wordOf(id: number): string {
  if (id === 1234) return 'Needle-ÉCLAIR';
  if (id === 3000) return 'needle-éclair';
  if (id === 4999) return 'NEEDLE-éclair at the end';
  return `word ${id % 97} café`;
}

/** A trace of 5,000 exchanges (~1.3 MB, about twenty filter blocks); its last line has no newline. */
function writeTrace(): { file: string; lines: string[] } {
  const lines = [JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', kind: 'mcp' })];
  for (let id = 1; id <= 5000; id++) {
    const t = new Date(Date.parse('2026-01-01T00:00:00.000Z') + id * 10).toISOString();
    const params = { name: `tool_${id % 7}`, arguments: { q: wordOf(id) } };
    lines.push(
      JSON.stringify({
        t,
        seq: id * 2 - 1,
        dir: 'in',
        raw: { jsonrpc: '2.0', id, method: 'tools/call', params },
      }),
    );
    const result = { content: [{ type: 'text', text: `ok ${id}` }] };
    lines.push(JSON.stringify({ t, seq: id * 2, dir: 'out', raw: { jsonrpc: '2.0', id, result } }));
  }
  const file = join(dir, 'many.jsonl');
  writeFileSync(file, lines.join('\n'));
  return { file, lines };
}

describe('the paged search text filter', () => {
  it('names only blocks that may hold the text, and every block that does', () => {
    const { lines } = writeTrace();
    const filter = new TextFilter();
    const bytes = Buffer.from(lines.join('\n'));
    // Fed in uneven pieces, as reads of a file come.
    for (let at = 0; at < bytes.length; at += 100_003) {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + 100_003));
      filter.feed(piece, piece.length, at);
    }
    filter.finish(bytes.length);
    const ranges = filter.ranges('needle-éclair')!;
    const inRanges = (at: number) => ranges.some((r) => at >= r.start && at < r.end);
    const text = bytes.toString('latin1');
    for (const needle of ['Needle-', 'needle-', 'NEEDLE-']) {
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1))
        expect(inRanges(at), needle).toBe(true);
    }
    const read = ranges.reduce((n, r) => n + r.end - r.start, 0);
    expect(read).toBeLessThan(bytes.length / 4);
    // Every range starts at a line's start and ends at a line's end.
    for (const r of ranges) {
      expect(r.start === 0 || bytes[r.start - 1] === 10).toBe(true);
      expect(r.end === bytes.length || bytes[r.end - 1] === 10).toBe(true);
    }
  });

  it('cannot tell for text without three ASCII bytes in a row', () => {
    expect(trigramBits('ab')).toBeUndefined();
    expect(trigramBits('éçà')).toBeUndefined();
    expect(new TextFilter().ranges('é')).toBeUndefined();
    expect(trigramBits('ECHO')).toEqual(trigramBits('echo'));
  });

  it('finds the same rows as a test of every line', async () => {
    const { file, lines } = writeTrace();
    const index = await TraceIndex.open(file, viewFiles(await traceFilesFor([file])));
    await index.finished;
    for (const q of ['needle-éclair', 'NEEDLE', 'at the end', 'word 13 café', 'é', 'zz-nowhere']) {
      const { rows, error } = await runFilter(index, { q });
      expect(error).toBeUndefined();
      // Each matching request line, with its answer row next to it.
      const re = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
      const calls = lines.filter((l) => l.includes('"tools/call"') && re.test(l.slice(l.indexOf('"raw":'))));
      expect(rows!.length, q).toBe(calls.length * 2);
    }
  });
});
