import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTrace, openTrace } from '../../src/trace/io.js';
import { parseSegmentName, segmentFileName, siblingCandidates } from '../../src/trace/segments.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-segments-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** Writes one segment file: its own meta line, then message lines with the given seqs. */
function segment(name: string, traceId: string, n: number, seqs: number[], end = false): void {
  const meta = { v: 1, type: 'meta', startedAt: at(0), label: 'calls', kind: 'mcp', traceId, segment: n };
  const lines = [
    meta,
    ...seqs.map((seq) => ({ t: at(seq), seq, dir: 'in', raw: { jsonrpc: '2.0', id: seq, method: 'ping' } })),
  ];
  if (end) lines.push({ t: at(99), type: 'end', durationMs: 99, reason: 'process_exit' } as never);
  writeFileSync(join(dir, name), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

/** The usual rotated set: calls.2.jsonl oldest (segment 0), calls.jsonl active (segment 2). */
function rotated(): void {
  segment('calls.2.jsonl', 'T1', 0, [1, 2]);
  segment('calls.1.jsonl', 'T1', 1, [3, 4]);
  segment('calls.jsonl', 'T1', 2, [5, 6], true);
}

describe('rotation stitching', () => {
  it.each(['calls.jsonl', 'calls.1.jsonl', 'calls.2.jsonl'])(
    'reads every segment in order when opened by %s',
    async (name) => {
      rotated();
      const trace = await loadTrace(join(dir, name), { mode: 'strict' });
      expect(trace.meta).toMatchObject({ traceId: 'T1', segment: 0 });
      expect(trace.entries.map((e) => e.line.seq ?? 'end')).toEqual([1, 2, 3, 4, 5, 6, 'end']);
      expect(trace.entries.map((e) => e.segment)).toEqual([0, 0, 1, 1, 2, 2, 2]);
      expect(trace.entries[2]).toMatchObject({ file: join(dir, 'calls.1.jsonl'), lineNo: 2 });
      expect(trace.diagnostics).toEqual([]);
    },
  );

  it('lists the segments oldest first with their own meta (a boundary marker for viewers)', async () => {
    rotated();
    const trace = await openTrace(join(dir, 'calls.jsonl'));
    expect(trace.segments.map((s) => [s.file, s.segment])).toEqual([
      [join(dir, 'calls.2.jsonl'), 0],
      [join(dir, 'calls.1.jsonl'), 1],
      [join(dir, 'calls.jsonl'), 2],
    ]);
  });

  it('ignores files of the same name stem that belong to another trace', async () => {
    rotated();
    segment('calls.3.jsonl', 'OTHER', 0, [100]);
    segment('calls.x.jsonl', 'T1', 1, [100]);
    const trace = await loadTrace(join(dir, 'calls.jsonl'));
    expect(trace.entries.map((e) => e.line.seq ?? 'end')).toEqual([1, 2, 3, 4, 5, 6, 'end']);
  });

  it('reports the oldest segments deleted by --max-files and reads the rest', async () => {
    segment('calls.1.jsonl', 'T1', 2, [5, 6]);
    segment('calls.jsonl', 'T1', 3, [7], true);
    const trace = await loadTrace(join(dir, 'calls.jsonl'));
    expect(trace.meta.segment).toBe(2);
    expect(trace.entries.map((e) => e.line.seq ?? 'end')).toEqual([5, 6, 7, 'end']);
    expect(trace.diagnostics).toEqual([
      expect.objectContaining({ code: 'segment_gap', severity: 'warning', file: join(dir, 'calls.1.jsonl') }),
    ]);
    expect(trace.diagnostics[0]?.message).toMatch(
      /segments 0-1 of trace T1 are missing \(the oldest were probably deleted/,
    );
  });

  it('reports a segment missing in the middle', async () => {
    segment('calls.2.jsonl', 'T1', 0, [1]);
    segment('calls.jsonl', 'T1', 2, [5], true);
    const trace = await loadTrace(join(dir, 'calls.jsonl'));
    expect(trace.diagnostics.map((d) => d.message)).toEqual([
      `${join(dir, 'calls.jsonl')}: segment 1 of trace T1 is missing (a file was lost); reading what is left`,
    ]);
  });

  it('does not stitch when asked not to, or when the meta has no traceId (mcp-tape)', async () => {
    rotated();
    const alone = await loadTrace(join(dir, 'calls.jsonl'), { stitch: false });
    expect(alone.entries.map((e) => e.line.seq ?? 'end')).toEqual([5, 6, 'end']);
    writeFileSync(
      join(dir, 'tape.jsonl'),
      `${JSON.stringify({ v: 1, type: 'meta', startedAt: at(0), label: 'x' })}\n`,
    );
    writeFileSync(
      join(dir, 'tape.1.jsonl'),
      `${JSON.stringify({ v: 1, type: 'meta', startedAt: at(0), label: 'x' })}\n`,
    );
    expect((await openTrace(join(dir, 'tape.jsonl'))).segments).toHaveLength(1);
  });

  it('reports a missing end only once, at the newest segment', async () => {
    segment('calls.1.jsonl', 'T1', 0, [1]);
    segment('calls.jsonl', 'T1', 1, [2]);
    const trace = await loadTrace(join(dir, 'calls.1.jsonl'));
    expect(trace.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['missing_end', join(dir, 'calls.jsonl')],
    ]);
  });
});

describe('segment names', () => {
  it('reads both meanings of a numbered name', () => {
    expect(parseSegmentName('calls.2.jsonl')).toEqual([
      { stem: 'calls', index: 2, ext: '.jsonl' },
      { stem: 'calls.2', ext: '.jsonl' },
    ]);
    expect(parseSegmentName('calls.jsonl')).toEqual([{ stem: 'calls', ext: '.jsonl' }]);
    expect(segmentFileName('calls', 3)).toBe('calls.3.jsonl');
  });

  it('finds sibling candidates by stem and extension only', () => {
    const folder = [
      '/t/calls.jsonl',
      '/t/calls.1.jsonl',
      '/t/calls.1.ndjson',
      '/t/callsx.jsonl',
      '/t/other.2.jsonl',
    ];
    expect(siblingCandidates('/t/calls.jsonl', folder)).toEqual(['/t/calls.1.jsonl']);
    expect(siblingCandidates('/t/calls.1.jsonl', folder)).toEqual(['/t/calls.jsonl']);
  });
});
