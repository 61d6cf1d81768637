import { type CliIo, sessionStdio } from './io.js';
import { holdSignals } from './signals.js';

/**
 * A session served on stdio (`replay` and `run` on stdio): the protocol channel, on the run's stdin and stdout
 * (the process's own for `tapedeck`, through a writer that never blocks: see sessionStdio).
 */

/** What a served session gives back: its outcome once over, and a way to end it early. */
export interface StdioSession<T> {
  readonly done: Promise<T>;
  stop(): void;
}

/**
 * Starts a session on the run's stdin and stdout, stops it on SIGINT / SIGTERM / SIGHUP, and resolves to its
 * outcome once everything it wrote has left (or after 2 s: a client that stopped reading must not keep us alive;
 * its loss, the report still goes out).
 *
 * @example const outcome = await serveOnStdio(io, (input, output) => serveStdio(cassette, { input, output }));
 */
export async function serveOnStdio<T>(
  io: CliIo,
  serve: (input: NodeJS.ReadableStream, output: NodeJS.WritableStream) => StdioSession<T>,
): Promise<T> {
  const { input, output, finish } = sessionStdio(io);
  const session = serve(input, output);
  // A client commonly closes stdin and signals right after (the 2026-era SDK ends its probe process that way); a
  // late signal calls stop() on a finished session, which does nothing.
  const held = holdSignals(() => session.stop());
  try {
    const outcome = await session.done;
    await Promise.race([finish(), new Promise((done) => setTimeout(done, 2000).unref())]);
    return outcome;
  } finally {
    held.release();
  }
}
