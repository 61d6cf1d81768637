import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { discardEarly, startEarly, takeEarly } from '../../src/cli/early-spawn.js';
import { startServer } from '../../src/proxy/start.js';

/** A server that waits for input forever (so only being stopped ends it). */
const waiting = [process.execPath, '-e', 'process.stdin.resume(); setInterval(() => {}, 1000)'];
/** The same, noting its pid in a file first. */
const noting = (pidFile: string) => [
  process.execPath,
  '-e',
  `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
];

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-early-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('starting the server of `record -- <server>` before the recorder is loaded', () => {
  afterEach(() => discardEarly());

  it('hands the running server to the recorder that asks for the same command', async () => {
    startEarly(['record', '--out', '/tmp/x', '--label', 'l', '--', ...waiting]);
    const server = takeEarly(waiting, 'pipe');
    expect(server).toBeDefined();
    expect(await server!.spawned).toBeUndefined();
    expect(server!.child!.stderr).not.toBeNull();
    // Handed over once.
    expect(takeEarly(waiting, 'pipe')).toBeUndefined();
    server!.child!.kill('SIGKILL');
    await server!.exited;
  });

  it('keeps the server stderr as asked: --no-stderr leaves it on the terminal', async () => {
    startEarly(['record', '--no-stderr', '--', ...waiting]);
    const server = takeEarly(waiting, 'inherit');
    expect(server?.child?.stderr).toBeNull();
    server?.child?.kill('SIGKILL');
    await server?.exited;
  });

  it('stops a server the recorder did not ask for (another command, another stderr choice)', async () => {
    for (const [argv, stderr] of [
      [[...waiting, 'extra'], 'pipe'],
      [waiting, 'inherit'],
    ] as const) {
      const pidFile = join(dir, `pid-${stderr}`);
      startEarly(['record', '--', ...noting(pidFile)]);
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(takeEarly(argv, stderr)).toBeUndefined();
      await until(() => !alive(pid));
    }
  });

  it('stops a server whose command line the recorder refused', async () => {
    const pidFile = join(dir, 'pid-refused');
    startEarly(['record', '--', ...noting(pidFile)]);
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    // What bin.js does after a usage error: the early server never got a byte and is stopped.
    discardEarly();
    await until(() => !alive(Number(readFileSync(pidFile, 'utf8'))));
    expect(takeEarly(waiting, 'pipe')).toBeUndefined();
  });

  it.each([
    [['show', 'x.jsonl']],
    [['record', '--upstream', 'http://127.0.0.1:1/mcp', '--stdio']],
    [['record', '--help', '--', 'node']],
    [['record', '--redact-defaults', '--', 'node']],
    [['record', '--']],
    [['record', 'node', 'server.js']],
  ])('starts nothing for %j', (argv) => {
    startEarly(argv);
    expect(takeEarly(['node'], 'pipe')).toBeUndefined();
  });
});

describe('a server started before anyone reads it', () => {
  it('keeps what it wrote, even when it has exited by the time the proxy attaches', async () => {
    const server = startServer('sh', ['-c', 'printf "out\\n"; printf "err\\n" >&2'], { stderr: 'pipe' });
    expect(await server.spawned).toBeUndefined();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // Node resumes an unread child stream right after exit, which would drop its contents.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let out = '';
    let err = '';
    server.child!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    server.child!.stderr!.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    const ended = Promise.all([once(server.child!.stdout!, 'end'), once(server.child!.stderr!, 'end')]);
    server.release();
    await ended;
    expect([out, err]).toEqual(['out\n', 'err\n']);
  });
});
