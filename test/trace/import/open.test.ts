import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TapedeckError } from '../../../src/base/errors.js';
import { memoryTraceFiles } from '../../../src/trace/import/files.js';
import { openTraceWith } from '../../../src/trace/import/open.js';
import { loadTrace, openTrace } from '../../../src/trace/io.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-open-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const T = '2026-01-01T00:00:00.000Z';
const META = JSON.stringify({
  v: 1,
  type: 'meta',
  startedAt: T,
  label: 'x',
  producer: { name: 'tapedeck', version: '0' },
});
const msg = (seq: number) =>
  JSON.stringify({ t: T, seq, dir: 'in', raw: { jsonrpc: '2.0', id: seq, method: 'ping' } });
const END = JSON.stringify({ t: T, type: 'end', durationMs: 0, reason: 'process_exit' });

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function failure(promise: Promise<unknown>): Promise<TapedeckError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TapedeckError);
  return error as TapedeckError;
}

describe('openTrace', () => {
  it('reads a complete tapedeck trace without diagnostics', async () => {
    const trace = await loadTrace(file('t.jsonl', `${[META, msg(1), msg(2), END].join('\n')}\n`));
    expect(trace.format).toBe('tapedeck');
    expect(trace.entries.map((e) => [e.lineNo, e.line.type ?? e.line.dir])).toEqual([
      [2, 'in'],
      [3, 'in'],
      [4, 'end'],
    ]);
    expect(trace.diagnostics).toEqual([]);
  });

  it('reports a missing end line (the recorder died) without failing, even in strict mode', async () => {
    const path = file('t.jsonl', `${[META, msg(1), msg(2)].join('\n')}\n`);
    const trace = await loadTrace(path, { mode: 'strict' });
    expect(trace.entries).toHaveLength(2);
    expect(trace.diagnostics).toEqual([
      {
        code: 'missing_end',
        severity: 'warning',
        file: path,
        message: `${path}: no end line: the recorder stopped without finishing (crashed or killed); read as far as it goes`,
      },
    ]);
  });

  it('reports a cut-off last line and a missing end, and keeps everything before them', async () => {
    const path = file(
      't.jsonl',
      `${[META, msg(1), msg(2)].join('\n')}\n{"t":"${T}","seq":3,"dir":"in","raw":{"jsonr`,
    );
    const trace = await loadTrace(path, { mode: 'strict' });
    expect(trace.entries.map((e) => e.line.seq)).toEqual([1, 2]);
    expect(trace.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['truncated_line', 4],
      ['missing_end', undefined],
    ]);
  });

  it('reports a corrupt middle line with its number; strict mode fails on it', async () => {
    const path = file('t.jsonl', `${[META, msg(1), '{"t":', msg(2), END].join('\n')}\n`);
    const lenient = await loadTrace(path);
    expect(lenient.entries.map((e) => e.line.seq ?? 'end')).toEqual([1, 2, 'end']);
    expect(lenient.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(
        new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON \\(`),
      ),
    ]);
    const error = await failure(loadTrace(path, { mode: 'strict' }));
    expect(error.code).toBe('corrupt_trace');
    expect(error.message).toMatch(/t\.jsonl:3: not valid JSON \(/);
  });

  it('ignores unknown line types and fields', async () => {
    const odd = JSON.stringify({ t: T, seq: 2, type: 'telemetry', data: 1 });
    const extra = JSON.stringify({ t: T, seq: 3, dir: 'out', raw: { id: 1, result: {} }, future: 'yes' });
    const trace = await loadTrace(file('t.jsonl', `${[META, msg(1), odd, extra, END].join('\n')}\n`), {
      mode: 'strict',
    });
    expect(trace.entries.map((e) => e.line.seq ?? 'end')).toEqual([1, 3, 'end']);
    expect(trace.entries[1]?.line.future).toBe('yes');
    expect(trace.diagnostics).toEqual([]);
  });

  it('reads a trace whose meta line is gone, with a warning', async () => {
    const path = file('headless.jsonl', `${[msg(1), END].join('\n')}\n`);
    const trace = await loadTrace(path);
    expect(trace.format).toBe('tapedeck');
    expect(trace.meta).toMatchObject({ label: 'headless', startedAt: T });
    expect(trace.diagnostics.map((d) => d.code)).toEqual(['missing_meta']);
  });

  it('reads lines() again from the start, with fresh diagnostics each pass', async () => {
    const trace = await openTrace(file('t.jsonl', `${[META, msg(1)].join('\n')}\n`));
    for (let pass = 0; pass < 2; pass++) {
      let n = 0;
      for await (const _ of trace.lines()) n++;
      expect(n).toBe(1);
      expect(trace.diagnostics.map((d) => d.code)).toEqual(['missing_end']);
    }
  });

  it('fails with not_found for a missing file', async () => {
    const path = join(dir, 'nope.jsonl');
    const error = await failure(openTrace(path));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(`no such trace file: ${path}`);
  });

  it('fails with is_directory for a folder', async () => {
    mkdirSync(join(dir, 'sub'));
    const error = await failure(openTrace(join(dir, 'sub')));
    expect(error.code).toBe('is_directory');
    expect(error.message).toBe(
      `${join(dir, 'sub')} is a directory: expected a trace file (.jsonl, .ndjson or .json)`,
    );
  });

  it('fails with unknown_format naming the file and the formats it reads', async () => {
    for (const [name, text, what] of [
      ['notes.txt', 'hello\nworld\n', 'is in no format tapedeck reads'],
      ['empty.jsonl', '\n\n', 'is empty'],
      ['other.json', '{"some": "document"}', 'is in no format tapedeck reads'],
      ['rows.jsonl', '{"a":1}\n{"b":2}\n', 'is in no format tapedeck reads'],
    ] as const) {
      const path = file(name, text);
      const error = await failure(openTrace(path));
      expect(error.code).toBe('unknown_format');
      expect(error.message).toMatch(
        new RegExp(`^.*${name} ${what}: expected tapedeck/mcp-tape JSONL .*mcporter NDJSON`),
      );
      expect(error.message).not.toContain('\n');
    }
  });

  it('detects a one-line shack document and a bare array of events', async () => {
    const event = { request: { method: 'ping' }, response: { result: {} }, timestamp: T };
    const files = memoryTraceFiles({
      'a.json': JSON.stringify({ name: 'a', trajectory: [event] }),
      'b.json': JSON.stringify([event, { req: { method: 'notifications/initialized' } }]),
    });
    const a = await openTraceWith(files, 'a.json');
    expect([a.format, a.meta.label]).toEqual(['shack', 'a']);
    const b = await openTraceWith(files, 'b.json');
    const lines = [];
    for await (const { line } of b.lines()) lines.push(line);
    expect(lines.map((l) => (l.type === undefined ? l.raw : l.type))).toEqual([
      { jsonrpc: '2.0', method: 'ping', id: 1 },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      'end',
    ]);
  });

  it('can be forced to a format', async () => {
    const files = memoryTraceFiles({ 'x.bin': `${[META, msg(1), END].join('\n')}\n` });
    expect((await openTraceWith(files, 'x.bin', { format: 'mcp-tape' })).format).toBe('tapedeck');
    await expect(openTraceWith(files, 'x.bin', { format: 'shack' })).rejects.toMatchObject({
      code: 'unknown_format',
    });
  });
});
