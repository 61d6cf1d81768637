import { createWriteStream, fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

/**
 * A writable for our own stdout that never blocks the event loop. On Linux `process.stdout` writes to pipes
 * synchronously, so a client that stops reading would freeze the proxy (and with it the other direction).
 * A socket on fd 1 gives asynchronous writes with real backpressure instead.
 */
export function openStdout(): Writable {
  let kind: 'pipe' | 'file' | 'other' = 'other';
  try {
    const stat = fstatSync(1);
    kind = stat.isFIFO() || stat.isSocket() ? 'pipe' : stat.isFile() ? 'file' : 'other';
  } catch {
    kind = 'other';
  }
  if (kind === 'pipe') {
    // Create Node's own lazy `process.stdout` handle first, while fd 1 is idle. libuv refuses a second handle on an
    // fd that has an active watcher (EEXIST), so touching `process.stdout` later — while our socket still has
    // writes queued for a slow client — would throw and lose the queued tail.
    void process.stdout;
    return new Socket({ fd: 1, readable: false, writable: true });
  }
  if (kind === 'file') return createWriteStream('', { fd: 1, autoClose: false });
  return process.stdout;
}
