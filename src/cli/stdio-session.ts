import type { Writable } from 'node:stream';
import { finishStdout, openStdout } from '../proxy/streams.js';
import { holdSignals } from './signals.js';

/**
 * A session served on the process's own stdin and stdout (`replay` and `run` on stdio): the protocol channel,
 * not a command's output, so it stays on the process whatever the run's CliIo says.
 */

/** What a served session gives back: its outcome once over, and a way to end it early. */
export interface StdioSession<T> {
  readonly done: Promise<T>;
  stop(): void;
}

/**
 * Starts a session on stdin and a non-blocking stdout, stops it on SIGINT / SIGTERM / SIGHUP, and resolves to its
 * outcome once everything it wrote has left (or after 2 s: a client that stopped reading must not keep us alive;
 * its loss, the report still goes out).
 *
 * @example const outcome = await serveOnStdio((input, output) => serveStdio(cassette, { input, output }));
 */
export async function serveOnStdio<T>(
  serve: (input: NodeJS.ReadableStream, output: Writable) => StdioSession<T>,
): Promise<T> {
  const output = openStdout();
  const session = serve(process.stdin, output.stream);
  // A client commonly closes stdin and signals right after (the 2026-era SDK ends its probe process that way); a
  // late signal calls stop() on a finished session, which does nothing.
  const held = holdSignals(() => session.stop());
  try {
    const outcome = await session.done;
    await Promise.race([finishStdout(output), new Promise((done) => setTimeout(done, 2000).unref())]);
    return outcome;
  } finally {
    held.release();
  }
}
