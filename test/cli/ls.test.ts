import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listTraces } from '../../src/sink/trace-list.js';
import { displayWidth } from '../../src/trace/text-width.js';
import { useCliHarness } from '../helpers/cli.js';

// A terminal wide enough for the table whole; how it fits 80 columns, and what a pipe gets, is tested on its own.
const io = useCliHarness('tapedeck-ls-', { env: { COLUMNS: '160', NO_COLOR: '1' }, tty: true });

interface TraceSpec {
  label: string;
  startedAt: string;
  transport?: string;
  calls?: number;
  /** JSON-RPC errors among the answers. */
  failures?: number;
  end?: 'counted' | 'uncounted' | 'none';
  traceId?: string;
  segment?: number;
}

/** A trace as a recorder writes it: meta, a request and an answer per call, the end line with its counts. */
function traceText(spec: TraceSpec): string {
  const t0 = Date.parse(spec.startedAt);
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const lines: object[] = [
    {
      v: 1,
      type: 'meta',
      startedAt: spec.startedAt,
      label: spec.label,
      transport: spec.transport ?? 'stdio',
      kind: 'mcp',
      traceId: spec.traceId ?? `${spec.label}-id`,
      segment: spec.segment ?? 0,
    },
  ];
  const calls = spec.calls ?? 1;
  const failures = spec.failures ?? 0;
  for (let i = 1; i <= calls; i++) {
    lines.push({ t: at(i * 10), seq: i * 2 - 1, dir: 'in', raw: { jsonrpc: '2.0', id: i, method: 'ping' } });
    const answer = i <= failures ? { error: { code: -32601, message: 'nope' } } : { result: {} };
    lines.push({ t: at(i * 10 + 5), seq: i * 2, dir: 'out', raw: { jsonrpc: '2.0', id: i, ...answer } });
  }
  const durationMs = calls * 10 + 20;
  if (spec.end !== 'none') {
    const counts =
      spec.end === 'uncounted'
        ? { in: calls, out: calls }
        : { in: calls, out: calls, errors: failures, toolErrors: 0 };
    lines.push({ t: at(durationMs), type: 'end', durationMs, reason: 'process_exit', counts });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

function write(dir: string, name: string, spec: TraceSpec): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, traceText(spec));
  return path;
}

describe('tapedeck ls', () => {
  it('lists the traces of a folder newest first, with what each end line says', async () => {
    const dir = join(io.dir, 'traces');
    write(dir, 'older.jsonl', {
      label: 'older',
      startedAt: '2026-03-01T10:00:00.000Z',
      calls: 3,
      failures: 1,
    });
    write(dir, 'newer.jsonl', { label: 'newer', startedAt: '2026-03-02T09:30:00.000Z', transport: 'http' });
    write(dir, 'live.jsonl', { label: 'live', startedAt: '2026-03-01T12:00:00.000Z', calls: 2, end: 'none' });
    writeFileSync(join(dir, 'notes.jsonl'), '{"not":"a trace"}\n');
    writeFileSync(join(dir, 'readme.txt'), 'hello\n');
    expect(await io.run(['ls', dir])).toBe(0);
    const rows = io.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(
      /^started \(UTC\)\s+label\s+transport\s+duration\s+messages\s+errors\s+size\s+file$/,
    );
    expect(rows[1]).toMatch(/^2026-03-02 09:30:00\s+newer\s+http\s+0\.030s\s+2\s+0\s+\d+ B\s+newer\.jsonl$/);
    // No end line yet: the duration so far (to its last line), marked, and counted from the (small) file.
    expect(rows[2]).toMatch(/^2026-03-01 12:00:00\s+live\s+stdio\s+0\.025s…\s+4\s+0\s+\d+ B\s+live\.jsonl$/);
    expect(rows[3]).toMatch(/^2026-03-01 10:00:00\s+older\s+stdio\s+0\.050s\s+6\s+1\s+\d+ B\s+older\.jsonl$/);
    expect(rows[4]).toMatch(/no end line yet/);
    expect(rows).toHaveLength(5);
    expect(io.stderr).toBe('');
  });

  it('fits 80 columns: each trace a block when the table cannot fit, nothing left out', async () => {
    io.env.COLUMNS = '80';
    const dir = join(io.dir, 'traces');
    write(dir, 'everything-20260302-093000.jsonl', {
      label: 'a label of some length',
      startedAt: '2026-03-02T09:30:00.000Z',
    });
    expect(await io.run(['ls', dir])).toBe(0);
    const lines = io.stdout.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(io.stdout).toContain('2026-03-02 09:30:00');
    expect(io.stdout).toContain('a label of some length');
    expect(io.stdout).toContain('everything-20260302-093000.jsonl');
  });

  it('prints one tab-separated line per trace in a pipe, the fields of --json in order, notes on stderr', async () => {
    io.tty = false;
    io.env.COLUMNS = '40';
    const dir = join(io.dir, 'traces');
    const older = write(dir, 'a-very-long-file-name-that-a-table-would-wrap.jsonl', {
      label: 'a label\twith a tab and words enough to wrap',
      startedAt: '2026-03-01T10:00:00.000Z',
      calls: 3,
      failures: 1,
    });
    const live = write(dir, 'live.jsonl', {
      label: 'live',
      startedAt: '2026-03-02T12:00:00.000Z',
      end: 'none',
    });
    write(dir, 'oldest.jsonl', { label: 'oldest', startedAt: '2026-02-01T12:00:00.000Z' });
    expect(await io.run(['ls', dir, '--limit', '2'])).toBe(0);
    const lines = io.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => line.split('\t'))).toEqual([
      [
        '2026-03-02T12:00:00.000Z',
        'live',
        'stdio',
        '15',
        'false',
        '2',
        '0',
        expect.stringMatching(/^\d+$/),
        live,
      ],
      [
        '2026-03-01T10:00:00.000Z',
        'a label with a tab and words enough to wrap',
        'stdio',
        '50',
        'true',
        '6',
        '1',
        expect.stringMatching(/^\d+$/),
        older,
      ],
    ]);
    expect(io.stderr).toBe('tapedeck: 1 older trace not shown (--all)\n');
  });

  it('--json gives every field for scripts, paths absolute', async () => {
    const dir = join(io.dir, 'traces');
    const path = write(dir, 'one.jsonl', {
      label: 'one',
      startedAt: '2026-03-01T10:00:00.000Z',
      calls: 2,
      failures: 2,
    });
    expect(await io.run(['ls', dir, '--json'])).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual([
      {
        path,
        files: [path],
        startedAt: '2026-03-01T10:00:00.000Z',
        label: 'one',
        transport: 'stdio',
        traceId: 'one-id',
        durationMs: 40,
        ended: true,
        messages: 4,
        errors: 2,
        size: traceText({ label: 'one', startedAt: '2026-03-01T10:00:00.000Z', calls: 2, failures: 2 })
          .length,
      },
    ]);
  });

  it('folds rotated segments into one row under the active file, sizes added up', async () => {
    const dir = join(io.dir, 'traces');
    const old = write(dir, 'run.1.jsonl', {
      label: 'run',
      startedAt: '2026-03-01T10:00:00.000Z',
      end: 'none',
      traceId: 'rot',
    });
    const active = write(dir, 'run.jsonl', {
      label: 'run',
      startedAt: '2026-03-01T10:00:00.000Z',
      traceId: 'rot',
      segment: 1,
    });
    const [listed, ...rest] = listTraces(dir);
    expect(rest).toEqual([]);
    expect(listed).toMatchObject({ path: active, files: [active, old].sort() });
    expect(listed?.size).toBe(
      traceText({ label: 'run', startedAt: '2026-03-01T10:00:00.000Z', end: 'none', traceId: 'rot' }).length +
        traceText({ label: 'run', startedAt: '2026-03-01T10:00:00.000Z', traceId: 'rot', segment: 1 }).length,
    );
  });

  it('reads only the first and the last line of a big trace', async () => {
    const dir = join(io.dir, 'traces');
    const path = join(dir, 'big.jsonl');
    const spec = { label: 'big', startedAt: '2026-03-01T10:00:00.000Z', calls: 1 };
    const [meta, ...rest] = traceText(spec).trimEnd().split('\n');
    mkdirSync(dir);
    writeFileSync(path, `${meta}\n`);
    // 4 MB of lines no reader could parse: a listing that read them would report or choke on them.
    const junk = `${'{"t":"x", this is not json '.repeat(40)}\n`;
    for (let i = 0; i < 4; i++) appendFileSync(path, junk.repeat(Math.ceil((1 << 20) / junk.length)));
    appendFileSync(path, `${rest.join('\n')}\n`);
    // A big trace whose end line has no error count (an older recorder) shows '?' rather than being read whole.
    const older = join(dir, 'older.jsonl');
    const [oldMeta, ...oldRest] = traceText({
      ...spec,
      label: 'older',
      startedAt: '2026-02-01T10:00:00.000Z',
      end: 'uncounted',
    })
      .trimEnd()
      .split('\n');
    writeFileSync(older, `${oldMeta}\n`);
    for (let i = 0; i < 4; i++) appendFileSync(older, junk.repeat(Math.ceil((1 << 20) / junk.length)));
    appendFileSync(older, `${oldRest.join('\n')}\n`);
    const traces = listTraces(dir);
    expect(traces.map((t) => [t.meta.label, t.messages, t.errors, t.durationMs])).toEqual([
      ['big', 2, 0, 30],
      ['older', 2, undefined, 30],
    ]);
    expect(await io.run(['ls', dir])).toBe(0);
    expect(io.stdout).toMatch(/older\s+stdio\s+0\.030s\s+2\s+\?/);
  });

  it('lists the recording folder by default ($TAPEDECK_DIR), --limit and --all', async () => {
    const dir = join(io.dir, 'default');
    io.env.TAPEDECK_DIR = dir;
    for (let i = 1; i <= 3; i++)
      write(dir, `t${i}.jsonl`, { label: `t${i}`, startedAt: `2026-03-0${i}T10:00:00.000Z` });
    expect(await io.run(['ls', '--limit', '2'])).toBe(0);
    expect(io.stdout).toMatch(/t3[\s\S]*t2/);
    expect(io.stdout).not.toMatch(/\bt1\b/);
    expect(io.stdout).toMatch(/1 older trace not shown \(--all\)/);
    io.stdout = '';
    expect(await io.run(['ls', '--all', '--json'])).toBe(0);
    expect((JSON.parse(io.stdout) as { label: string }[]).map((t) => t.label)).toEqual(['t3', 't2', 't1']);
  });

  it('says so when nothing was recorded yet, and names a bad folder in one line', async () => {
    io.env.TAPEDECK_DIR = join(io.dir, 'never-made');
    expect(await io.run(['ls'])).toBe(0);
    expect(io.stderr).toBe(
      `tapedeck: no traces in ${join(io.dir, 'never-made')} (record one: tapedeck record -- <server command>)\n`,
    );
    io.stderr = '';
    expect(await io.run(['ls', join(io.dir, 'missing')])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: no such folder: ${join(io.dir, 'missing')}\n`);
    io.stderr = '';
    const file = write(io.dir, 'a.jsonl', { label: 'a', startedAt: '2026-03-01T10:00:00.000Z' });
    expect(await io.run(['ls', file])).toBe(2);
    expect(io.stderr).toBe(`tapedeck: ${file} is a file, not a folder of traces\n`);
    io.stderr = '';
    expect(await io.run(['ls', '--limit', '0'])).toBe(2);
    expect(io.stderr).toMatch(/--limit must be a whole number of at least 1; got '0'/);
  });

  it('never follows a symlink out of the folder', async () => {
    const dir = join(io.dir, 'traces');
    const outside = write(io.dir, 'outside.jsonl', {
      label: 'outside',
      startedAt: '2026-03-01T10:00:00.000Z',
    });
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 'link.jsonl'));
    expect(listTraces(dir)).toEqual([]);
  });
});
