import { isAscii } from 'node:buffer';
import { timestamp } from '../trace/encode.js';
import type { Direction, Json, RecordBody } from '../trace/types.js';
import { type FramedLine, LineFramer } from './line-framer.js';
import { PARTIAL_LINE_DEFAULTS, PartialLines, type PartialLinesOptions } from './partial-lines.js';

export interface PipeCaptureOptions {
  dir: Direction;
  /** `stdio` (default): JSON-RPC messages and text lines. `stderr`: every line is a `stderr` line. */
  stream?: 'stdio' | 'stderr';
  /** Trace copies of messages larger than this become a `truncated` event (size + sha256). */
  maxMessageBytes: number;
  /**
   * `rawText`, for a message, is the exact JSON its `raw` was parsed from: its text, or for a big message its UTF-8
   * bytes, a view valid during the call only (a sink copies what it keeps).
   */
  emit: (body: RecordBody, rawText?: string | Buffer) => void;
  now?: () => number;
  /** stderr only: how long and how large an unfinished line may grow before it is recorded in part. */
  partial?: Partial<Pick<PartialLinesOptions, 'waitMs' | 'tailWaitMs' | 'maxBytes'>>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/**
 * Messages this big reach the sink as their wire bytes, which a file sink copies as they are (a 1 MB message is
 * not encoded again); smaller ones as their text, which costs fewer calls into the runtime than a copy of bytes.
 */
const WIRE_BYTES = 16 * 1024;
const utf8Lossy = new TextDecoder('utf-8');
/** Lines this big are checked for being ASCII first (small ones decode faster than they are checked). */
const ASCII_BYTES = 16 * 1024;

/**
 * Turns one direction of a stdio pipe into trace lines: JSON objects and arrays become `message` lines, any other
 * line becomes a `text` line (a line that is not valid UTF-8 also keeps its exact bytes as base64), blank lines are
 * skipped. The bytes themselves are forwarded elsewhere, untouched; this only sees copies.
 *
 * @example
 * const cap = new PipeCapture({ dir: 'in', maxMessageBytes: 1 << 24, emit: (l) => sink.append(l) });
 * child.stdin.write(chunk); cap.push(chunk);
 */
export class PipeCapture {
  private readonly framer: LineFramer | PartialLines;
  private readonly dir: Direction;
  private readonly stream: 'stdio' | 'stderr';
  private readonly emit: (body: RecordBody, rawText?: string | Buffer) => void;

  constructor(options: PipeCaptureOptions) {
    this.dir = options.dir;
    this.stream = options.stream ?? 'stdio';
    this.emit = options.emit;
    if (this.stream === 'stderr') {
      // A server's stderr may hold a line open for ever (a prompt, a progress bar): it is recorded in part after a
      // bounded wait, cut at a blank so a token is never split.
      this.framer = new PartialLines({
        ...PARTIAL_LINE_DEFAULTS,
        ...options.partial,
        onLine: (bytes, atMs, partial) => this.onStderr(timestamp(atMs), stripCr(bytes), partial),
        ...(options.now ? { now: options.now } : {}),
      });
      return;
    }
    const framerOptions = {
      maxLineBytes: options.maxMessageBytes,
      reuse: true,
      onLine: (line: FramedLine) => this.onLine(line),
    };
    this.framer = new LineFramer(options.now ? { ...framerOptions, now: options.now } : framerOptions);
  }

  /** `atMs`: when the chunk was read, if not now (see CaptureQueue). */
  push(chunk: Buffer, atMs?: number): void {
    this.framer.push(chunk, atMs);
  }

  /** Records a last line that had no newline. */
  end(): void {
    this.framer.end();
  }

  private onLine(line: FramedLine): void {
    const t = timestamp(line.atMs);
    if (line.kind === 'oversize') {
      const where = this.stream === 'stderr' ? { stream: 'stderr' } : { dir: this.dir };
      this.emit({ t, type: 'event', name: 'truncated', ...where, size: line.size, sha256: line.sha256 });
      return;
    }
    const bytes = line.crlf ? line.bytes.subarray(0, line.bytes.length - 1) : line.bytes;
    let text: string;
    try {
      // A big line of ASCII (most are) is read as such: a one-byte string made in one copy, no UTF-8 decoding. The
      // `ascii` decoder gives the very string `latin1` would for such bytes and, on a line of a megabyte, costs the
      // recorder less (measured against the same build with `latin1`).
      text = bytes.length >= ASCII_BYTES && isAscii(bytes) ? bytes.toString('ascii') : utf8.decode(bytes);
    } catch {
      this.emit({
        t,
        type: 'text',
        dir: this.dir,
        text: utf8Lossy.decode(bytes),
        b64: bytes.toString('base64'),
      });
      return;
    }
    // The first character that is not blank (the same blanks as trim's); a blank line is skipped.
    const lead = text.charCodeAt(0);
    const first = lead === 0x7b || lead === 0x5b ? 0 : text.search(NOT_BLANK);
    if (first === -1) return;
    const raw = parseMessage(text, first);
    if (raw === undefined) {
      this.emit({ t, type: 'text', dir: this.dir, text });
    } else {
      this.emit({ t, dir: this.dir, raw }, bytes.length >= WIRE_BYTES ? bytes : text);
    }
  }

  private onStderr(t: string, bytes: Buffer, partial: boolean): void {
    // `partial`: the line goes on in the next stderr line (it was recorded before it ended).
    const more = partial ? { partial: true } : {};
    try {
      this.emit({ t, type: 'stderr', text: utf8.decode(bytes), ...more });
    } catch {
      this.emit({ t, type: 'stderr', text: utf8Lossy.decode(bytes), b64: bytes.toString('base64'), ...more });
    }
  }
}

function stripCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, bytes.length - 1) : bytes;
}

const NOT_BLANK = /\S/;

/** A JSON-RPC message or batch is a JSON object or array; anything else on the pipe is text. */
function parseMessage(text: string, at: number): Json | undefined {
  const first = text.charCodeAt(at);
  // Cheap precheck: only `{` or `[` can start a message, so banners never pay for a failed JSON.parse.
  if (first !== 0x7b && first !== 0x5b) return undefined;
  try {
    const value = JSON.parse(text) as Json;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
