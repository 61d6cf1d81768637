import { closeSync, fsyncSync, ftruncateSync, writeSync } from 'node:fs';
import { openNoFollow, readNoFollow } from '../base/no-follow.js';
import type { Redactor } from '../redact/types.js';
import { noRedaction } from '../sink/sink.js';
import { encodeLine, timestamp } from '../trace/encode.js';
import { isObject, type JsonObject } from '../trace/jsonrpc.js';
import { newMeta } from '../trace/meta.js';
import type { EndLine, Json, MessageLine, MetaLine } from '../trace/types.js';

/**
 * One trajectory being recorded: a tapedeck trace written line by line as events come in — a `meta` line, then per
 * event the request as an `in` message and the response as an `out` message, and an `end` line when the recording
 * is stopped. Every event is on disk before its tool call is answered, so a server that dies loses nothing it
 * acknowledged; a trace without its `end` line is a recording that can be resumed. The file is never opened through
 * a link (src/base/no-follow.ts).
 */

/** What the agent gave, so a lookup hands back the response in the shape it was recorded in. */
export interface GivenShape {
  /** The top-level keys of the object the agent gave, in order (the line's `raw` may carry `jsonrpc` and `id` too). */
  keys?: string[];
  /** The response was not a JSON-RPC-shaped object: `raw.result` holds it whole. */
  bare?: true;
}

/** What a trace file already holds when a recording is resumed. */
export interface TraceTally {
  meta: MetaLine | undefined;
  /** Requests recorded so far (one per event). */
  events: number;
  counts: { in: number; out: number };
  lastSeq: number;
  ended: boolean;
  /** Bytes up to the last whole line: a torn last line is cut off before appending. */
  wholeBytes: number;
}

export interface RecordingOptions {
  redact?: Redactor;
  /** Extra meta fields (the redaction summary). */
  meta?: Record<string, unknown>;
  now?: () => number;
}

/**
 * @example
 * const rec = Recording.create('/d/my_session.jsonl', 'my_session');
 * rec.append({ method: 'tools/call', params: { name: 'search' } }, { result: { hits: [] } }); // → 1
 * rec.stop();
 */
export class Recording {
  private fd: number | undefined;
  private constructor(
    readonly name: string,
    readonly path: string,
    fd: number,
    private seq: number,
    private eventCount: number,
    private readonly counts: { in: number; out: number },
    private readonly startedMs: number,
    private readonly redact: Redactor,
    private readonly now: () => number,
  ) {
    this.fd = fd;
  }

  /** Starts a new trace at `path` (replacing a finished one), 0600. */
  static create(path: string, name: string, options: RecordingOptions = {}): Recording {
    const now = options.now ?? Date.now;
    const redact = options.redact ?? noRedaction;
    const fd = openNoFollow(path, 'write');
    const meta = redact(newMeta({ label: name, startedAt: timestamp(now()), ...(options.meta ?? {}) }));
    writeAll(fd, encodeLine(meta));
    return new Recording(name, path, fd, 0, 0, { in: 0, out: 0 }, now(), redact, now);
  }

  /** Continues an unfinished trace: appends after its last whole line, numbering on from its last `seq`. */
  static resume(path: string, name: string, tally: TraceTally, options: RecordingOptions = {}): Recording {
    const now = options.now ?? Date.now;
    const cut = openNoFollow(path, 'update');
    try {
      ftruncateSync(cut, tally.wholeBytes);
    } finally {
      closeSync(cut);
    }
    const fd = openNoFollow(path, 'append');
    const started = Date.parse(tally.meta?.startedAt ?? '') || now();
    return new Recording(
      name,
      path,
      fd,
      tally.lastSeq,
      tally.events,
      { ...tally.counts },
      started,
      options.redact ?? noRedaction,
      now,
    );
  }

  get events(): number {
    return this.eventCount;
  }

  /**
   * Appends one request/response pair and returns how many events the trajectory holds now. The request becomes
   * a JSON-RPC request numbered by its event (its own id, if any, is not kept: ids take no part in matching).
   */
  append(request: JsonObject, response: Json): number {
    const fd = this.open();
    const method = request.method;
    if (typeof method !== 'string' || method === '')
      throw new Error('request needs a "method" (a string such as "tools/call")');
    const id = this.eventCount + 1;
    const t = timestamp(this.now());
    const { id: _requestId, jsonrpc: _v, ...requestRest } = request;
    const inLine: MessageLine = {
      t,
      seq: this.seq + 1,
      dir: 'in',
      raw: { jsonrpc: '2.0', id, ...requestRest },
      given: { keys: Object.keys(request) },
    };
    const outLine: MessageLine = { t, seq: this.seq + 2, dir: 'out', ...responseLine(id, response) };
    const text = encodeLine(this.redact(inLine)) + encodeLine(this.redact(outLine));
    writeAll(fd, text);
    this.seq += 2;
    this.counts.in += 1;
    this.counts.out += 1;
    this.eventCount = id;
    return id;
  }

  /** Writes the `end` line and closes the file. */
  stop(): void {
    const fd = this.open();
    const end: EndLine = {
      t: timestamp(this.now()),
      type: 'end',
      durationMs: Math.max(0, this.now() - this.startedMs),
      reason: 'producer_shutdown',
      counts: { ...this.counts },
    };
    writeAll(fd, encodeLine(end));
    this.close();
  }

  /** Closes the file without an `end` line: the recording stays resumable. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fsyncSync(fd);
    } catch {
      // Best effort: what was written is in the file either way.
    }
    closeSync(fd);
  }

  private open(): number {
    if (this.fd === undefined) throw new Error(`the recording '${this.name}' is already closed`);
    return this.fd;
  }
}

/** The `raw` and `given` of a response line. */
function responseLine(id: number, response: Json): { raw: Json; given: GivenShape } {
  if (isObject(response) && ('result' in response || 'error' in response)) {
    const { id: _id, jsonrpc: _v, ...rest } = response;
    return { raw: { jsonrpc: '2.0', id, ...rest }, given: { keys: Object.keys(response) } };
  }
  return { raw: { jsonrpc: '2.0', id, result: response }, given: { bare: true } };
}

/**
 * Reads what a trace file holds: its meta line, events, last `seq`, whether it ended, and where its last whole line
 * ends. Corrupt lines are skipped (the reader reports them when the trace is opened).
 *
 * @example tallyTrace('/d/my_session.jsonl').ended // → false for a recording a crash interrupted
 */
export function tallyTrace(path: string): TraceTally {
  const bytes = readNoFollow(path);
  const lastNewline = bytes.lastIndexOf(0x0a);
  const wholeBytes = lastNewline + 1;
  const tally: TraceTally = {
    meta: undefined,
    events: 0,
    counts: { in: 0, out: 0 },
    lastSeq: 0,
    ended: false,
    wholeBytes,
  };
  const text = bytes.subarray(0, wholeBytes).toString('utf8');
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(value)) continue;
    if (value.type === 'meta' && tally.meta === undefined) tally.meta = value as unknown as MetaLine;
    if (value.type === 'end') tally.ended = true;
    if (typeof value.seq === 'number') tally.lastSeq = Math.max(tally.lastSeq, value.seq);
    if (value.type === undefined && (value.dir === 'in' || value.dir === 'out')) {
      tally.counts[value.dir] += 1;
      if (value.dir === 'in') tally.events += 1;
    }
  }
  return tally;
}

function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text);
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}
