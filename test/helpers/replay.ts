/**
 * Helpers for the end-to-end tests of `tapedeck replay`: the official SDK client connected to the built CLI over
 * stdio (with the replay process's exit code and stderr kept), raw JSON lines piped through it, and a look at the
 * process tree (replay must never start a server).
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Json } from '../../src/trace/types.js';
import { type CommandLine, REPO_ROOT, TAPEDECK_BIN } from './peers.js';
import { spawnTapedeck, waitFor } from './proxy.js';

/** A ceiling for replay's answers, not a budget: on a loaded machine its start alone may take seconds. */
const ANSWERS_MS = 45_000;

/** `node dist/cli/bin.js replay <cassette> <flags…>` as a command line. */
export function replayCommand(cassette: string, flags: string[] = []): CommandLine {
  return { command: process.execPath, args: [TAPEDECK_BIN, 'replay', cassette, ...flags] };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The SDK's own StdioClientTransport, plus the spawned process's exit status and stderr: the SDK keeps its child
 * process private (`_process`, SDK 1.32), and the tests need to know how `tapedeck replay` exited.
 */
export class WatchedStdioTransport extends StdioClientTransport {
  stderrText = '';
  exit: Promise<Exit> = Promise.resolve({ code: null, signal: null });

  constructor(target: CommandLine) {
    super({ command: target.command, args: target.args, stderr: 'pipe', cwd: REPO_ROOT });
    this.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8');
    });
  }

  override async start(): Promise<void> {
    await super.start();
    const child = (this as unknown as { _process: ChildProcess })._process;
    this.exit = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }
}

export interface ReplaySession {
  client: Client;
  transport: WatchedStdioTransport;
  /** Closes the client (stdin EOF) and resolves with how the replay process exited and what it said. */
  finish(): Promise<Exit & { stderr: string }>;
}

/** Connects a fresh SDK client to `target` (usually `replayCommand(…)`); `setup` runs before connect. */
export async function connectSession(
  target: CommandLine,
  options: ClientOptions = {},
  setup?: (client: Client) => void,
  info = { name: 'tapedeck-replay-e2e', version: '2.0.0' },
): Promise<ReplaySession> {
  const transport = new WatchedStdioTransport(target);
  const client = new Client(info, options);
  setup?.(client);
  await client.connect(transport);
  return {
    client,
    transport,
    async finish() {
      await client.close();
      const exit = await transport.exit;
      return { ...exit, stderr: transport.stderrText };
    },
  };
}

/** Runs `call`, turning a rejection into `{ error: message }` so both outcomes compare as data. */
export async function outcome<T>(call: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await call();
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

export interface PipedRun extends Exit {
  /** Every stdout line, parsed. */
  messages: Json[];
  stdout: string;
  stderr: string;
}

/**
 * Pipes JSON lines into `tapedeck replay <cassette>` (a string is written as the line itself, JSON or not):
 * writes them, then either closes stdin (EOF) or, with
 * `signal`, waits for `responses` answers and sends the signal with stdin still open.
 */
export async function pipeReplay(
  cassette: string,
  flags: string[],
  messages: Json[],
  options: { signal?: NodeJS.Signals; responses?: number } = {},
): Promise<PipedRun> {
  const run = spawnTapedeck(['replay', cassette, ...flags]);
  run.child.stdin.write(messages.map((m) => `${typeof m === 'string' ? m : JSON.stringify(m)}\n`).join(''));
  if (options.signal) {
    const want = options.responses ?? messages.length;
    // The signal goes once the answers are out (or the process ended on its own); the ceiling is only there to fail
    // with a clear message well before the test's own timeout, however slow a loaded machine is.
    await waitFor(
      () =>
        run.stdoutSoFar().toString('utf8').split('\n').length - 1 >= want ||
        run.child.exitCode !== null ||
        run.child.signalCode !== null,
      ANSWERS_MS,
      `${want} answer line(s) from tapedeck replay`,
    );
    run.child.kill(options.signal);
  } else run.child.stdin.end();
  const exit = await run.done;
  const stdout = exit.stdout.toString('utf8');
  return {
    code: exit.code,
    signal: exit.signal,
    stdout,
    stderr: exit.stderr,
    messages: stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Json),
  };
}

/** Pids of the direct children of `pid` (every thread's), from /proc. */
export function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (text !== '') pids.push(...text.split(/\s+/).map(Number));
  }
  return pids;
}

/** A JSON-RPC request. */
export function request(id: number | string, method: string, params?: Record<string, Json>): Json {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}
