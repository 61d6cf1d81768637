import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { processSignalHandlers } from '../../src/base/process-signals.js';
import { discardEarly, type EarlyStreams, startEarly, takeEarly } from '../../src/cli/early-spawn.js';
import { EarlyRelay } from '../../src/proxy/early-relay.js';
import { startServer } from '../../src/proxy/start.js';

/** The client's side of the early relay, in memory: nothing touches the test process's own stdio. */
function clientSide(): EarlyStreams & {
  input: PassThrough;
  output: { stream: PassThrough; owned: false };
  read: () => string;
} {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk;
  });
  return {
    input: new PassThrough(),
    output: { stream: output, owned: false },
    errorOutput: new PassThrough(),
    read: () => text,
  };
}

/** Takes the early server over as the recorder does; the test's afterEach stops passing signals on to it. */
const taken: Array<() => void> = [];
function take(argv: readonly string[], stderr: 'pipe' | 'inherit'): ReturnType<typeof takeEarly> {
  const handover = takeEarly(argv, stderr);
  taken.push(handover.stopSignals);
  return handover;
}

function stopAll(): void {
  discardEarly();
  for (const stop of taken.splice(0)) stop();
}

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
  afterEach(stopAll);

  it('hands the running server to the recorder that asks for the same command', async () => {
    startEarly(['record', '--out', '/tmp/x', '--label', 'l', '--', ...waiting], clientSide());
    const { server } = take(waiting, 'pipe');
    expect(server).toBeDefined();
    expect(await server!.spawned).toBeUndefined();
    expect(server!.child!.stderr).not.toBeNull();
    // Handed over once.
    expect(take(waiting, 'pipe').server).toBeUndefined();
    server!.child!.kill('SIGKILL');
    await server!.exited;
  });

  it.each([
    [['--out', '/tmp/x', '--label', 'l']],
    [['--live', '-q', '--file', '/tmp/x.jsonl']],
    [['--live', 'http://127.0.0.1:7420', '--fault=drop@ping']],
  ])('starts the server of a command line without -- after the options %j', async (options) => {
    // A fault keeps the relay off; either way the server is started and handed over.
    startEarly(['record', ...options, ...waiting], clientSide());
    const { server } = take(waiting, 'pipe');
    expect(server).toBeDefined();
    expect(await server!.spawned).toBeUndefined();
    server!.child!.kill('SIGKILL');
    await server!.exited;
  });

  it('keeps the server stderr as asked: --no-stderr leaves it on the terminal', async () => {
    startEarly(['record', '--no-stderr', '--', ...waiting], clientSide());
    const { server } = take(waiting, 'inherit');
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
      startEarly(['record', '--', ...noting(pidFile)], clientSide());
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(take(argv, stderr).server).toBeUndefined();
      await until(() => !alive(pid));
    }
  });

  it('stops a server whose command line the recorder refused', async () => {
    const pidFile = join(dir, 'pid-refused');
    startEarly(['record', '--', ...noting(pidFile)], clientSide());
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    // What bin.js does after a usage error: the early server is stopped.
    discardEarly();
    await until(() => !alive(Number(readFileSync(pidFile, 'utf8'))));
    expect(take(waiting, 'pipe').server).toBeUndefined();
  });

  it.each([
    [['show', 'x.jsonl']],
    [['record', '--upstream', 'http://127.0.0.1:1/mcp', '--stdio']],
    [['record', '--help', '--', 'node']],
    [['record', '--redact-defaults', '--', 'node']],
    [['record', '--']],
    [['record', '--out', '/tmp/x', '--label', 'l']],
    [['record', '--help', 'node', 'server.js']],
  ])('starts nothing for %j', (argv) => {
    const before = processSignalHandlers('SIGTERM');
    startEarly(argv, clientSide());
    // Nothing started, so nothing to pass a signal on to: the default action (ending the process) is kept.
    expect(processSignalHandlers('SIGTERM')).toBe(before);
    const { server, traffic } = take(['node'], 'pipe');
    expect([server, traffic]).toEqual([undefined, undefined]);
  });

  it('passes signals on to the server until the recorder says it does so itself', async () => {
    const before = processSignalHandlers('SIGTERM');
    startEarly(['record', '--', ...waiting], clientSide());
    // A handler is what keeps a signal from ending the process before the recorder is loaded.
    expect(processSignalHandlers('SIGTERM')).toBe(before + 1);
    const { server, stopSignals } = take(waiting, 'pipe');
    // Taken over, but the recorder's proxy does not pass signals on yet: still passed on from here.
    expect(processSignalHandlers('SIGTERM')).toBe(before + 1);
    stopSignals();
    expect(processSignalHandlers('SIGTERM')).toBe(before);
    server!.child!.kill('SIGKILL');
    await server!.exited;
  });

  it('stops passing signals on when the server is not taken, or the command line is refused', () => {
    const before = processSignalHandlers('SIGINT');
    startEarly(['record', '--', ...waiting], clientSide());
    take([...waiting, 'other'], 'pipe');
    expect(processSignalHandlers('SIGINT')).toBe(before);
    startEarly(['record', '--', ...waiting], clientSide());
    discardEarly();
    expect(processSignalHandlers('SIGINT')).toBe(before);
  });
});

/** A server that echoes every line it reads back in upper case, and says it started on stderr. */
const shouting = [
  process.execPath,
  '-e',
  "process.stderr.write('up\\n'); process.stdin.on('data', (d) => process.stdout.write(String(d).toUpperCase()))",
];

describe('relaying before the recorder is loaded', () => {
  afterEach(stopAll);

  it('forwards both ways at once and hands every chunk over, stamped when it was read', async () => {
    const client = clientSide();
    const before = Date.now();
    startEarly(['record', '--', ...shouting], client);
    client.input.write('{"id":1}\n');
    await until(() => client.read() === '{"ID":1}\n');
    const { server, traffic } = take(shouting, 'pipe');
    expect(server).toBeDefined();
    const sources = traffic!.chunks.map(({ source, chunk }) => [source, String(chunk)]);
    expect(sources).toContainEqual(['client', '{"id":1}\n']);
    expect(sources).toContainEqual(['server', '{"ID":1}\n']);
    expect(sources.indexOf(sources.find(([s]) => s === 'client')!)).toBeLessThan(
      sources.indexOf(sources.find(([s]) => s === 'server')!),
    );
    for (const { atMs } of traffic!.chunks) {
      expect(atMs).toBeGreaterThanOrEqual(before);
      expect(atMs).toBeLessThanOrEqual(Date.now());
    }
    expect(server!.startedAtMs).toBeGreaterThanOrEqual(before);
    expect(traffic!.output.stream).toBe(client.output.stream);
    // Taken over: the relay reads no more; what the client writes now waits for the recorder.
    client.input.write('{"id":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(client.read()).toBe('{"ID":1}\n');
    expect(client.input.readableLength).toBeGreaterThan(0);
    server!.child!.kill('SIGKILL');
    await server!.exited;
  });

  it('passes the end of the client input on to the server', async () => {
    const client = clientSide();
    const echoUntilEnd = [
      process.execPath,
      '-e',
      "process.stdin.resume().on('end', () => process.stdout.write('bye'))",
    ];
    startEarly(['record', '--', ...echoUntilEnd], client);
    client.input.end();
    await until(() => client.read() === 'bye');
    const { server } = take(echoUntilEnd, 'pipe');
    expect(await server!.exited).toEqual({ code: 0, signal: null });
  });

  it('relays nothing when faults are to be injected: the recorder must see every byte first', async () => {
    for (const fault of ['--fault', '--faults=profile.yaml']) {
      const client = clientSide();
      const argv = fault === '--fault' ? ['record', fault, 'error@tools/call'] : ['record', fault];
      startEarly([...argv, '--', ...shouting], client);
      client.input.write('{"id":1}\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(client.read()).toBe('');
      const { server, traffic } = take(shouting, 'pipe');
      expect(traffic).toBeUndefined();
      server!.child!.kill('SIGKILL');
      await server!.exited;
    }
  });

  it('keeps reading the server when the client is gone, and hands the write error over with its time', async () => {
    const client = clientSide();
    // A client that stopped reading (nothing it is sent is taken), then goes away.
    const gone = new Writable({ highWaterMark: 1, write: () => {} });
    const [command, ...args] = shouting as [string, ...string[]];
    const server = startServer(command, args, { stderr: 'pipe' });
    const relay = new EarlyRelay(server, { ...client, output: { stream: gone, owned: false } });
    const before = Date.now();
    client.input.write('{"id":1}\n');
    await until(() => gone.writableLength > 0);
    const closed = new Promise((resolve) => gone.once('close', resolve));
    gone.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await closed;
    // What the server answers now goes nowhere, but it is read as it comes, not held until the recorder is loaded
    // (its trace copy would carry the time of the take-over).
    const stdout = server.child!.stdout!;
    expect(stdout.isPaused()).toBe(false);
    let seen = '';
    stdout.on('data', (chunk: Buffer) => {
      seen += chunk;
    });
    client.input.write('{"id":2}\n');
    await until(() => seen.includes('{"ID":2}'));
    const { chunks, writeError } = relay.take();
    expect(writeError).toEqual({ error: 'EPIPE', atMs: expect.any(Number) });
    expect(writeError!.atMs).toBeGreaterThanOrEqual(before);
    const answers = chunks.filter((c) => c.source === 'server').map((c) => c.chunk);
    expect(String(Buffer.concat(answers))).toBe('{"ID":1}\n{"ID":2}\n');
    server.child!.kill('SIGKILL');
    await server.exited;
  });

  it('hands what was relayed over even when the recorder starts a server of its own', async () => {
    const client = clientSide();
    startEarly(['record', '--', ...shouting], client);
    client.input.write('hello\n');
    await until(() => client.read() === 'HELLO\n');
    const { server, traffic } = take([...shouting, 'other'], 'pipe');
    expect(server).toBeUndefined();
    expect(traffic!.chunks.filter((c) => c.source === 'client').map((c) => String(c.chunk))).toEqual([
      'hello\n',
    ]);
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
