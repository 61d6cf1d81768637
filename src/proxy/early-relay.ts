import type { Readable, Writable } from 'node:stream';
import { pauseUntilDrained } from './pump.js';
import type { StartedServer } from './start.js';
import { openStdout, type ProxyStdout } from './streams.js';

/**
 * The bytes a stdio recording moves before its recorder is loaded. `record -- <server>` starts the server first
 * (src/cli/early-spawn.ts) and this relay forwards both ways at once, so the client's first answer never waits
 * for the recording code to load — on a busy machine, when a client starts all its servers together, that load
 * is slow. Every chunk is kept with the time it was read; the recorder takes them over and makes their trace
 * copies as if it had read them itself. The relay holds no state beyond that and stops the moment it is taken.
 */

/** Where a chunk came from: the client's stdin, the server's stdout, or the server's stderr. */
export type EarlySource = 'client' | 'server' | 'stderr';

export interface EarlyChunk {
  source: EarlySource;
  chunk: Buffer;
  atMs: number;
}

/** The client's stdout failing (the client is gone), as the relay met it. */
export interface EarlyWriteError {
  /** The error code (EPIPE …) or message. */
  error: string;
  atMs: number;
}

/** What the recorder takes over from the relay. */
export interface EarlyTraffic {
  /** Every chunk forwarded so far, in the order read. */
  chunks: EarlyChunk[];
  /** When writing to the client failed before the recorder was loaded: its trace keeps a `write_error` for it. */
  writeError?: EarlyWriteError | undefined;
  /** This process's stdout as the relay opened it: the recorder writes to the same stream, so order holds. */
  output: ProxyStdout;
}

export const EARLY_RELAY_DEFAULTS = {
  /** Past this many bytes kept, the relay stops reading until the recorder takes over (memory stays bounded). */
  maxBytes: 4 * 1024 * 1024,
} as const;

/** The client's side of the relay: this process's stdio unless a test gives its own. */
export interface EarlyStreams {
  input?: Readable;
  output?: ProxyStdout;
  errorOutput?: Writable;
  /** Past this many bytes kept, reading stops until the recorder takes over. */
  maxBytes?: number;
}

interface Leg {
  source: Readable;
  onData: (chunk: Buffer) => void;
  onEnd?: () => void;
}

/**
 * @example
 * const relay = new EarlyRelay(server); // forwards at once
 * … const { chunks, output } = relay.take(); // the recorder's turn: nothing more is read by the relay
 */
export class EarlyRelay {
  private chunks: EarlyChunk[] = [];
  private bytes = 0;
  private readonly legs: Leg[] = [];
  private active = true;
  private readonly output: ProxyStdout;
  private writeError: EarlyWriteError | undefined;

  constructor(server: StartedServer, options: EarlyStreams = {}) {
    const child = server.child;
    this.output = options.output ?? openStdout();
    const maxBytes = options.maxBytes ?? EARLY_RELAY_DEFAULTS.maxBytes;
    if (child?.stdin == null || child.stdout === null) return;
    // Read now: the server's output is no longer held for a recorder that attaches later.
    server.release();
    child.stdin.on('error', () => {});
    // A client gone before the recorder is loaded must not crash the process. The stream errs only once, so the
    // recorder's own listener, attached on take-over, would never hear of it: the error is kept and handed over.
    this.output.stream.on('error', (err: NodeJS.ErrnoException) => {
      if (this.active) this.writeError ??= { error: err.code ?? err.message, atMs: Date.now() };
    });
    const input = options.input ?? process.stdin;
    this.leg('client', input, child.stdin, maxBytes, () => child.stdin?.end());
    this.leg('server', child.stdout, this.output.stream, maxBytes);
    if (child.stderr) this.leg('stderr', child.stderr, options.errorOutput ?? process.stderr, maxBytes);
  }

  /** Stops relaying and hands over what was forwarded (called once, by the recorder). */
  take(): EarlyTraffic {
    this.active = false;
    for (const { source, onData, onEnd } of this.legs) {
      source.off('data', onData);
      if (onEnd) source.off('end', onEnd);
      // Paused explicitly, a stream does not start flowing again when the recorder attaches: it resumes it.
      source.pause();
    }
    const chunks = this.chunks;
    this.chunks = [];
    return { chunks, output: this.output, writeError: this.writeError };
  }

  private leg(source: EarlySource, from: Readable, to: Writable, maxBytes: number, ended?: () => void): void {
    const onData = (chunk: Buffer) => {
      const ok = to.writable ? to.write(chunk) : true;
      this.chunks.push({ source, chunk, atMs: Date.now() });
      this.bytes += chunk.length;
      if (this.bytes > maxBytes) for (const leg of this.legs) leg.source.pause();
      // A destination that closes instead (the client is gone) still ends the wait: what is read then goes nowhere,
      // but it is read when it comes, so its trace copy keeps the time it came. After take-over the recorder reads.
      else if (!ok) pauseUntilDrained(from, to, () => this.active);
    };
    from.on('data', onData);
    const leg: Leg = { source: from, onData };
    if (ended) {
      leg.onEnd = ended;
      from.once('end', ended);
    }
    this.legs.push(leg);
  }
}
