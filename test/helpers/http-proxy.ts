/**
 * Shared pieces of the HTTP recording proxy tests: server-everything in an HTTP mode on a free port, the proxy
 * in-process with a memory sink, and small readers for the lines it recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConnection } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { type HttpProxy, type HttpProxyOptions, startHttpProxy } from '../../src/proxy/http/server.js';
import { shownUrl } from '../../src/proxy/http/url.js';
import { createRedactor } from '../../src/redact/engine.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';
import type { EventLine, HttpLine, MessageLine, TraceLine } from '../../src/trace/types.js';
import { EVERYTHING_SERVER, REPO_ROOT } from './peers.js';

/** A port nobody listens on right now (the OS picks it; server-everything cannot listen on 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (polls; rejects after `timeoutMs`). */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RunningEverything {
  child: ChildProcess;
  port: number;
  /** The base URL (`http://127.0.0.1:PORT`). */
  origin: string;
  stop(): Promise<void>;
}

/** server-everything in `streamableHttp` or `sse` mode on a free port (PORT set: it binds every interface). */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<RunningEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  await waitForPort(port);
  return {
    child,
    port,
    origin: `http://127.0.0.1:${port}`,
    stop: () => stopChild(child),
  };
}

/** Kills a child process and waits for it to be gone. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export interface RecordingProxy {
  proxy: HttpProxy;
  sink: MemorySink;
  /** Closes the proxy and the sink (with its `end` line). */
  stop(): Promise<void>;
}

/** The recording proxy in-process, on an ephemeral port, recording into memory with the default redaction. */
export async function startRecording(
  upstream: string,
  options: Partial<Omit<HttpProxyOptions, 'upstream' | 'sink'>> = {},
): Promise<RecordingProxy> {
  // The built-in rules, as `tapedeck record` applies them by default.
  const sink = new MemorySink({ redact: createRedactor({ defaults: true, rules: [], mode: 'marker' }) });
  sink.start(newMeta({ label: 'test', transport: 'http', url: shownUrl(upstream) }));
  const proxy = await startHttpProxy({ upstream: new URL(upstream), sink, port: 0, ...options });
  return {
    proxy,
    sink,
    stop: async () => {
      await proxy.close(0);
      await sink.close({ reason: 'producer_shutdown' });
    },
  };
}

/** A throwaway HTTP server for what real servers cannot do on demand. */
export async function startUpstream(handler: RequestListener): Promise<{
  server: Server;
  origin: string;
  close(): Promise<void>;
}> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const messagesOf = (lines: TraceLine[]): MessageLine[] =>
  lines.filter((l): l is MessageLine => l.type === undefined && 'raw' in l);
export const httpOf = (lines: TraceLine[]): HttpLine[] =>
  lines.filter((l): l is HttpLine => l.type === 'http');
export const eventsOf = (lines: TraceLine[], name?: string): EventLine[] =>
  lines.filter((l): l is EventLine => l.type === 'event' && (name === undefined || l.name === name));

/** The JSON-RPC fields of a message line's `raw` (loosely typed: tests look at them). */
export interface RpcFields {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
}

export function rpcOf(line: MessageLine): RpcFields {
  return (
    typeof line.raw === 'object' && line.raw !== null && !Array.isArray(line.raw) ? line.raw : {}
  ) as never;
}

/** Polls `predicate` until it holds (rejects after `timeoutMs`). */
export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What {@link useDirectAndProxied} gives the tests of a describe block, filled in before they run. */
export interface DirectAndProxied<T> {
  /** The session's results against server-everything itself, then through the recording proxy. */
  direct: T;
  proxied: T;
  /** What the proxy recorded, its end line included. */
  lines: TraceLine[];
}

/**
 * For a describe block: server-everything in `mode`, `session` run once against it directly and once through a
 * recording proxy in front of `path`, the proxy closed; everything stopped after the block.
 */
export function useDirectAndProxied<T>(
  mode: 'streamableHttp' | 'sse',
  path: string,
  session: (url: string) => Promise<T>,
): DirectAndProxied<T> {
  const run = {} as DirectAndProxied<T>;
  let everything: RunningEverything | undefined;
  let recording: RecordingProxy | undefined;
  beforeAll(async () => {
    everything = await startEverything(mode);
    recording = await startRecording(`${everything.origin}${path}`);
    run.direct = await session(`${everything.origin}${path}`);
    run.proxied = await session(recording.proxy.url);
    await recording.stop();
    run.lines = recording.sink.lines;
  });
  afterAll(async () => {
    await recording?.stop();
    await everything?.stop();
  });
  return run;
}
