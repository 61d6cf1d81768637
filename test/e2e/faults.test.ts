/**
 * Faults around `tapedeck record`: a killed recorder leaves a readable trace, a full or unwritable trace location
 * never interrupts the session, and a slow client neither blows up the proxy's memory nor loses bytes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithDevFull } from '../helpers/dev-full.js';
import {
  alive,
  fixtureServer,
  makeTempDir,
  type ProxyRun,
  readTrace,
  removeTempDir,
  rssKb,
  sleep,
  spawnRecord,
  spawnTapedeck,
  waitDrain,
  waitFor,
} from '../helpers/proxy.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('tapedeck-faults-');
});
afterAll(async () => {
  await removeTempDir(dir);
});

function request(id: number, pad = 0): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', pad: 'p'.repeat(pad) } })}\n`;
}

/** Sends `count` requests over about `spreadMs`, ends stdin, and returns the ids of the responses the client got. */
async function session(run: ProxyRun, count: number, spreadMs: number): Promise<number[]> {
  const batches = 10;
  for (let b = 0; b < batches; b += 1) {
    let text = '';
    for (let i = (b * count) / batches; i < ((b + 1) * count) / batches; i += 1) text += request(i);
    run.child.stdin.write(text);
    await sleep(spreadMs / batches);
  }
  run.child.stdin.end();
  const exit = await run.done;
  expect(exit.code).toBe(0);
  return exit.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { id: number }).id);
}

/** The `tapedeck: …` lines of a stderr capture (the fixture servers write nothing there). */
/** tapedeck's own warnings on stderr (not the line that says where the trace goes). */
function warnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('tapedeck: ') && !l.startsWith('tapedeck: recording to '));
}

describe('a killed recorder', () => {
  it('leaves a trace that reads back up to its last whole line', async () => {
    const trace = join(dir, 'killed.jsonl');
    const run = spawnRecord(trace, fixtureServer('rpc-echo.mjs'));
    let id = 0;
    let writing = true;
    const writer = (async () => {
      while (writing && !run.child.stdin.destroyed) {
        let text = '';
        for (let i = 0; i < 20; i += 1) text += request(id++, 2000);
        if (!run.child.stdin.write(text)) await waitDrain(run.child.stdin);
        await sleep(1);
      }
    })();
    await waitFor(() => run.stdoutSoFar().length > 2_000_000, 20_000, '2 MB of responses');
    run.child.kill('SIGKILL');
    const exit = await run.done;
    writing = false;
    await writer;
    expect(exit.signal).toBe('SIGKILL');

    const text = readFileSync(trace, 'utf8');
    const lines = text.split('\n');
    const last = lines.pop()!; // '' when the file ends on a whole line, else a cut-off line
    if (last !== '') expect(() => JSON.parse(last)).toThrow();
    const parsed = lines.map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`line ${i + 1} of the trace is not JSON: ${line.slice(0, 80)}`);
      }
    });
    expect(parsed[0]).toMatchObject({ type: 'meta', segment: 0 });
    const messages = parsed.filter((l) => l.type === undefined);
    expect(messages.length).toBeGreaterThan(100);
    expect(parsed.some((l) => l.type === 'end')).toBe(false);
    // The orphaned server lost its pipes with the proxy and went away by itself.
    const server = parsed.find((l) => l.name === 'spawn')?.pid as number;
    expect(server).toBeGreaterThan(0);
    await waitFor(() => !alive(server), 10_000, 'the orphaned server to exit');
  });
});

describe('an unwritable trace', () => {
  itWithDevFull(
    '--file /dev/full: the session works end to end and stderr says why exactly once',
    async () => {
      const run = spawnRecord('/dev/full', fixtureServer('rpc-echo.mjs'));
      const ids = await session(run, 300, 300);
      expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => i));
      const lines = warnings(run.stderrSoFar());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\/dev\/full.*ENOSPC/);
    },
  );

  it('--out under a regular file (ENOTDIR): the session works end to end and stderr says why exactly once', async () => {
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'a regular file where a folder should be');
    const run = spawnTapedeck([
      'record',
      '--out',
      join(blocker, 'traces'),
      '--',
      ...fixtureServer('rpc-echo.mjs'),
    ]);
    // Long enough for the sink to retry opening the file (once a second) and fail the same way again.
    const ids = await session(run, 300, 2500);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const lines = warnings(run.stderrSoFar());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ENOTDIR/);
    expect(lines[0]).toContain(join(blocker, 'traces'));
  });
});

describe('a slow client', () => {
  it('keeps the proxy RSS bounded while a server floods ~200 MB, and every byte arrives', async () => {
    const total = 200 * 1024 * 1024;
    const summary = join(dir, 'flood.summary');
    const traceDir = join(dir, 'flood-traces');
    const run = spawnTapedeck(
      [
        'record',
        '--file',
        join(traceDir, 'flood.jsonl'),
        '--max-bytes',
        '8m',
        '--max-files',
        '2',
        '--',
        ...fixtureServer('flood.mjs', String(total), '2048', summary),
      ],
      { collectStdout: false },
    );
    const pid = run.child.pid!;
    let peakKb = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      const kb = rssKb(pid);
      if (kb !== undefined) {
        peakKb = Math.max(peakKb, kb);
        samples += 1;
      }
    }, 50);

    const hash = createHash('sha256');
    let received = 0;
    const stdout = run.child.stdout;
    const take = (chunk: Buffer) => {
      hash.update(chunk);
      received += chunk.length;
    };
    try {
      // 1. The client reads nothing for a while: the flood must back up into the server, not into the proxy.
      await sleep(1500);
      const stalledAt = received;
      expect(stalledAt).toBe(0);
      // 2. It reads slowly: 64 KB every 10 ms, from when the first bytes are there (a busy machine starts late).
      await waitFor(() => stdout.readableLength > 0, 20_000, 'the first bytes of the flood');
      const slowUntil = Date.now() + 1500;
      while (Date.now() < slowUntil) {
        const chunk = stdout.read(64 * 1024) as Buffer | null;
        if (chunk) take(chunk);
        await sleep(10);
      }
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(total / 2);
      // 3. It drains the rest as fast as it can.
      stdout.on('data', take);
      const exit = await run.done;
      expect(exit.code).toBe(0);
    } finally {
      clearInterval(sampler);
    }

    const [bytes, sha] = readFileSync(summary, 'utf8').split(' ');
    expect(received).toBe(Number(bytes));
    expect(hash.digest('hex')).toBe(sha);
    expect(samples).toBeGreaterThan(20);
    expect(peakKb).toBeLessThan(100 * 1024);
    // The trace kept up (rotated, capped at two files) and ends properly.
    const files = readdirSync(traceDir).sort();
    expect(files).toEqual(['flood.1.jsonl', 'flood.jsonl']);
    expect(readTrace(join(traceDir, 'flood.jsonl')).at(-1)).toMatchObject({ type: 'end', exitCode: 0 });
  });

  it('delivers all queued output to a client that starts reading only after the server exited', async () => {
    const total = 300 * 1024;
    const summary = join(dir, 'tail.summary');
    const run = spawnRecord(
      join(dir, 'tail.jsonl'),
      fixtureServer('flood.mjs', String(total), '1024', summary),
      ['--quiet'],
      { collectStdout: false },
    );
    const chunks: Buffer[] = [];
    let reading = false;
    const startReading = () => {
      if (reading) return;
      reading = true;
      run.child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    };
    // Node discards an unread child stdout right after `exit`; a real client would simply read later.
    run.child.once('exit', startReading);
    // The server writes everything and exits at once; the client is busy elsewhere for 3 s, so the proxy still
    // holds output queued for it when the server is gone.
    await waitFor(() => existsSync(summary), 10_000, 'the server to finish writing');
    await sleep(3000);
    startReading();
    const exit = await run.done;
    const out = Buffer.concat(chunks);
    const [bytes, sha] = readFileSync(summary, 'utf8').split(' ');
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(out.length).toBe(Number(bytes));
    expect(createHash('sha256').update(out).digest('hex')).toBe(sha);
  });
});
