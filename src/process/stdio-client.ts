import type { ChildProcess } from 'node:child_process';
import { LineFramer } from '../capture/line-framer.js';
import { spawnServer } from './spawn.js';

/**
 * The client side of a stdio MCP server in the shape of the official SDK's Transport, started through spawnServer,
 * so that a Client connected to it starts `npx` on Windows and stops the server's whole process tree there.
 * useCassette records through it. Like the SDK's own stdio transport: one JSON message per line, a line that is not
 * JSON is reported to `onerror` and skipped, and closing ends stdin, then waits, then stops the process.
 */

/** A JSON-RPC message as SDK transports pass it. */
export interface StdioMessage {
  jsonrpc: '2.0';
  [key: string]: unknown;
}

type Callback<A extends unknown[]> = { bivarianceHack(...args: A): void }['bivarianceHack'];

export interface ServerStdioOptions {
  command: string;
  args?: readonly string[];
  /** The server's whole environment (the SDK passes a short default one; give it here). */
  env: Record<string, string | undefined>;
  cwd?: string | undefined;
  /** Where the server's stderr goes; default: this process's. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** How long close() waits at each step — after ending stdin, after SIGTERM — before the next (default exitGraceMs). */
  graceMs?: number | undefined;
}

/** How long close() gives the server after ending its stdin, and again after stopping it, before it is killed. */
export const SERVER_STDIO_DEFAULTS = { exitGraceMs: 2000, maxLineBytes: 64 * 1024 * 1024 } as const;

/**
 * @example
 * const transport = new ServerStdioTransport({ command: 'npx', args: ['-y', 'server'], env: process.env });
 * await client.connect(transport);
 */
export class ServerStdioTransport {
  onclose?: Callback<[]> | undefined;
  onerror?: Callback<[error: Error]> | undefined;
  onmessage?: Callback<[message: StdioMessage]> | undefined;
  private child: ChildProcess | undefined;
  private readonly framer = new LineFramer({
    maxLineBytes: SERVER_STDIO_DEFAULTS.maxLineBytes,
    onLine: (line) => {
      if (line.kind === 'oversize') {
        this.onerror?.(new Error(`the server wrote a ${line.size}-byte line; skipped`));
        return;
      }
      const text = line.bytes.toString('utf8').replace(/\r$/, '');
      if (text.trim() === '') return;
      try {
        this.onmessage?.(JSON.parse(text) as StdioMessage);
      } catch (err) {
        this.onerror?.(
          new Error(`the server wrote a line that is not JSON: ${text.slice(0, 200)}`, { cause: err }),
        );
      }
    },
  });

  constructor(private readonly options: ServerStdioOptions) {}

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the server transport was already started'));
    return new Promise((resolve, reject) => {
      const child = spawnServer(this.options.command, [...(this.options.args ?? [])], {
        stdio: ['pipe', 'pipe', this.options.stderr ?? 'inherit'],
        env: this.options.env,
        ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.child = undefined;
        this.framer.end();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.framer.push(chunk));
    });
  }

  send(message: StdioMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('the server transport is not connected'));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server's stdin, gives it time to exit, then stops it (its whole tree on Windows), then kills it. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    const grace = this.options.graceMs ?? SERVER_STDIO_DEFAULTS.exitGraceMs;
    child.stdin?.end();
    await within(grace);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await within(grace);
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
