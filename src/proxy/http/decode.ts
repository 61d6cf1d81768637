import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Where decoded bytes of a body copy go. */
export interface CopyDecoder {
  write(chunk: Buffer): void;
  /** The body ended; `done` runs once every decoded byte has been delivered. */
  end(done: () => void): void;
  /** Drops whatever is still being decoded (the exchange was cut short). */
  destroy(): void;
}

/**
 * Undoes a `Content-Encoding` on the trace's copy of a body, so a gzip-compressed JSON or event-stream answer is
 * still recorded as messages. The forwarded bytes stay compressed: the client asked for them that way. An
 * encoding we cannot undo yields undefined (the caller records an event instead of garbage).
 *
 * @example const decoder = copyDecoder('gzip', (bytes) => tap.push(bytes), () => {}); decoder?.write(chunk);
 */
export function copyDecoder(
  encoding: string | undefined,
  onData: (chunk: Buffer) => void,
  onError: (err: Error) => void,
): CopyDecoder | undefined {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === '' || name === 'identity') {
    return { write: onData, end: (done) => done(), destroy: () => {} };
  }
  let stream: Transform;
  if (name === 'gzip' || name === 'x-gzip') stream = createGunzip();
  else if (name === 'deflate') stream = createInflate();
  else if (name === 'br') stream = createBrotliDecompress();
  else return undefined;
  let failed = false;
  stream.on('data', onData);
  stream.on('error', (err: Error) => {
    failed = true;
    onError(err);
  });
  return {
    write: (chunk) => {
      if (!failed) stream.write(chunk);
    },
    end: (done) => {
      if (failed) return done();
      stream.once('end', done);
      stream.once('error', () => done());
      stream.end();
    },
    destroy: () => stream.destroy(),
  };
}
