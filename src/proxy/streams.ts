import { createWriteStream, fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

/** Our stdout for proxying; `owned` when it is a stream of our own that must be ended before exiting. */
export interface ProxyStdout {
  stream: Writable;
  owned: boolean;
}

/**
 * A writable for our own stdout that never blocks the event loop. On Linux `process.stdout` writes to pipes
 * synchronously, so a client that stops reading would freeze the proxy (and with it the other direction).
 * A socket on fd 1 gives asynchronous writes with real backpressure instead. Once this is called, nothing may
 * touch `process.stdout`: libuv refuses a second handle on an fd with writes pending (EEXIST).
 */
export function openStdout(): ProxyStdout {
  let kind: 'pipe' | 'file' | 'other' = 'other';
  try {
    const stat = fstatSync(1);
    kind = stat.isFIFO() || stat.isSocket() ? 'pipe' : stat.isFile() ? 'file' : 'other';
  } catch {
    kind = 'other';
  }
  if (kind === 'pipe') return { stream: new Socket({ fd: 1, readable: false, writable: true }), owned: true };
  if (kind === 'file') return { stream: createWriteStream('', { fd: 1, autoClose: false }), owned: true };
  return { stream: process.stdout, owned: false };
}

/** Resolves once everything written to `stdout` has left this process (or the reader has gone away). */
export function finishStdout(stdout: ProxyStdout): Promise<void> {
  if (!stdout.owned) return Promise.resolve();
  return new Promise((done) => {
    stdout.stream.once('error', () => done());
    stdout.stream.end(() => done());
  });
}
