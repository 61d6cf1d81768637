import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSink, type FileSinkOptions } from '../../src/sink/file.js';
import { segmentPath } from '../../src/sink/paths.js';
import type { MetaLine } from '../../src/trace/types.js';
import { itWithDevFull } from '../helpers/dev-full.js';
import { makeTempDir, type Parsed, removeTempDir } from '../helpers/proxy.js';

const TRACE_ID = '6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11';

function meta(): MetaLine {
  return {
    v: 1,
    type: 'meta',
    startedAt: '2026-01-02T03:04:05.678Z',
    label: 'unit',
    command: ['node', 'server.js'],
    kind: 'mcp',
    producer: { name: 'tapedeck', version: '0.0.0-test' },
    traceId: TRACE_ID,
    segment: 0,
    transport: 'stdio',
  };
}

function message(i: number, pad = 0) {
  return {
    t: '2026-01-02T03:04:05.678Z',
    dir: (i % 2 === 0 ? 'in' : 'out') as 'in' | 'out',
    raw: { jsonrpc: '2.0', id: i, method: 'ping', params: { pad: 'x'.repeat(pad) } },
  };
}

function parseFile(path: string): Parsed[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Parsed);
}

function seqs(lines: Parsed[]): number[] {
  return lines.filter((l) => typeof l.seq === 'number').map((l) => l.seq as number);
}

function expectStrictlyIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i += 1) expect(values[i]!).toBeGreaterThan(values[i - 1]!);
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected failure, write`), { code });
}

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('tapedeck-file-sink-');
});
afterEach(async () => {
  await removeTempDir(dir);
});

describe('FileSink', () => {
  it('writes meta first, records with strictly increasing seq, and the end line last', async () => {
    const path = join(dir, 'trace.jsonl');
    const sink = new FileSink({ path });
    sink.start(meta());
    for (let i = 1; i <= 50; i += 1) sink.append(message(i));
    sink.append({ t: '2026-01-02T03:04:05.678Z', type: 'stderr', text: 'warming up' });
    await sink.close({ reason: 'process_exit', exitCode: 0, signal: null });
    const lines = parseFile(path);
    expect(lines[0]).toEqual(meta());
    expect(seqs(lines)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(lines.at(-1)).toMatchObject({
      type: 'end',
      reason: 'process_exit',
      exitCode: 0,
      signal: null,
      counts: { in: 25, out: 25, stderr: 1, text: 0, events: 0 },
    });
    expect(typeof lines.at(-1)?.durationMs).toBe('number');
  });

  it('ignores appends after close', async () => {
    const path = join(dir, 'trace.jsonl');
    const sink = new FileSink({ path });
    sink.start(meta());
    sink.append(message(1));
    await sink.close({ reason: 'producer_shutdown' });
    sink.append(message(2));
    await sink.close({ reason: 'producer_shutdown' });
    await new Promise((done) => setImmediate(done));
    expect(parseFile(path).map((l) => l.type ?? 'message')).toEqual(['meta', 'message', 'end']);
  });

  it('creates the trace file 0600 and the folders it creates 0700', async () => {
    const path = join(dir, 'a', 'b', 'c', 'trace.jsonl');
    const sink = new FileSink({ path });
    sink.start(meta());
    await sink.close({ reason: 'producer_shutdown' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (const folder of ['a', 'a/b', 'a/b/c']) expect(statSync(join(dir, folder)).mode & 0o777).toBe(0o700);
  });

  it('tightens an existing trace file to 0600 and leaves an existing folder alone', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o755 });
    const path = join(shared, 'trace.jsonl');
    writeFileSync(path, 'old content that must go\n', { mode: 0o644 });
    const sink = new FileSink({ path });
    sink.start(meta());
    await sink.close({ reason: 'producer_shutdown' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(shared).mode & 0o777).toBe(0o755);
    expect(parseFile(path)[0]).toMatchObject({ type: 'meta' });
  });

  describe('rotation', () => {
    async function rotated(options: Partial<FileSinkOptions>, records: number) {
      const path = join(dir, 'run.jsonl');
      const sink = new FileSink({ path, ...options });
      sink.start(meta());
      for (let i = 1; i <= records; i += 1) {
        sink.append(message(i, 60));
        // Let some flushes happen between appends, as in a live session.
        if (i % 7 === 0) await new Promise((done) => setImmediate(done));
      }
      await sink.close({ reason: 'process_exit', exitCode: 0 });
      return path;
    }

    it('starts every segment with a meta line of the same traceId and numbers segments 0, 1, 2 …', async () => {
      const path = await rotated({ maxBytes: 2000, maxFiles: 100 }, 120);
      const files = readdirSync(dir).sort();
      expect(files.length).toBeGreaterThan(5);
      const count = files.length;
      const all: Parsed[] = [];
      // Oldest first: run.<count-1>.jsonl … run.1.jsonl, run.jsonl.
      for (let n = count - 1; n >= 0; n -= 1) {
        const file = segmentPath(path, n);
        const lines = parseFile(file);
        expect(lines[0]).toEqual({ ...meta(), segment: count - 1 - n });
        expect(lines.slice(1).some((l) => l.type === 'meta')).toBe(false);
        expect(statSync(file).size).toBeLessThanOrEqual(2000);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        all.push(...lines.slice(1));
      }
      // Stitched back together, nothing is missing or out of order.
      expect(seqs(all)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      expect(all.at(-1)).toMatchObject({ type: 'end' });
    });

    it('keeps at most maxFiles files: the newest under the plain name, older ones name.1.jsonl, name.2.jsonl', async () => {
      const path = await rotated({ maxBytes: 2000, maxFiles: 3 }, 120);
      expect(readdirSync(dir).sort()).toEqual(['run.1.jsonl', 'run.2.jsonl', 'run.jsonl']);
      const newest = parseFile(path);
      const older = parseFile(join(dir, 'run.1.jsonl'));
      const oldest = parseFile(join(dir, 'run.2.jsonl'));
      const segment = newest[0]?.segment as number;
      expect(segment).toBeGreaterThan(3);
      expect(older[0]).toMatchObject({ type: 'meta', traceId: TRACE_ID, segment: segment - 1 });
      expect(oldest[0]).toMatchObject({ type: 'meta', traceId: TRACE_ID, segment: segment - 2 });
      expect(newest.at(-1)).toMatchObject({ type: 'end' });
      const tail = seqs([...oldest, ...older, ...newest]);
      expect(tail.at(-1)).toBe(120);
      expect(tail).toEqual(Array.from({ length: tail.length }, (_, i) => 121 - tail.length + i));
    });

    it('never rotates a segment away holding only its meta line (a record bigger than maxBytes)', async () => {
      const path = join(dir, 'run.jsonl');
      const sink = new FileSink({ path, maxBytes: 300, maxFiles: 10 });
      sink.start(meta());
      sink.append(message(1, 1000));
      sink.append(message(2, 1000));
      await sink.close({ reason: 'producer_shutdown' });
      const older = parseFile(join(dir, 'run.1.jsonl'));
      const newest = parseFile(path);
      expect(older.map((l) => l.seq ?? l.type)).toEqual(['meta', 1]);
      expect(newest.map((l) => l.seq ?? l.type)).toEqual(['meta', 2, 'end']);
    });
  });

  describe('write failures', () => {
    itWithDevFull(
      'keeps going on a full disk (/dev/full): warns once, never throws, leaves the device alone',
      async () => {
        const warnings: string[] = [];
        const modeBefore = statSync('/dev/full').mode;
        const sink = new FileSink({ path: '/dev/full', warn: (m) => warnings.push(m) });
        sink.start(meta());
        for (let i = 1; i <= 20; i += 1) {
          sink.append(message(i));
          await new Promise((done) => setImmediate(done));
        }
        await sink.close({ reason: 'process_exit', exitCode: 0 });
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/\/dev\/full/);
        expect(warnings[0]).toMatch(/ENOSPC/);
        expect(statSync('/dev/full').mode).toBe(modeBefore);
      },
    );

    it('survives a path under a regular file (ENOTDIR), warns once, and resumes once the folder can be made', async () => {
      const blocker = join(dir, 'blocker');
      writeFileSync(blocker, 'a regular file where a folder should be');
      const path = join(blocker, 'traces', 'trace.jsonl');
      const warnings: string[] = [];
      let clock = Date.parse('2026-01-02T03:04:05.678Z');
      const sink = new FileSink({ path, warn: (m) => warnings.push(m), now: () => clock });
      sink.start(meta());
      for (let i = 1; i <= 5; i += 1) {
        sink.append(message(i));
        sink.flush();
        clock += 100; // retries are throttled to one a second
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/ENOTDIR/);
      expect(warnings[0]).toContain(path);

      rmSync(blocker);
      clock += 1000;
      sink.append(message(6));
      sink.append(message(7));
      await sink.close({ reason: 'process_exit', exitCode: 0 });

      expect(warnings).toHaveLength(1);
      const lines = parseFile(path);
      expect(lines[0]).toEqual(meta());
      const notice = lines.find((l) => l.name === 'write_error');
      expect(notice).toMatchObject({ type: 'event', lost: 5, codes: ['ENOTDIR'] });
      expect(lines.filter((l) => l.type === undefined).map((l) => (l.raw as { id: number }).id)).toEqual([
        6, 7,
      ]);
      expectStrictlyIncreasing(seqs(lines));
      expect(lines.at(-1)).toMatchObject({ type: 'end' });
      expect(statSync(path).mode & 0o777).toBe(0o600);
    });

    it('records a write_error event with the lost count once writing works again, meta first and seq in order', async () => {
      const path = join(dir, 'trace.jsonl');
      const warnings: string[] = [];
      let failing = false;
      const sink = new FileSink({
        path,
        warn: (m) => warnings.push(m),
        write: (fd, data, offset, length, position) => {
          if (failing) throw errno('ENOSPC');
          return writeSync(fd, data, offset, length, position);
        },
      });
      failing = true;
      sink.start(meta());
      sink.append(message(1));
      sink.append(message(2));
      sink.flush();
      sink.append(message(3));
      sink.flush();
      failing = false;
      sink.append(message(4));
      await sink.close({ reason: 'process_exit', exitCode: 0 });

      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/ENOSPC/);
      const lines = parseFile(path);
      expect(lines[0]).toEqual(meta());
      expect(lines.filter((l) => l.type === undefined).map((l) => (l.raw as { id: number }).id)).toEqual([4]);
      expect(lines.find((l) => l.name === 'write_error')).toMatchObject({ lost: 3, codes: ['ENOSPC'] });
      expectStrictlyIncreasing(seqs(lines));
    });

    it('cuts a partly written batch back, so no torn line (or hole) stays in the file', async () => {
      const path = join(dir, 'trace.jsonl');
      let mode: 'ok' | 'partial' | 'full' = 'ok';
      const sink = new FileSink({
        path,
        warn: () => {},
        write: (fd, data, offset, length, position) => {
          if (mode === 'partial') {
            // The kernel takes a third of it (a short write, as write(2) may do) …
            mode = 'full';
            return writeSync(fd, data, offset, Math.floor(length / 3), position);
          }
          if (mode === 'full') {
            // … and then the disk is full.
            mode = 'ok';
            throw errno('ENOSPC');
          }
          return writeSync(fd, data, offset, length, position);
        },
      });
      sink.start(meta());
      sink.append(message(1));
      sink.flush();
      mode = 'partial';
      sink.append(message(2, 500));
      sink.append(message(3, 500));
      sink.flush();
      sink.append(message(4));
      await sink.close({ reason: 'process_exit', exitCode: 0 });

      const bytes = readFileSync(path);
      expect(bytes.includes(0)).toBe(false);
      const lines = parseFile(path);
      expect(lines[0]).toEqual(meta());
      expect(lines.filter((l) => l.type === undefined).map((l) => (l.raw as { id: number }).id)).toEqual([
        1, 4,
      ]);
      expect(lines.find((l) => l.name === 'write_error')).toMatchObject({ lost: 2 });
      expectStrictlyIncreasing(seqs(lines));
    });

    it('warns once per error code, not once per failure', async () => {
      const path = join(dir, 'trace.jsonl');
      const warnings: string[] = [];
      const codes = ['ENOSPC', 'ENOSPC', 'EIO', 'ENOSPC', 'EIO'];
      let calls = 0;
      const sink = new FileSink({
        path,
        warn: (m) => warnings.push(m),
        write: (fd, data, offset, length, position) => {
          const code = codes[calls++];
          if (code !== undefined) throw errno(code);
          return writeSync(fd, data, offset, length, position);
        },
      });
      sink.start(meta());
      for (let i = 1; i <= 6; i += 1) {
        sink.append(message(i));
        sink.flush();
      }
      await sink.close({ reason: 'process_exit', exitCode: 0 });
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toMatch(/ENOSPC/);
      expect(warnings[1]).toMatch(/EIO/);
      const lines = parseFile(path);
      expect(lines[0]).toEqual(meta());
      expect(lines.find((l) => l.name === 'write_error')).toMatchObject({
        lost: 5,
        codes: ['ENOSPC', 'EIO'],
      });
      expect(lines.filter((l) => l.type === undefined).map((l) => (l.raw as { id: number }).id)).toEqual([6]);
    });
  });
});

describe('FileSink: a file already there', () => {
  async function record(sink: FileSink, id: number): Promise<void> {
    sink.start(meta());
    sink.append(message(id));
    await sink.close({ reason: 'process_exit', exitCode: 0 });
  }

  it("takes a free name beside a taken one with existing: 'unique' — recorders started together keep every trace", async () => {
    const path = join(dir, '20260102T030405.678Z-same.jsonl');
    const sinks = Array.from({ length: 16 }, () => new FileSink({ path, existing: 'unique' }));
    // All open before any closes, as concurrent recorders do.
    for (const sink of sinks) sink.start(meta());
    for (const [i, sink] of sinks.entries()) sink.append(message(i));
    for (const sink of sinks) await sink.close({ reason: 'process_exit', exitCode: 0 });
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(16);
    expect(new Set(sinks.map((sink) => sink.path)).size).toBe(16);
    expect(sinks[0]!.path).toBe(path);
    expect(files).toContain('20260102T030405.678Z-same-2.jsonl');
    const ids = sinks.map((sink) => (parseFile(sink.path)[1]!.raw as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 16 }, (_, i) => i));
    for (const sink of sinks) expect(statSync(sink.path).mode & 0o777).toBe(0o600);
  });

  it('passes over a name whose older segments are on disk, and rotates under the name it took', async () => {
    const path = join(dir, 'run.jsonl');
    writeFileSync(segmentPath(path, 1), 'another trace\n');
    const sink = new FileSink({ path, existing: 'unique', maxBytes: 600, maxFiles: 3 });
    sink.start(meta());
    for (let i = 1; i <= 12; i += 1) sink.append(message(i, 60));
    await sink.close({ reason: 'process_exit', exitCode: 0 });
    expect(sink.path).toBe(join(dir, 'run-2.jsonl'));
    expect(readFileSync(segmentPath(path, 1), 'utf8')).toBe('another trace\n');
    expect(readdirSync(dir).sort()).toEqual(['run-2.1.jsonl', 'run-2.2.jsonl', 'run-2.jsonl', 'run.1.jsonl']);
  });

  it("overwrites with existing: 'warn', saying so once, and not when rotation reopens its own file", async () => {
    const path = join(dir, 'given.jsonl');
    writeFileSync(path, 'an older trace\n');
    const warnings: string[] = [];
    const sink = new FileSink({
      path,
      existing: 'warn',
      maxBytes: 600,
      maxFiles: 2,
      warn: (text) => warnings.push(text),
    });
    sink.start(meta());
    for (let i = 1; i <= 12; i += 1) sink.append(message(i, 60));
    await sink.close({ reason: 'process_exit', exitCode: 0 });
    expect(warnings).toEqual([`overwriting ${path}, which already held 15 bytes`]);
    expect(readFileSync(path, 'utf8')).not.toContain('an older trace');
    expect(parseFile(path)[0]).toMatchObject({ type: 'meta' });
    expect(readdirSync(dir).sort()).toEqual(['given.1.jsonl', 'given.jsonl']);
  });

  it("says nothing for an empty file or one that was not there, nor for the default 'overwrite'", async () => {
    const warnings: string[] = [];
    const warn = (text: string) => warnings.push(text);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    await record(new FileSink({ path: join(dir, 'empty.jsonl'), existing: 'warn', warn }), 1);
    await record(new FileSink({ path: join(dir, 'new.jsonl'), existing: 'warn', warn }), 2);
    writeFileSync(join(dir, 'old.jsonl'), 'older\n');
    await record(new FileSink({ path: join(dir, 'old.jsonl'), warn }), 3);
    expect(warnings).toEqual([]);
    expect(parseFile(join(dir, 'old.jsonl'))[1]).toMatchObject({ raw: { id: 3 } });
  });
});
