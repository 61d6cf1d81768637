import { type FileHandle, open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `tail -F` for traces: yields the bytes of a file as they are appended, polling for growth. Bytes (not text or
 * lines) so the ordinary line reader does the framing: a half-written last line simply waits for the next chunk.
 * Rotation (the active file renamed away and a fresh one created) is followed onto the new file after the old one
 * is drained; truncation in place restarts from the top.
 */

export interface FollowOptions {
  /** Stops following: the generator drains what is there and returns. */
  signal?: AbortSignal;
  /** Poll interval in ms (default 200). */
  pollMs?: number;
  /** Read size in bytes (default 64 KiB). */
  chunkBytes?: number;
}

/**
 * Follows a growing file until `signal` aborts or the consumer stops iterating (e.g. after the `end` line).
 *
 * @example
 * const stop = new AbortController();
 * for await (const chunk of followFile('live.jsonl', { signal: stop.signal })) process.stdout.write(chunk);
 */
export async function* followFile(path: string, options: FollowOptions = {}): AsyncGenerator<Uint8Array> {
  const pollMs = options.pollMs ?? 200;
  const buffer = new Uint8Array(options.chunkBytes ?? 64 * 1024);
  let handle: FileHandle = await open(path, 'r');
  let position = 0;
  try {
    while (true) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead > 0) {
        position += bytesRead;
        // Copy: the buffer is reused for the next read while the consumer may still hold this chunk.
        yield buffer.slice(0, bytesRead);
        continue;
      }
      const current = await stat(path).catch(() => undefined);
      const mine = await handle.stat();
      if (current && current.ino !== mine.ino) {
        // Rotated: the old file is drained (we are at its end), carry on with the new active file.
        await handle.close();
        handle = await open(path, 'r');
        position = 0;
        continue;
      }
      if (mine.size < position) {
        position = 0;
        continue;
      }
      if (options.signal?.aborted) return;
      await sleep(pollMs, undefined, options.signal ? { signal: options.signal } : {}).catch(() => {});
    }
  } finally {
    await handle.close().catch(() => {});
  }
}
