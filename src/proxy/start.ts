import type { ChildProcess } from 'node:child_process';
import { spawnServer } from '../process/spawn.js';

/**
 * A server process as the stdio proxy runs it: started (or failed to start) and, later, exited. Its outcome is
 * captured from the moment it is spawned, so a proxy that attaches later — `record` starts the server before it
 * has loaded the code that records — still sees a failed start or an early exit. Its output waits in the pipes
 * meanwhile: nothing is read until the proxy attaches.
 */
export interface StartedServer {
  command: string;
  args: readonly string[];
  /** The process; undefined when it could not even be spawned as written (see `spawned`). */
  child: ChildProcess | undefined;
  /** When it was started (ms since the epoch): the trace's spawn event says so, however late it is written. */
  startedAtMs: number;
  /** Whether the server's stderr is a pipe (to be recorded) or this process's own stderr. */
  stderr: 'pipe' | 'inherit';
  /** Resolves once the process runs, or to the error that kept it from running (ENOENT, EACCES …). */
  spawned: Promise<NodeJS.ErrnoException | undefined>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Lets the server's output flow to the listeners attached by now. Until then it is held: read up to the stream's
   * buffer size and kept (the server is paused by the pipe beyond that), even if the server has exited meanwhile.
   */
  release(): void;
  /**
   * Stops a server the recorder will not take after all (its command line was refused): ends its stdin too, so a
   * server that ignores SIGTERM still sees end of input and exits on its own.
   */
  stop(): void;
}

export interface StartServerOptions {
  stderr: 'pipe' | 'inherit';
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Spawns a stdio server with piped stdin/stdout (and stderr when it is to be recorded).
 *
 * @example const server = startServer('node', ['server.js'], { stderr: 'pipe' }); if (await server.spawned) …
 */
export function startServer(
  command: string,
  args: readonly string[],
  options: StartServerOptions,
): StartedServer {
  let child: ChildProcess;
  const startedAtMs = Date.now();
  try {
    // Through the spawn helper: on Windows that is what finds `npx` (a .cmd file) and runs it safely.
    child = spawnServer(command, args, {
      stdio: ['pipe', 'pipe', options.stderr],
      env: options.env ?? process.env,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
  } catch (err) {
    // Written so that it cannot start (a NUL byte; on Windows a .ps1 file): reported like a failed start.
    const failure = err as NodeJS.ErrnoException;
    const never = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(() => {});
    return {
      command,
      args,
      child: undefined,
      startedAtMs,
      stderr: options.stderr,
      spawned: Promise.resolve(failure),
      exited: never,
      release: () => {},
      stop: () => {},
    };
  }
  const spawned = new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', (err) => resolve(err));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // Node hands an unread child output stream to `resume()` when the child exits, which drops what it holds; a
  // 'readable' listener marks the stream as read, so output written before the proxy attached is kept.
  const hold = () => {};
  const held = [child.stdout, child.stderr].filter((stream) => stream !== null);
  for (const stream of held) stream.on('readable', hold);
  const release = () => {
    for (const stream of held) stream.off('readable', hold);
  };
  const stop = () => {
    child.stdin?.destroy();
    child.kill('SIGTERM');
  };
  return { command, args, child, startedAtMs, stderr: options.stderr, spawned, exited, release, stop };
}
