/**
 * Helpers for the end-to-end tests of `tapedeck record` as a process: spawn the built CLI around a fixture server,
 * feed its stdin in random chunks, collect what comes out, read the trace back. Every path is derived from this
 * file's location, so the tests run from any clone after `npm run build`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built CLI: the tests exercise what `npm run build` produced, as a user runs it. */
export const TAPEDECK_BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
export const FIXTURE_SERVERS = join(REPO_ROOT, 'test', 'fixtures', 'servers');

/** `node <fixture server> args…` as a command line for after `--`. */
export function fixtureServer(name: string, ...args: string[]): string[] {
  return [process.execPath, join(FIXTURE_SERVERS, name), ...args];
}

export interface ProxyExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Everything the proxy wrote to stdout (empty when the caller reads stdout itself). */
  stdout: Buffer;
  stderr: string;
  /** From spawn to exit, in ms. */
  ms: number;
}

export interface ProxyRun {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the proxy has exited and its stdout and stderr are closed. */
  done: Promise<ProxyExit>;
  /** What stdout and stderr carried so far. */
  stdoutSoFar(): Buffer;
  stderrSoFar(): string;
}

export interface SpawnProxyOptions {
  /**
   * Collect stdout into `ProxyExit.stdout` (default). `false` leaves the stream paused for the caller — but note
   * that Node resumes (and discards) an unread child stdout right after the child's `exit` event, so a caller that
   * reads late must start reading in an `exit` listener at the latest.
   */
  collectStdout?: boolean;
  env?: NodeJS.ProcessEnv;
  /** The working folder (default: this process's). */
  cwd?: string;
  /** Node's own options, before the script (e.g. `--require` a hook). */
  nodeOptions?: string[];
}

/** Spawns `node dist/cli/bin.js <args…>` with all three stdio streams piped. */
export function spawnTapedeck(args: string[], options: SpawnProxyOptions = {}): ProxyRun {
  const started = Date.now();
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), TAPEDECK_BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  if (options.collectStdout !== false) child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  // The proxy may exit before the client finished writing; that is a case under test, not a test failure.
  child.stdin.on('error', () => {});
  const done = new Promise<ProxyExit>((resolveDone) => {
    child.once('close', (code, signal) => {
      resolveDone({
        code,
        signal,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
      });
    });
  });
  return {
    child,
    done,
    stdoutSoFar: () => Buffer.concat(out),
    stderrSoFar: () => Buffer.concat(err).toString('utf8'),
  };
}

/** `tapedeck record --file <trace> <extra…> -- <server…>`. */
export function spawnRecord(
  trace: string,
  server: string[],
  extra: string[] = [],
  options: SpawnProxyOptions = {},
): ProxyRun {
  return spawnTapedeck(['record', '--file', trace, ...extra, '--', ...server], options);
}

/**
 * `tapedeck record --upstream URL --listen 127.0.0.1:0 --out DIR`, resolved once it says where it listens: the
 * running recorder and the address a client connects to.
 */
export async function recordUpstream(
  upstream: string,
  out: string,
): Promise<{ recorder: ProxyRun; url: string }> {
  const recorder = spawnTapedeck(['record', '--upstream', upstream, '--listen', '127.0.0.1:0', '--out', out]);
  let url = '';
  await waitFor(
    () => {
      url = /recording (\S+)/.exec(recorder.stderrSoFar())?.[1] ?? '';
      return url !== '';
    },
    15_000,
    'the recorder listening',
  );
  return { recorder, url };
}

/** Resolves once `predicate` holds for the collected stdout (polls; rejects after `timeoutMs`). */
export async function waitFor(
  predicate: () => boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

// ---------------------------------------------------------------------------------------------------------------
// Seeded randomness and chunked writes

/** mulberry32: a small seeded PRNG, so a failing fuzz case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random integer in [min, max]. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * Writes `data` to `stream` in random chunk sizes (mostly tiny, sometimes up to 64 KB), honouring backpressure
 * and now and then yielding to the event loop, so the reader sees many different boundaries. Ends the stream
 * unless `end` is false.
 */
export async function writeInRandomChunks(
  stream: Writable,
  data: Buffer,
  random: () => number,
  end = true,
): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const r = random();
    const size =
      r < 0.4 ? randomInt(random, 1, 8) : r < 0.8 ? randomInt(random, 1, 512) : randomInt(random, 1, 65536);
    const next = Math.min(data.length, offset + size);
    const ok = stream.write(data.subarray(offset, next));
    offset = next;
    if (!ok) await waitDrain(stream);
    else if (random() < 0.1) await sleep(random() < 0.5 ? 0 : 1);
  }
  if (end) stream.end();
}

/** Resolves when `stream` drains, or closes (a dead reader never drains). */
export function waitDrain(stream: Writable): Promise<void> {
  // A stream that is already gone (or already drained) emits nothing more.
  if (stream.destroyed || !stream.writableNeedDrain) return Promise.resolve();
  return new Promise((done) => {
    const finish = () => {
      stream.off('drain', finish);
      stream.off('close', finish);
      done();
    };
    stream.once('drain', finish);
    stream.once('close', finish);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Temp dirs, traces, processes

/** A fresh folder under the OS temp dir; pass it to `removeTempDir` in `afterAll`/`afterEach`. */
export function makeTempDir(prefix = 'tapedeck-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeTempDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

/** A trace line as parsed back from the file; loosely typed on purpose, tests assert on its fields. */
export type Parsed = Record<string, unknown>;

/** Reads a trace file and parses every line (throws on a corrupt line). */
export function readTrace(path: string): Parsed[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Parsed);
}

/** Resident set size of a process in KB, from /proc; undefined once it is gone. */
export function rssKb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
