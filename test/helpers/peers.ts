/**
 * Shared helpers for the end-to-end tests against real MCP peers (the official SDK client, server-everything,
 * server-filesystem, the Inspector CLI). Every path is derived from this file's location, so the tests run from
 * any clone after `npm ci && npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { EndLine, Json, MessageLine, MetaLine, TraceLine } from '../../src/trace/types.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODE_MODULES = join(REPO_ROOT, 'node_modules');
/** The built CLI; the tests exercise what `npm run build` produced, as a user would run it. */
export const TAPEDECK_BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
export const EVERYTHING_SERVER = join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_SERVER = join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');
export const INSPECTOR_CLI = join(NODE_MODULES, '@modelcontextprotocol/inspector-cli/build/index.js');
/** `node banner-everything.mjs <banner>`: server-everything that first prints a non-JSON line on stdout. */
export const BANNER_EVERYTHING = join(REPO_ROOT, 'test', 'fixtures', 'scripts', 'banner-everything.mjs');

/** A command line to spawn: a program and its arguments. */
export interface CommandLine {
  command: string;
  args: string[];
}

export function everythingServer(): CommandLine {
  return { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] };
}

export function bannerEverythingServer(banner: string): CommandLine {
  return { command: process.execPath, args: [BANNER_EVERYTHING, banner] };
}

export function filesystemServer(allowedDir: string): CommandLine {
  return { command: process.execPath, args: [FILESYSTEM_SERVER, allowedDir] };
}

/** Fails with the fix in the message, rather than with a puzzling spawn error deep inside a peer. */
function assertBuilt(): void {
  if (!existsSync(TAPEDECK_BIN)) throw new Error(`${TAPEDECK_BIN} is missing: run \`npm run build\` first`);
}

export type RecordTarget = { file: string } | { out: string };

/** `tapedeck record --file F -- <server>` (or `--out DIR`) as a command line. */
export function recorded(server: CommandLine, target: RecordTarget): CommandLine {
  assertBuilt();
  const where = 'file' in target ? ['--file', target.file] : ['--out', target.out];
  return {
    command: process.execPath,
    args: [TAPEDECK_BIN, 'record', ...where, '--', server.command, ...server.args],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Temp dirs

/** A fresh folder under the OS temp dir (realpath'd: servers that canonicalise paths report the same string). */
export async function makeTempDir(prefix = 'tapedeck-peers-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function removeTempDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------------------
// SDK client with a wire log

/**
 * A Transport decorator that keeps a JSON copy of every message the client sent and received, in order, so a
 * test can compare what the client saw with what the recorder wrote down.
 */
export class TappedTransport implements Transport {
  readonly sent: Json[] = [];
  readonly received: Json[] = [];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(private readonly inner: StdioClientTransport) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.received.push(toJson(message));
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    // What goes on the wire is JSON.stringify(message); the copy drops `undefined` members the same way.
    this.sent.push(toJson(message));
    await this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The child's stderr, filled by `connectClient`; kept to explain a failure. */
  stderrText = '';
}

export interface ConnectedClient {
  client: Client;
  transport: TappedTransport;
}

/**
 * Spawns `target` and connects an SDK `Client` to it over stdio. `setup` runs before `connect` so request
 * handlers (sampling, roots) are in place before the server can ask anything.
 */
export async function connectClient(
  target: CommandLine,
  options: ClientOptions,
  setup?: (client: Client) => void,
): Promise<ConnectedClient> {
  const inner = new StdioClientTransport({
    command: target.command,
    args: target.args,
    stderr: 'pipe',
    cwd: REPO_ROOT,
  });
  const transport = new TappedTransport(inner);
  inner.stderr?.on('data', (chunk: Buffer) => {
    transport.stderrText += chunk.toString('utf8');
  });
  const client = new Client({ name: 'tapedeck-e2e', version: '1.0.0' }, options);
  setup?.(client);
  await client.connect(transport);
  return { client, transport };
}

/** Runs `call` and returns its result, or `{ error }` with the message: both ways must fail the same way too. */
export async function settle<T>(call: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await call();
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

export function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

// ---------------------------------------------------------------------------------------------------------------
// Plain processes (the Inspector CLI)

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * Runs the MCP Inspector CLI non-interactively against a stdio server. Its working directory is `node_modules`
 * because inspector-cli 1.0.3 reads `../package.json` relative to the working directory.
 */
export function runInspector(server: CommandLine, methodArgs: string[]): Promise<ProcessResult> {
  return runProcess(process.execPath, [INSPECTOR_CLI, server.command, ...server.args, ...methodArgs], {
    cwd: NODE_MODULES,
  });
}

/**
 * `tapedeck record --file F <server>`: the server command without `--`, as a peer that cuts its own arguments at
 * the first `--` (the Inspector CLI) or a shell that drops it (PowerShell) passes it on.
 */
export function recordedWithoutDashes(server: CommandLine, traceFile: string): CommandLine {
  assertBuilt();
  return {
    command: process.execPath,
    args: [TAPEDECK_BIN, 'record', '--file', traceFile, server.command, ...server.args],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Traces

/**
 * Reads a trace file line by line with `JSON.parse` (independent of the project's own reader on purpose: these
 * tests check the file as any mcp-tape v1 reader would see it). A line that does not parse fails with its number.
 */
export function readTrace(path: string): TraceLine[] {
  const text = readFileSync(path, 'utf8');
  if (!text.endsWith('\n')) throw new Error(`${path}: the last line has no newline (torn write?)`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as TraceLine;
      } catch (err) {
        throw new Error(`${path}:${i + 1}: not JSON (${(err as Error).message}): ${line.slice(0, 200)}`);
      }
    });
}

export interface TraceParts {
  meta: MetaLine;
  end: EndLine;
  /** Every line between meta and end. */
  records: TraceLine[];
  messages: MessageLine[];
  /** `raw` of the client → server messages, in trace order. */
  in: Json[];
  /** `raw` of the server → client messages, in trace order. */
  out: Json[];
}

/** Splits a trace into its parts; throws when the first line is not `meta` or the last not `end`. */
export function traceParts(lines: TraceLine[]): TraceParts {
  const meta = lines[0];
  const end = lines.at(-1);
  if (meta?.type !== 'meta') throw new Error(`first line is not meta: ${JSON.stringify(meta)}`);
  if (end?.type !== 'end') throw new Error(`last line is not end: ${JSON.stringify(end)}`);
  const records = lines.slice(1, -1);
  const messages = records.filter(
    (line): line is MessageLine => line.type === undefined && 'raw' in line && 'dir' in line,
  );
  return {
    meta,
    end,
    records,
    messages,
    in: messages.filter((m) => m.dir === 'in').map((m) => m.raw),
    out: messages.filter((m) => m.dir === 'out').map((m) => m.raw),
  };
}

/** The JSON-RPC view of a message line's `raw`. */
export interface RpcView {
  id?: string | number;
  method?: string;
  params?: Record<string, Json>;
  result?: Record<string, Json>;
  error?: Json;
}

export function rpc(raw: Json): RpcView {
  return (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as RpcView;
}

export const isRequest = (m: RpcView): boolean => m.method !== undefined && m.id !== undefined;
export const isNotification = (m: RpcView): boolean => m.method !== undefined && m.id === undefined;
export const isResponse = (m: RpcView): boolean =>
  m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

/**
 * For every request sent in direction `dir`, the responses to it: messages in the opposite direction with the same
 * id. Pairing by direction matters: server→client ids restart at 0 and collide with the client's own ids.
 */
export function responsesByRequest(
  messages: MessageLine[],
  dir: 'in' | 'out',
): Map<MessageLine, MessageLine[]> {
  const pairs = new Map<MessageLine, MessageLine[]>();
  for (const request of messages) {
    const req = rpc(request.raw);
    if (request.dir !== dir || !isRequest(req)) continue;
    pairs.set(
      request,
      messages.filter((m) => {
        const view = rpc(m.raw);
        return m.dir !== dir && isResponse(view) && view.id === req.id;
      }),
    );
  }
  return pairs;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The checks an mcp-tape / mcpreplay.dev v1 reader relies on, returned as a list of problems (empty = fine) so a
 * failing test shows all of them at once.
 */
export function mcpTapeProblems(lines: TraceLine[]): string[] {
  const problems: string[] = [];
  const meta = lines[0] as Partial<MetaLine> | undefined;
  if (meta?.v !== 1 || meta.type !== 'meta') problems.push('line 1 is not {v:1,type:"meta"}');
  if (typeof meta?.startedAt !== 'string' || !ISO_MS.test(meta.startedAt)) problems.push('meta.startedAt');
  if (typeof meta?.label !== 'string' || meta.label === '') problems.push('meta.label');
  if (lines.at(-1)?.type !== 'end') problems.push('last line is not type "end"');
  lines.slice(1, -1).forEach((line, i) => {
    if (!('raw' in line)) return;
    const at = `line ${i + 2}`;
    const { t, dir } = line as { t?: unknown; dir?: unknown };
    if (typeof t !== 'string' || !ISO_MS.test(t) || Number.isNaN(Date.parse(t))) problems.push(`${at}: t`);
    if (dir !== 'in' && dir !== 'out') problems.push(`${at}: dir`);
  });
  return problems;
}
