import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GrowingBytes } from '../../../viewer/src/data/growing.js';
import { displayName, loadFiles } from '../../../viewer/src/data/load.js';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { inputs, jsonl, openModel } from '../open-model.js';
import { expectedRows, MCP_TAPE, MCPORTER, writeRotatedTrace } from '../traces.js';
import { at } from './sample.js';

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The rotated trace's two segments, by their names, in one virtual folder. */
function rotated(folder = 'd0'): { files: Record<string, string>; rows: number } {
  const written = writeRotatedTrace(dir);
  const files: Record<string, string> = {};
  for (const file of written.files) files[`${folder}/${basename(file)}`] = readFileSync(file, 'utf8');
  return { files, rows: written.rows };
}

/** A native trace of `calls` ping exchanges. */
function pings(calls: number): string {
  const lines: object[] = [
    { v: 1, type: 'meta', startedAt: at(0), label: 'pings', kind: 'mcp', transport: 'stdio' },
  ];
  for (let i = 1; i <= calls; i++) {
    lines.push({ t: at(i), seq: 2 * i - 1, dir: 'in', raw: { jsonrpc: '2.0', id: i, method: 'ping' } });
    lines.push({ t: at(i), seq: 2 * i, dir: 'out', raw: { jsonrpc: '2.0', id: i, result: {} } });
  }
  return jsonl(lines);
}

/** Resolves at the first change the model announces after which `ready` holds (at once if it already does). */
function changeWhere(model: TraceModel, ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (ready()) return resolve();
    const stop = model.subscribe(() => {
      if (!ready()) return;
      stop();
      resolve();
    });
  });
}

describe('reading files into the viewer', () => {
  it('stitches rotated segments given together into one trace, named by its newest file', async () => {
    const { files, rows } = rotated();
    // Given newest first or oldest first, the trace is read once, in segment order.
    const model = await openModel({
      'd0/calc.jsonl': files['d0/calc.jsonl']!,
      'd0/calc.1.jsonl': files['d0/calc.1.jsonl']!,
    });
    expect(model.sources).toHaveLength(1);
    const source = model.sources[0]!;
    expect(source.info.name).toBe('calc.jsonl');
    expect(source.info.format).toBe('tapedeck');
    expect(source.rows).toHaveLength(rows);
    expect(source.rows.map((r) => r.file)).toContain('d0/calc.1.jsonl');
    expect(source.info.files.map((f) => f.path)).toEqual(['d0/calc.1.jsonl', 'd0/calc.jsonl']);
    expect(JSON.parse(source.info.files[1]!.line(1))).toMatchObject({ type: 'meta', segment: 1 });
    expect(source.ended).toBe(true);
    expect(model.loading).toBeUndefined();
  });

  it('keeps files of different folders apart, and merges traces of other formats beside them', async () => {
    const a = rotated('d0');
    const model = await openModel({
      ...a.files,
      'd1/calc.jsonl': a.files['d0/calc.jsonl']!,
      'd2/everything-get-sum.ndjson': readFileSync(MCPORTER, 'utf8'),
    });
    expect(model.sources.map((s) => [s.info.name, s.info.format])).toEqual([
      ['calc.jsonl', 'tapedeck'],
      ['calc.jsonl', 'tapedeck'],
      ['everything-get-sum.ndjson', 'mcporter'],
    ]);
    expect(model.sources[2]!.rows).toHaveLength(expectedRows(readFileSync(MCPORTER, 'utf8'), 'mcporter'));
    // The lone second segment says its first segment is missing.
    expect(model.sources[1]!.diagnostics.map((d) => d.message).join('\n')).toMatch(/segment/);
  });

  it('turns a file it cannot read into one line naming it, and opens the rest', async () => {
    const model = await openModel({
      'd0/notes.txt': 'hello\n',
      'd1/everything-stdio.jsonl': readFileSync(MCP_TAPE, 'utf8'),
      'd2/empty.jsonl': '',
    });
    expect(model.failures).toEqual([
      expect.stringMatching(/^notes\.txt: d0\/notes\.txt is in no format tapedeck reads: expected tapedeck/),
      expect.stringMatching(/^empty\.jsonl: d2\/empty\.jsonl is empty: expected tapedeck/),
    ]);
    expect(model.sources.map((s) => s.info.name)).toEqual(['everything-stdio.jsonl']);
    expect(model.rows()).toHaveLength(expectedRows(readFileSync(MCP_TAPE, 'utf8')));
  });

  it('reads a download while it arrives, to the same rows as the whole file', async () => {
    const text = pings(300);
    const whole = await openModel({ 'd0/pings.jsonl': text });
    const growing = new GrowingBytes();
    const model = new TraceModel();
    const loading = loadFiles([{ path: 'd0/pings.jsonl', size: text.length, bytes: growing }], model);
    const all = new TextEncoder().encode(text);
    for (let at = 0; at < all.length; at += 997) {
      growing.push(all.subarray(at, at + 997));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    growing.finish();
    await loading;
    expect(model.rows().map((r) => r.key)).toEqual(whole.rows().map((r) => r.key));
    expect(model.sources[0]!.info.files[0]!.lineCount()).toBe(601);
  });

  it('shows the rows read so far while a download stalls, however little was read', async () => {
    const text = new TextEncoder().encode(pings(20));
    const growing = new GrowingBytes();
    // Twenty calls but the last answer, then nothing for as long as the download likes: too little to fill a
    // reading slice.
    const cut = text.lastIndexOf(10, text.length - 2) + 1;
    growing.push(text.subarray(0, cut));
    const model = new TraceModel();
    // However quickly they were read: with the reader's clock stopped, no slice ever runs long.
    const now = vi.spyOn(performance, 'now').mockReturnValue(1000);
    try {
      const loading = loadFiles([{ path: 'd0/pings.jsonl', size: text.length, bytes: growing }], model);
      await changeWhere(model, () => model.sources[0]?.rows.length === 39 && model.loading !== undefined);
      growing.push(text.subarray(cut));
      growing.finish();
      await loading;
    } finally {
      now.mockRestore();
    }
    expect(model.sources[0]!.rows).toHaveLength(40);
  });

  it('stops reading, and leaves the model alone, once the page has moved on', async () => {
    // The first half of the file arrives and is read; the page moves on before the rest comes.
    const text = new TextEncoder().encode(pings(1500));
    const half = text.indexOf(10, text.length / 2) + 1;
    const firstRows = text.subarray(0, half).filter((byte) => byte === 10).length - 1;
    const growing = new GrowingBytes();
    growing.push(text.subarray(0, half));
    const model = new TraceModel();
    const abort = new AbortController();
    const loading = loadFiles(
      [{ path: 'd0/pings.jsonl', size: text.length, bytes: growing }],
      model,
      abort.signal,
    );
    // The page is told of the rows read before the download stalled (the progress note with them), however long
    // reading them takes: it waits for that change, not for a clock.
    await changeWhere(
      model,
      () => model.sources[0]?.rows.length === firstRows && model.loading !== undefined,
    );
    abort.abort();
    growing.push(text.subarray(half));
    growing.finish();
    await loading;
    expect(model.sources[0]!.rows).toHaveLength(firstRows);
    expect(firstRows).toBeLessThan(3000);
    // Still as the page left it: nothing says the abandoned reading finished.
    expect(model.loading).toBeDefined();
  });

  it('names a file without its virtual folder', () => {
    expect(displayName('d0/calc.1.jsonl')).toBe('calc.1.jsonl');
    expect(displayName('local/a b.ndjson')).toBe('a b.ndjson');
    expect(displayName('plain.jsonl')).toBe('plain.jsonl');
    expect(inputs({ 'x/y.jsonl': 'a' })[0]!.bytes).toEqual(new Uint8Array([97]));
  });
});
