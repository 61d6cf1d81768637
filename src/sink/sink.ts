import type { Redactor } from '../redact/types.js';
import { encodeLine, encodeMessageLine, timestamp } from '../trace/encode.js';
import { countFailures } from '../trace/jsonrpc.js';
import type {
  EndCounts,
  EndLine,
  EventLine,
  MessageLine,
  MetaLine,
  RecordBody,
  RecordLine,
} from '../trace/types.js';

/** Lines stored as they come: the sink's redactor until redaction rules plug in. */
export const noRedaction: Redactor = (line) => line;

/** What an `end` line says beyond what the sink counts itself. */
export interface EndInfo {
  reason: NonNullable<EndLine['reason']>;
  exitCode?: number | null;
  signal?: string | null;
}

/** Where captured lines go. Capture code talks only to this; storage details stay behind it. */
export interface TraceSink {
  /** Starts the trace; `meta` is the first line of the trace (and of every segment a sink may cut). */
  start(meta: MetaLine): void;
  /**
   * Stamps `seq` on a captured line and stores it. Never throws: a storage failure must not stop a session.
   * `rawText`, for a message line, is the exact JSON text `raw` was parsed from, or its valid UTF-8 bytes (lets
   * sinks skip re-encoding). Bytes are read during the call only: a sink that keeps them copies them.
   */
  append(body: RecordBody, rawText?: string | Buffer): void;
  /** Writes the `end` line and releases resources. Safe to call once; later appends are ignored. */
  close(info: EndInfo): Promise<void>;
}

export interface BaseSinkOptions {
  redact?: Redactor;
  now?: () => number;
}

/**
 * Does the work every sink shares — sequence numbers, counts, redaction, encoding, the `end` line — so a
 * concrete sink only stores encoded text.
 */
export abstract class BaseSink implements TraceSink {
  protected meta: MetaLine | undefined;
  protected readonly redact: Redactor;
  protected readonly now: () => number;
  private seq = 0;
  private startedMs = 0;
  private closed = false;
  private readonly counts: Required<
    Pick<EndCounts, 'in' | 'out' | 'text' | 'stderr' | 'events' | 'errors' | 'toolErrors'>
  > = { in: 0, out: 0, text: 0, stderr: 0, events: 0, errors: 0, toolErrors: 0 };

  constructor(options: BaseSinkOptions = {}) {
    this.redact = options.redact ?? noRedaction;
    this.now = options.now ?? Date.now;
  }

  start(meta: MetaLine): void {
    this.meta = this.redact(meta);
    this.startedMs = Date.parse(meta.startedAt) || this.now();
    this.writeMeta(this.meta, encodeLine(this.meta));
  }

  append(body: RecordBody, rawText?: string | Buffer): void {
    if (this.closed) return;
    this.seq += 1;
    const stamped = { t: body.t, seq: this.seq, ...body } as RecordLine;
    const line = this.redact(stamped);
    this.count(line);
    // The wire text stands for `raw` only while redaction left the line untouched.
    if (rawText === undefined || line !== stamped || line.type !== undefined)
      this.writeRecord(line, encodeLine(line));
    else if (typeof rawText === 'string') this.writeRecord(line, encodeMessageLine(line, rawText));
    else this.writeMessage(line, rawText);
  }

  /**
   * Stores a message line whose `raw` is exactly the JSON in `raw` (UTF-8 bytes, read during the call only). By
   * default as encoded text; a sink that stores bytes takes them as they are.
   */
  protected writeMessage(line: MessageLine, raw: Buffer): void {
    this.writeRecord(line, encodeMessageLine(line, raw.toString('utf8')));
  }

  /** Adds a line the sink itself noticed (e.g. `write_error`), numbered in sequence with captured lines. */
  protected event(name: string, fields: Record<string, unknown>): string {
    this.seq += 1;
    this.counts.events += 1;
    const line: EventLine = { t: timestamp(this.now()), seq: this.seq, type: 'event', name, ...fields };
    return encodeLine(line);
  }

  async close(info: EndInfo): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const end: EndLine = {
      t: timestamp(this.now()),
      type: 'end',
      durationMs: Math.max(0, this.now() - this.startedMs),
      reason: info.reason,
      counts: { ...this.counts },
    };
    if (info.exitCode !== undefined) end.exitCode = info.exitCode;
    if (info.signal !== undefined) end.signal = info.signal;
    await this.writeEnd(end, encodeLine(end));
  }

  private count(line: RecordLine): void {
    switch (line.type) {
      case undefined:
        this.counts[line.dir] += 1;
        countFailures(line.raw, this.counts);
        break;
      case 'text':
        this.counts.text += 1;
        break;
      case 'stderr':
        this.counts.stderr += 1;
        break;
      default:
        this.counts.events += line.type === 'event' ? 1 : 0;
    }
  }

  protected abstract writeMeta(meta: MetaLine, text: string): void;
  protected abstract writeRecord(line: RecordLine, text: string): void;
  protected abstract writeEnd(end: EndLine, text: string): Promise<void>;
}
