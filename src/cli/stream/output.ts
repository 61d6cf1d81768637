import { TapedeckError } from '../../base/errors.js';

/**
 * Streaming output for commands that print a lot (a multi-GB trace through `show`): waits for the stream to drain
 * so memory stays flat, and treats a reader that went away (`show … | head` → EPIPE) as "stop", not a crash.
 */

export interface Output {
  /** Writes text; resolves false once the reader is gone, so the caller can stop producing. */
  write(text: string): Promise<boolean>;
  /** True when the reader went away. */
  readonly closed: boolean;
  /** Detaches the error listener. */
  dispose(): void;
}

/**
 * Wraps a writable stream (a command's stdout). Any other write failure (a full disk behind `> file`) is thrown as
 * one line naming the stream.
 *
 * @example const out = createOutput(io.stdout); if (!(await out.write('row\n'))) return; out.dispose();
 */
export function createOutput(stream: NodeJS.WritableStream, name = 'stdout'): Output {
  let closed = false;
  let failure: Error | undefined;
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true;
    else failure = new TapedeckError('io', `cannot write to ${name}: ${err.message}`);
  };
  stream.on('error', onError);
  // A stream an earlier writer saw fail (EPIPE) is destroyed: it takes no more writes and will never drain.
  if (isGone(stream)) closed = true;
  return {
    get closed() {
      return closed;
    },
    async write(text: string): Promise<boolean> {
      if (failure) throw failure;
      if (closed || text === '') return !closed;
      if (!stream.write(text)) {
        if (isGone(stream)) closed = true;
        else await drained(stream);
      }
      if (failure) throw failure;
      return !closed;
    },
    dispose() {
      stream.off('error', onError);
    },
  };
}

/** Whether a stream is destroyed or ended: a write to it fails, and no 'drain' or 'close' is still to come. */
function isGone(stream: NodeJS.WritableStream): boolean {
  const state = stream as { destroyed?: boolean; writableEnded?: boolean };
  return state.destroyed === true || state.writableEnded === true;
}

/**
 * Resolves at the stream's next 'drain' — or 'close' or 'error', so a destroyed stream cannot leave the writer
 * waiting for a drain that never comes (onError has classified the error already). Every listener it adds is
 * removed again whichever event comes first: a long output into a slow pipe waits thousands of times.
 */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
