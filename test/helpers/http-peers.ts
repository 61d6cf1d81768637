/**
 * Real HTTP peers for the bridge tests: server-everything in its Streamable HTTP or legacy SSE mode on a free
 * port, and the bridge script that stands for `tapedeck record --upstream URL --stdio`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type CommandLine, EVERYTHING_SERVER, REPO_ROOT } from './peers.js';

export const BRIDGE_SCRIPT = join(REPO_ROOT, 'test', 'fixtures', 'scripts', 'bridge.mjs');

export interface HttpServer {
  url: string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (server-everything takes PORT and binds it itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * server-everything over HTTP; resolves once it listens. `stop()` kills it and waits for the exit. The free port
 * may be taken between the check and the server's own bind: one more try on a fresh port covers that race.
 */
export async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<HttpServer> {
  try {
    return await startOnce(mode);
  } catch {
    return startOnce(mode);
  }
}

async function startOnce(mode: 'streamableHttp' | 'sse'): Promise<HttpServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${log}`)),
      15_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (/listening on port|running on port/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited with ${code}: ${log}`));
    });
  });
  await started.catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  const path = mode === 'sse' ? '/sse' : '/mcp';
  return {
    url: `http://127.0.0.1:${port}${path}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** `record --upstream URL --stdio` into `trace`, as a command line a stdio client spawns. */
export function bridged(url: string, trace: string, extra: string[] = []): CommandLine {
  return { command: process.execPath, args: [BRIDGE_SCRIPT, trace, url, ...extra] };
}
