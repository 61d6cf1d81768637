import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { linkRefusal, openNoFollow } from '../base/no-follow.js';
import { makePrivateFolder } from '../base/private-files.js';
import { encodeLine, messageHead } from '../trace/encode.js';
import type { EndLine, MessageLine, MetaLine, RecordLine } from '../trace/types.js';
import { LineBuffer, messageBytes, separatorsIn } from './line-buffer.js';
import { segmentPath, suffixedPath } from './paths.js';
import { BaseSink, type BaseSinkOptions } from './sink.js';

/**
 * What the first open does when the file is already there: `overwrite` it (the default); overwrite it and `warn`
 * once when it held anything (a path the user named); or take the first free name beside it, `name-2.jsonl`,
 * `name-3.jsonl` … (a generated name, which two recorders started in the same millisecond share). Only the first
 * open asks: rotation reopens the trace's own active file.
 */
export type ExistingFile = 'overwrite' | 'warn' | 'unique';

/** Where a trace file goes: its path, and what to do if that file is already there. */
export interface TraceFileTarget {
  path: string;
  existing?: ExistingFile;
}

export interface FileSinkOptions extends BaseSinkOptions, TraceFileTarget {
  /** Rotate once the active file would grow past this many bytes (regular files only). */
  maxBytes?: number;
  /** How many files a trace may span, the active one included; older segments beyond it are deleted. */
  maxFiles?: number;
  /** Buffered bytes that force a write before the end of the current event-loop turn. */
  flushBytes?: number;
  /**
   * How long a line may wait in memory before it is written (0: at the end of the event-loop turn). Batching
   * saves a write per message on a busy session; a killed recorder loses at most this much, never half a line.
   */
  flushMs?: number;
  /** Where the one-per-kind failure warnings go. */
  warn?: (message: string) => void;
  /** Writes to the open trace file, `fs.writeSync`'s shape; a seam for tests that inject disk failures. */
  write?: (fd: number, data: Buffer, offset: number, length: number, position: number | null) => number;
}

export const FILE_SINK_DEFAULTS = {
  maxBytes: 50 * 1024 * 1024,
  maxFiles: 4,
  flushBytes: 64 * 1024,
  flushMs: 10,
  /** How many suffixed names `existing: 'unique'` tries before it gives up. */
  uniqueTries: 1000,
} as const;

/**
 * Writes a trace to a JSONL file, 0600 in a 0700 folder, with size-based rotation where every segment starts
 * with its own `meta` line.
 *
 * Lines are queued and written within `flushMs` (or as soon as `flushBytes` are waiting): each write holds
 * whole lines only, so a killed recorder leaves a file that reads back to its last whole line. A failed write
 * never throws into the session: it warns once per error code, counts the lost lines, keeps trying, and records a
 * `write_error` event once writing works again. A partly written batch is cut back so no torn line stays behind.
 */
export class FileSink extends BaseSink {
  private activePath: string;
  private readonly existing: ExistingFile;
  /** The first open succeeded: the name is ours, later opens (rotation, retries) reuse it as it is. */
  private created = false;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly flushBytes: number;
  private readonly flushMs: number;
  private readonly warn: (message: string) => void;
  private readonly write: NonNullable<FileSinkOptions['write']>;
  private fd: number | undefined;
  private regular = true;
  private size = 0;
  private segment = 0;
  /** Record lines in the active segment: a segment never rotates away holding only its meta line. */
  private records = 0;
  /** The open file is still empty: its first write starts with the segment's meta line (also after a failed try). */
  private metaPending = false;
  private metaBytes = 0;
  /** The `end` line, once closing: written last, after any `write_error` notice. */
  private endText = '';
  /** Lines waiting for the next write, as bytes. */
  private readonly queue: LineBuffer;
  private flushScheduled = false;
  private lost = 0;
  private readonly failures = new Set<string>();
  private lastOpenAttempt = 0;

  constructor(options: FileSinkOptions) {
    super(options);
    this.activePath = options.path;
    this.existing = options.existing ?? 'overwrite';
    this.maxBytes = options.maxBytes ?? FILE_SINK_DEFAULTS.maxBytes;
    this.maxFiles = Math.max(1, options.maxFiles ?? FILE_SINK_DEFAULTS.maxFiles);
    this.flushBytes = options.flushBytes ?? FILE_SINK_DEFAULTS.flushBytes;
    this.flushMs = options.flushMs ?? FILE_SINK_DEFAULTS.flushMs;
    this.warn = options.warn ?? ((message) => process.stderr.write(`tapedeck: ${message}\n`));
    this.write = options.write ?? writeSync;
    this.queue = new LineBuffer(Math.max(this.flushBytes, 1024) * 2);
  }

  /** The active trace file: the path given, or with `existing: 'unique'` the free name taken beside it. */
  get path(): string {
    return this.activePath;
  }

  protected writeMeta(_meta: MetaLine, _text: string): void {
    this.open();
    this.schedule();
  }

  protected writeRecord(_line: RecordLine, text: string): void {
    this.making(Buffer.byteLength(text));
    this.queue.addText(text);
    this.schedule();
  }

  /** The wire bytes go into the write buffer as they are, behind the line's head. */
  protected override writeMessage(line: MessageLine, raw: Buffer): void {
    // A carriage return in wire JSON is whitespace between tokens; such a message is re-encoded (see encode.ts).
    if (raw.includes(0x0d)) {
      this.writeRecord(line, encodeLine(line));
      return;
    }
    const head = messageHead(line);
    const separators = separatorsIn(raw);
    this.making(messageBytes(head, raw, separators));
    this.queue.addMessage(head, raw, separators);
    this.schedule();
  }

  /** A record line of `bytes` is about to be queued: rotates first when it would take the file past its size. */
  private making(bytes: number): void {
    const full =
      this.size + (this.metaPending ? this.metaBytes : 0) + this.queue.bytes + bytes > this.maxBytes;
    if (full && this.regular && this.fd !== undefined && this.records > 0) this.rotate();
    this.records += 1;
  }

  protected async writeEnd(_end: EndLine, text: string): Promise<void> {
    this.endText = text;
    this.flush();
    this.closeFile();
  }

  /** Writes everything queued now. Called automatically; public for callers that must be sure before exiting. */
  flush(): void {
    this.flushScheduled = false;
    const end = this.endText;
    this.endText = '';
    if (this.queue.lines === 0 && !this.metaPending && end === '') return;
    const lines = this.queue.lines + (end !== '' ? 1 : 0);
    if (this.fd === undefined && !this.reopen()) {
      this.lose(lines);
      return;
    }
    // A file starts with its meta line, even when the batch that first carried it was lost.
    const head = this.metaPending ? this.metaText() : '';
    // The notice goes after the lines already numbered (so `seq` stays in file order), before the `end` line.
    const notice =
      this.lost > 0 ? this.event('write_error', { lost: this.lost, codes: [...this.failures] }) : '';
    const tail = notice + end;
    // Most batches are the buffer as it stands: one write of a view, no copy.
    const data =
      head === '' && tail === ''
        ? this.queue.view()
        : Buffer.concat([Buffer.from(head), this.queue.view(), Buffer.from(tail)]);
    const before = this.size;
    let written = 0;
    try {
      // Positional on a regular file: after a cut-back the next batch starts where the last whole line ended,
      // not at the old offset (which would leave a hole of NUL bytes).
      while (written < data.length) {
        const position = this.regular ? before + written : null;
        written += this.write(this.fd!, data, written, data.length - written, position);
      }
      this.size += written;
      this.lost = 0;
      this.metaPending = false;
      this.queue.clear();
    } catch (err) {
      this.failed(err, 'write');
      if (written > 0 && this.regular) {
        try {
          ftruncateSync(this.fd!, before);
        } catch {
          // Nothing more to do; the reader reports a torn line by number.
        }
      }
      this.lose(lines);
    }
  }

  private schedule(): void {
    if (this.queue.bytes >= this.flushBytes) {
      this.flush();
    } else if (!this.flushScheduled) {
      this.flushScheduled = true;
      if (this.flushMs > 0) {
        // unref: a pending flush must not keep a finished process alive; close() flushes what is left.
        setTimeout(() => this.flush(), this.flushMs).unref();
      } else {
        setImmediate(() => this.flush());
      }
    }
  }

  private lose(lines: number): void {
    this.lost += lines;
    this.queue.clear();
  }

  private open(): boolean {
    this.lastOpenAttempt = this.now();
    try {
      makePrivateFolder(dirname(this.activePath));
      this.fd = this.created ? openNoFollow(this.activePath, 'write') : this.openFirst();
      this.created = true;
      const stat = fstatSync(this.fd);
      this.regular = stat.isFile();
      // Only a file tapedeck writes gets its mode tightened: never a device such as /dev/full or a FIFO.
      if (this.regular) fchmodSync(this.fd, 0o600);
      this.size = 0;
      this.metaPending = this.meta !== undefined;
      this.metaBytes = this.metaPending ? Buffer.byteLength(this.metaText()) : 0;
      return true;
    } catch (err) {
      this.fd = undefined;
      this.metaPending = false;
      this.failed(err, 'open');
      return false;
    }
  }

  /**
   * The first open, which decides what an existing file means (see ExistingFile). No open follows a symbolic link
   * (nor does the reopen after a rotation): a link where the trace goes is refused, never written through.
   */
  private openFirst(): number {
    if (this.existing === 'overwrite') return openNoFollow(this.activePath, 'write');
    if (this.existing === 'warn') {
      try {
        return openNoFollow(this.activePath, 'create');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const before = lstatSync(this.activePath);
      if (before.isSymbolicLink()) throw linkRefusal(this.activePath);
      if (before.isFile() && before.size > 0) {
        this.warn(`overwriting ${this.activePath}, which already held ${before.size} bytes`);
      }
      return openNoFollow(this.activePath, 'write');
    }
    const base = this.activePath;
    for (let n = 1; n <= FILE_SINK_DEFAULTS.uniqueTries; n++) {
      const candidate = n === 1 ? base : suffixedPath(base, n);
      // A name whose older segments are on disk belongs to a trace that just rotated its active file away.
      if (existsSync(segmentPath(candidate, 1))) continue;
      try {
        const fd = openNoFollow(candidate, 'create');
        this.activePath = candidate;
        return fd;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    throw Object.assign(new Error(`${FILE_SINK_DEFAULTS.uniqueTries} names beside it are taken`), {
      code: 'EEXIST',
    });
  }

  /** After a failed open, try again at most once a second (the folder may become writable). */
  private reopen(): boolean {
    if (this.now() - this.lastOpenAttempt < 1000) return false;
    return this.open();
  }

  /** The meta line that starts the current segment. */
  private metaText(): string {
    return encodeLine({ ...this.meta!, segment: this.segment });
  }

  private failed(err: unknown, during: 'open' | 'write' | 'rotate'): void {
    const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (this.failures.has(code)) return;
    this.failures.add(code);
    const why = (err as Error).message ?? String(err);
    this.warn(
      `cannot ${during} trace file ${this.activePath} (${why}); the session goes on unrecorded until writing works again`,
    );
  }

  private rotate(): void {
    this.flush();
    if (this.fd === undefined) return;
    this.closeFile();
    try {
      rmSync(segmentPath(this.activePath, this.maxFiles - 1), { force: true });
      for (let n = this.maxFiles - 2; n >= 0; n -= 1) {
        const from = segmentPath(this.activePath, n);
        try {
          renameSync(from, segmentPath(this.activePath, n + 1));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
    } catch (err) {
      this.failed(err, 'rotate');
    }
    this.segment += 1;
    this.records = 0;
    // The new file's meta line goes out with the record that caused the rotation.
    this.open();
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    try {
      if (this.regular) fsyncSync(this.fd);
    } catch {
      // fsync is best effort (e.g. not supported on this file system); the data was written.
    }
    try {
      closeSync(this.fd);
    } catch {
      // Already closed or invalid; nothing to release.
    }
    this.fd = undefined;
  }
}
