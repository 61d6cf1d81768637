import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/io.js';

const TARGET_BYTES = 32 * 1024 * 1024;
/**
 * A quarter of the file size: a reader that held the file (or its lines, twice the bytes as JavaScript strings)
 * would blow through it. Memory is measured after a full collection, so it is what the reader keeps, not garbage
 * it (or an earlier test of the same worker) left for later: its working set, read-ahead included, is 1.5–5 MB.
 */
const MAX_GROWTH_BYTES = 8 * 1024 * 1024;

/** A full garbage collection on demand, which Node offers once asked for it (as --expose-gc does). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let dir: string;
let path: string;
let linesWritten = 0;

/** ~1 KiB mcp-tape lines (no seq, so the reader numbers them) with multi-byte UTF-8 that chunks will cut. */
function writeBigTrace(): void {
  const meta = JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'big' });
  const payload = `héllo wörld ✓ 😀 ${'x'.repeat(900)}`;
  const block: string[] = [];
  for (let i = 0; i < 4096; i++) {
    const raw = {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: payload } },
    };
    block.push(JSON.stringify({ t: '2026-01-01T00:00:00.000Z', dir: i % 2 ? 'out' : 'in', raw }));
  }
  const blockText = `${block.join('\n')}\n`;
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `${meta}\n`);
    let size = 0;
    while (size < TARGET_BYTES) {
      size += writeSync(fd, blockText);
      linesWritten += block.length;
    }
    writeSync(fd, `${JSON.stringify({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 })}\n`);
  } finally {
    closeSync(fd);
  }
}

/** What is alive right now: heap and buffers after a full collection. */
const memory = () => {
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-big-'));
  path = join(dir, 'big.jsonl');
  writeBigTrace();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('streaming reader', () => {
  it('reads a 32 MB trace in constant memory', async () => {
    expect(statSync(path).size).toBeGreaterThan(TARGET_BYTES);
    const baseline = memory();
    let peak = 0;
    let count = 0;
    let lastSeq = 0;
    const trace = await openTrace(path, { mode: 'strict' });
    for await (const { line } of trace.lines()) {
      count++;
      if (line.type !== 'end') lastSeq = line.seq ?? -1;
      if (count % 2048 === 0) peak = Math.max(peak, memory() - baseline);
    }
    expect(count).toBe(linesWritten + 1);
    expect(lastSeq).toBe(linesWritten);
    expect(trace.diagnostics).toEqual([]);
    expect(peak).toBeLessThan(MAX_GROWTH_BYTES);
    // How fast it reads is the bench's to judge (the replay part's index build reads through openTrace).
  });
});
