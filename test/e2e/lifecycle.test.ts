/**
 * Process lifecycle of `tapedeck record`: exit codes and signals are passed on, EOF travels both ways, a grandchild
 * holding the pipe or a server ignoring SIGTERM cannot hang the proxy, usage errors are one line and exit 2, and
 * stdout never carries anything but the protocol.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STDIO_PROXY_DEFAULTS } from '../../src/proxy/stdio.js';
import { itWithDevFull } from '../helpers/dev-full.js';
import {
  alive,
  fixtureServer,
  makeTempDir,
  type Parsed,
  REPO_ROOT,
  readTrace,
  removeTempDir,
  spawnRecord,
  spawnTapedeck,
  waitFor,
} from '../helpers/proxy.js';

let dir: string;
let counter = 0;
const grandchildren: number[] = [];

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-lifecycle-');
});
afterAll(async () => {
  for (const pid of grandchildren) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await removeTempDir(dir);
});

function tracePath(): string {
  counter += 1;
  return join(dir, `trace-${counter}.jsonl`);
}

function endLine(trace: Parsed[]): Parsed {
  const end = trace.at(-1);
  expect(end).toMatchObject({ type: 'end', reason: 'process_exit' });
  expect(typeof end?.durationMs).toBe('number');
  return end!;
}

/** Puts off loading the recorder (see the script): the window in which only the early relay runs. */
const SLOW_LOAD = join(REPO_ROOT, 'test', 'fixtures', 'scripts', 'slow-load.cjs');

/** A ceiling for a server's first line, not a budget: on a loaded machine two process starts take seconds. */
const READY_MS = 30_000;

const READY = (mode: string) => `${JSON.stringify({ jsonrpc: '2.0', method: 'ready', params: { mode } })}\n`;

describe.concurrent('exit codes and signals', () => {
  it.each([0, 1, 42, 255])('passes on server exit code %d, and the end line records it', async (code) => {
    const trace = tracePath();
    const run = spawnRecord(trace, ['sh', '-c', `exit ${code}`]);
    const exit = await run.done;
    expect(exit.code).toBe(code);
    expect(exit.stdout.length).toBe(0);
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: code, signal: null });
  });

  it.each([
    ['TERM', 'SIGTERM', 15],
    ['KILL', 'SIGKILL', 9],
    ['USR1', 'SIGUSR1', 10],
  ])('exits 128+n when the server is killed by SIG%s', async (name, signal, n) => {
    const trace = tracePath();
    // The shell kills itself, as a crashing server would be killed.
    const run = spawnRecord(trace, ['sh', '-c', `kill -s ${name} $$; sleep 5`]);
    const exit = await run.done;
    expect(exit.code).toBe(128 + n);
    expect(exit.stdout.length).toBe(0);
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: 128 + n, signal });
  });

  it('exits 127 with one line on stderr when the command is not found', async () => {
    const trace = tracePath();
    const run = spawnRecord(trace, ['tapedeck-no-such-command-xyz', '--flag']);
    const exit = await run.done;
    expect(exit.code).toBe(127);
    expect(exit.stdout.length).toBe(0);
    expect(exit.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(exit.stderr).toMatch(/tapedeck-no-such-command-xyz.*not found/);
    const lines = readTrace(trace);
    expect(lines.find((l) => l.name === 'spawn')).toMatchObject({ ok: false, error: 'ENOENT' });
    expect(endLine(lines)).toMatchObject({ exitCode: 127 });
  });

  it('exits 126 when the command is not executable (even for root)', async () => {
    const script = join(dir, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    const trace = tracePath();
    const exit = await spawnRecord(trace, [script]).done;
    expect(exit.code).toBe(126);
    expect(exit.stdout.length).toBe(0);
    expect(exit.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(exit.stderr).toMatch(/not executable \(EACCES\)/);
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: 126 });
  });
});

describe.concurrent('end of session', () => {
  it('exits when the server exits while the client keeps stdin open', async () => {
    const trace = tracePath();
    const run = spawnRecord(trace, fixtureServer('lifecycle.mjs', 'exit', '3'));
    // stdin stays open: nothing is ever written to it or ended.
    const exit = await run.done;
    expect(run.child.stdin.writableEnded).toBe(false);
    expect(exit.code).toBe(3);
    expect(exit.stdout.toString()).toBe(`${JSON.stringify({ jsonrpc: '2.0', method: 'bye' })}\n`);
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: 3, signal: null });
  });

  it('passes the client EOF on to the server, which then exits 0', async () => {
    const trace = tracePath();
    const marker = join(dir, 'eof-marker');
    const run = spawnRecord(trace, fixtureServer('rpc-echo.mjs', marker));
    run.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const exit = await run.done;
    expect(exit.code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('eof');
    expect(JSON.parse(exit.stdout.toString())).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: null } });
    const lines = readTrace(trace);
    expect(lines.filter((l) => l.type === undefined).map((l) => l.dir)).toEqual(['in', 'out']);
    expect(endLine(lines)).toMatchObject({ exitCode: 0, signal: null });
  });

  it('exits after the drain wait, not with the grandchild that keeps the server stdout open', async () => {
    const trace = tracePath();
    const pidFile = join(dir, 'grandchild.pid');
    const run = spawnRecord(trace, fixtureServer('lifecycle.mjs', 'grandchild', pidFile));
    await waitFor(() => run.stdoutSoFar().length > 0, READY_MS, 'the ready line');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    grandchildren.push(grandchild);
    const exit = await run.done;
    expect(exit.code).toBe(0);
    expect(exit.stdout.toString()).toBe(READY('grandchild'));
    // The proxy did not wait for the pipe to close: the grandchild is still there (it sleeps for minutes), holding
    // a pipe nobody reads. It is not ours to kill; the trace says the proxy gave up on it after the drain wait.
    expect(alive(grandchild)).toBe(true);
    const lines = readTrace(trace);
    expect(lines.find((l) => l.name === 'drain_timeout')).toMatchObject({
      waitedMs: STDIO_PROXY_DEFAULTS.drainMs,
    });
    expect(endLine(lines)).toMatchObject({ exitCode: 0 });
  });

  it('forwards SIGTERM to the server and passes on how it ended', async () => {
    const trace = tracePath();
    const marker = join(dir, 'term-marker');
    const run = spawnRecord(trace, fixtureServer('lifecycle.mjs', 'term', marker));
    await waitFor(() => run.stdoutSoFar().length > 0, READY_MS, 'the ready line');
    run.child.kill('SIGTERM');
    const exit = await run.done;
    expect(readFileSync(marker, 'utf8')).toBe('SIGTERM');
    expect(exit.signal).toBeNull();
    expect(exit.code).toBe(143);
    expect(exit.stdout.toString()).toBe(READY('term'));
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
  });

  // The relay answers before the recorder is loaded, and a client may signal as soon as it has its answer (the v2
  // SDK client ends its server/discover probe so): the signal is passed on, and the trace still written in full.
  it('passes on a SIGTERM that comes before the recorder is loaded, and records the whole session', async () => {
    const trace = tracePath();
    const marker = join(dir, 'early-term-marker');
    const run = spawnRecord(trace, fixtureServer('lifecycle.mjs', 'term', marker), [], {
      nodeOptions: ['--require', SLOW_LOAD],
      env: { ...process.env, TAPEDECK_SLOW_LOAD_MS: '3000' },
    });
    await waitFor(() => run.stdoutSoFar().length > 0, READY_MS, 'the ready line');
    // Not loaded yet: the recorder says where the trace goes as soon as it is.
    expect(run.stderrSoFar()).not.toMatch(/recording to/);
    run.child.kill('SIGTERM');
    const exit = await run.done;
    expect(readFileSync(marker, 'utf8')).toBe('SIGTERM');
    expect(exit.signal).toBeNull();
    expect(exit.code).toBe(143);
    expect(exit.stdout.toString()).toBe(READY('term'));
    const lines = readTrace(trace);
    expect(lines.filter((line) => line.dir === 'out').map((line) => line.raw)).toEqual([
      JSON.parse(READY('term')),
    ]);
    expect(endLine(lines)).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
  });

  it('SIGKILLs a server that ignores the forwarded SIGTERM, after 5 s and not before', async () => {
    const trace = tracePath();
    const run = spawnRecord(trace, fixtureServer('lifecycle.mjs', 'ignore-term'));
    await waitFor(() => run.stdoutSoFar().length > 0, READY_MS, 'the ready line');
    const sentAt = Date.now();
    run.child.kill('SIGTERM');
    const exit = await run.done;
    // The server was given its grace: a timer never fires early, however busy the machine. That it was killed at
    // all is the exit status (nothing but the proxy's SIGKILL ends this server); how late is the machine's say.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(STDIO_PROXY_DEFAULTS.killAfterMs);
    expect(exit.code).toBe(137);
    expect(endLine(readTrace(trace))).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
  });
});

describe.concurrent('a client gone before the recorder is loaded', () => {
  it('keeps the write error in the trace, with every message the relay passed on', async () => {
    const trace = tracePath();
    const answer = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const server = ['sh', '-c', `while read -r line; do echo '${answer}'; done`];
    const run = spawnRecord(trace, server, [], {
      nodeOptions: ['--require', SLOW_LOAD],
      env: { ...process.env, TAPEDECK_SLOW_LOAD_MS: '2000' },
    });
    run.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    // The client stops reading at once: the answer meets a closed pipe while only the relay runs.
    run.child.stdout.destroy();
    const exit = await run.done;
    expect(exit.code).toBe(0);
    const lines = readTrace(trace);
    expect(lines.filter((line) => line.dir !== undefined).map((line) => [line.dir, line.raw])).toEqual([
      ['in', { jsonrpc: '2.0', id: 1, method: 'ping' }],
      ['out', JSON.parse(answer)],
    ]);
    expect(lines.filter((line) => line.name === 'write_error')).toEqual([
      expect.objectContaining({ type: 'event', target: 'client', error: 'EPIPE' }),
    ]);
    const times = lines.slice(1, -1).map((line) => Date.parse(String(line.t)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(endLine(lines)).toMatchObject({ exitCode: 0, counts: { in: 1, out: 1, events: 3 } });
  });
});

describe.concurrent('usage errors', () => {
  it.each([
    ['no server command', ['record', '--label', 'x'], /record needs a server command/],
    ['--file -', ['record', '--file', '-', '--', 'cat'], /--file -/],
    ['an unknown flag', ['record', '--no-such-flag', '--', 'cat'], /--no-such-flag/],
    ['--file with --out', ['record', '--file', 'a.jsonl', '--out', 'dir', '--', 'cat'], /--file and --out/],
    ['a bad --max-bytes', ['record', '--max-bytes', 'lots', '--', 'cat'], /--max-bytes.*'lots'/],
    ['a bad --max-files', ['record', '--max-files', '0', '--', 'cat'], /--max-files.*'0'/],
  ])('exits 2 with one line on stderr and nothing on stdout for %s', async (_what, args, message) => {
    const exit = await spawnTapedeck(args).done;
    expect(exit.code).toBe(2);
    expect(exit.stdout.length).toBe(0);
    const lines = exit.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tapedeck: /);
    expect(lines[0]).toMatch(message);
    expect(lines[0]).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });

  // record starts the server before it loads the code that reads its flags, and passes bytes on at once (to
  // answer sooner); a refused command line then stops that server and records nothing.
  it('exits 2 for --out naming a regular file, records nothing and leaves the file alone', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const run = spawnTapedeck(['record', '--out', file, '--', 'sh', '-c', 'cat > /dev/null']);
    run.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const exit = await run.done;
    expect(exit.code).toBe(2);
    const lines = exit.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tapedeck: .*a-file/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  // With faults the recorder must see every byte before it is passed on: nothing reaches the server early.
  it('with --fault, a refused command line stops the server before it gets a byte', async () => {
    const file = join(dir, 'a-file-faults');
    const received = join(dir, 'received');
    writeFileSync(file, 'x');
    const run = spawnTapedeck([
      'record',
      '--fault',
      'error=-32603@tools/call',
      '--out',
      file,
      '--',
      'sh',
      '-c',
      `cat > ${received}`,
    ]);
    run.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const exit = await run.done;
    expect(exit.code).toBe(2);
    // The faults are announced, then the one line of why.
    expect(exit.stderr.trimEnd().split('\n').at(-1)).toMatch(/^tapedeck: --out .*a-file-faults is a file/);
    expect(existsSync(received) ? readFileSync(received).length : 0).toBe(0);
  });
});

describe('stdout', () => {
  itWithDevFull(
    'carries only the protocol bytes, even with server stderr noise and an unwritable trace',
    async () => {
      const server = [
        'sh',
        '-c',
        'printf "banner on stderr\\n" >&2; printf \'{"jsonrpc":"2.0","id":1,"result":{}}\\n\'; ' +
          'printf "more noise\\n" >&2; printf \'{"jsonrpc":"2.0","id":2,"result":{}}\\n\'',
      ];
      const expected = '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n';
      for (const extra of [[], ['--no-stderr']]) {
        const trace = tracePath();
        const normal = await spawnRecord(trace, server, extra).done;
        expect(normal.code).toBe(0);
        expect(normal.stdout.toString()).toBe(expected);
        // Where the trace goes is said on stderr (with --no-stderr the server writes there itself, in any order).
        expect(normal.stderr.split('\n').sort()).toEqual(
          ['', 'banner on stderr', 'more noise', `tapedeck: recording to ${trace}`].sort(),
        );
        const full = await spawnRecord('/dev/full', server, extra).done;
        expect(full.code).toBe(0);
        expect(full.stdout.toString()).toBe(expected);
        expect(full.stderr).toContain('banner on stderr\n');
        expect(full.stderr).toMatch(/ENOSPC/);
      }
    },
  );
});
