import { attach, type InstrumentableServer } from './attach.js';
import type { Capture, CaptureQueue } from './capture.js';
import { INSTRUMENT_DEFAULTS } from './defaults.js';
import { EventBuilder } from './event.js';
import { finishOnExit } from './lifecycle.js';
import { BoundedQueue } from './queue.js';
import { SessionTable } from './sessions.js';
import { createSinks } from './sinks/index.js';
import type { EventSink, Implementation, InstrumentOptions, RecorderStats, RequestEvent } from './types.js';
import { ValuePolicy } from './values.js';
import { WireLog } from './wire-log.js';

/** What `instrument()` returns: a handle on the recording of one or more servers. */
export interface Recorder {
  /** Records `server` too (e.g. the server a per-session factory just made). Returns the server. */
  instrument<S extends InstrumentableServer>(server: S): S;
  /** Processes and uploads everything queued; resolves when every sink has it (or failed and reported). */
  flush(): Promise<void>;
  /**
   * Flushes, then lets sinks release resources (session files get their end line, spans are pushed). Safe to call
   * repeatedly; the recorder keeps recording afterwards (serverless handlers call it at the end of each run).
   */
  shutdown(): Promise<void>;
  stats(): RecorderStats;
}

/** How long a drain works before it lets the event loop run other callbacks (requests). */
const DRAIN_SLICE_MS = 10;
/** Messages the wire log holds before they are paired where they stand (only when timers cannot run). */
const WIRE_LOG_LIMIT = 8192;

/** Prints a failure once per message start on stderr: stdout may carry the protocol (stdio servers). */
function defaultOnError(): (error: Error) => void {
  const seen = new Set<string>();
  return (error) => {
    const kind = error.message.split(':')[0] ?? '';
    if (seen.has(kind)) return;
    seen.add(kind);
    process.stderr.write(`tapedeck instrument: ${error.message}\n`);
  };
}

/**
 * The queue between the request path and the sinks. A message costs an append to the wire log; pairing,
 * processing (hooks, identity, redaction) and uploads run from timers: every `flushInterval`, and soon after a
 * batch's worth of messages is waiting.
 */
class QueueRecorder implements Recorder, CaptureQueue {
  readonly keepRelated: boolean;
  readonly wire: WireLog;
  serverInfo: Implementation | undefined;
  private readonly queue: BoundedQueue<Capture>;
  private readonly sinks: EventSink[];
  private readonly builder: EventBuilder;
  private readonly sessions: SessionTable;
  private readonly batchSize: number;
  private readonly interval: number;
  private readonly onError: (error: Error) => void;
  private timer: NodeJS.Timeout | undefined;
  private kickPending = false;
  private chain: Promise<void> = Promise.resolve();
  /** A drain queued behind the running one: later requests join it instead of piling up. */
  private waiting: { all: boolean; promise: Promise<void> } | undefined;
  private unreportedDrops = 0;
  /** Events reached the sinks since the last shutdown: some session has no end line yet. */
  private dirty = false;
  private readonly counts = {
    captured: 0,
    delivered: 0,
    droppedQueueFull: 0,
    droppedUploadFailed: 0,
    sanitized: 0,
    uploads: 0,
  };

  constructor(private readonly options: InstrumentOptions) {
    const maxQueue = options.maxQueue ?? INSTRUMENT_DEFAULTS.maxQueue;
    this.queue = new BoundedQueue(Math.max(1, maxQueue));
    this.batchSize = Math.max(1, options.maxBatchSize ?? INSTRUMENT_DEFAULTS.maxBatchSize);
    this.interval = Math.max(1, options.flushInterval ?? INSTRUMENT_DEFAULTS.flushInterval);
    this.keepRelated = (options.relatedMessages ?? INSTRUMENT_DEFAULTS.relatedMessages) === 'full';
    this.serverInfo = options.serverInfo;
    this.onError = options.onError ?? defaultOnError();
    this.wire = new WireLog(WIRE_LOG_LIMIT, (pending, full) => this.logged(pending, full));
    const redaction = options.redaction ?? { defaults: true, rules: [], mode: 'marker' };
    const policy = new ValuePolicy(
      redaction,
      options.redactHeaders ?? [],
      options.maxValueLength ?? INSTRUMENT_DEFAULTS.maxValueLength,
    );
    this.sessions = new SessionTable(
      options.sessionIdleTimeout ?? INSTRUMENT_DEFAULTS.sessionIdleTimeout,
      (id) => this.sessionEnded(id),
    );
    this.builder = new EventBuilder(
      options,
      policy,
      this.sessions,
      (err) => this.fail(err),
      () => this.serverInfo,
    );
    this.sinks = createSinks(options.to, {
      uploadTimeout: options.uploadTimeout ?? INSTRUMENT_DEFAULTS.uploadTimeout,
      redaction,
      report: (err) => this.fail(err),
    });
    if (options.finishOnExit !== false) finishOnExit(this);
  }

  /** Something is queued, or a session has no end line yet (see lifecycle.ts). */
  hasWork(): boolean {
    this.pair();
    return this.dirty || this.queue.length > 0;
  }

  /**
   * A connection closed. A stdio server has one connection per process — per client session — so its close
   * finishes the recording: queued events written, the session's file given its end line. Other transports come
   * and go with HTTP requests and sessions; what they carried is written at the next drain.
   */
  connectionClosed(kind: string): void {
    if (kind === 'stdio') void this.shutdown();
    else this.kick(true);
  }

  /**
   * Writes what is queued and ends every session synchronously, as far as the sinks allow (trace files do; an
   * upload cannot finish once the process is exiting). For the process's `exit` event: nothing asynchronous runs
   * after it. Events whose hooks (`getUser`, `getSessionId`) answer asynchronously are lost here.
   */
  finishNow(): void {
    this.pair();
    const events: RequestEvent[] = [];
    for (const capture of this.queue.take(this.queue.length)) {
      let event: RequestEvent | Promise<RequestEvent> | null;
      try {
        event = this.builder.build(capture);
        if (event instanceof Promise) continue;
        if (this.options.sanitizeEvent !== undefined) event = this.options.sanitizeEvent(event);
      } catch {
        continue;
      }
      if (event !== null && event !== undefined) events.push(event);
    }
    if (!this.dirty && events.length === 0) return;
    this.dirty = false;
    for (const sink of this.sinks) {
      // Async in signature; the files sink does its writing before the first await, so it happens now.
      if (events.length > 0) sink.write(events).catch(() => {});
      sink.shutdown?.().catch(() => {});
    }
  }

  instrument<S extends InstrumentableServer>(server: S): S {
    attach(server, this);
    return server;
  }

  /** The request path noted a message; `pending` are waiting to be paired. */
  private logged(pending: number, full: boolean): void {
    if (full) this.pair();
    if (this.timer === undefined) {
      // unref: recording must never keep a finished process alive.
      this.timer = setInterval(() => this.kick(true), this.interval).unref();
    }
    // A request and its answer are two messages: a batch is about twice its size in messages.
    if (pending >= 2 * this.batchSize && !this.kickPending) {
      this.kickPending = true;
      setTimeout(() => this.kick(false), 0).unref();
    }
  }

  /** Pairs what the wire log holds; finished requests land in the queue. */
  private pair(): void {
    this.wire.drainInto((err) => this.fail(err));
  }

  /** A finished request, from a ConnectionTap. */
  push(capture: Capture): void {
    this.counts.captured += 1;
    if (this.queue.push(capture)) {
      this.counts.droppedQueueFull += 1;
      this.unreportedDrops += 1;
    }
  }

  fail(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    try {
      this.onError(err);
    } catch {
      // An error handler that throws must not reach the server.
    }
  }

  flush(): Promise<void> {
    return holdingProcess(() => this.enqueueDrain(true));
  }

  shutdown(): Promise<void> {
    return holdingProcess(async () => {
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = undefined;
      await this.enqueueDrain(true);
      this.dirty = false;
      for (const sink of this.sinks) {
        try {
          await sink.shutdown?.();
        } catch (err) {
          this.fail(
            new Error(`${sink.name} sink: shutdown failed: ${(err as Error).message}`, { cause: err }),
          );
        }
      }
    });
  }

  stats(): RecorderStats {
    this.pair();
    return { ...this.counts, queued: this.queue.length };
  }

  private kick(all: boolean): void {
    if (!all) this.kickPending = false;
    void this.enqueueDrain(all);
  }

  /** Drains run one after another, so batches reach sinks in order. */
  private enqueueDrain(all: boolean): Promise<void> {
    if (this.waiting !== undefined) {
      if (all) this.waiting.all = true;
      return this.waiting.promise;
    }
    const slot = { all, promise: Promise.resolve() };
    slot.promise = this.chain
      .then(() => {
        this.waiting = undefined;
        return this.drain(slot.all);
      })
      .catch((err) => this.fail(err));
    this.waiting = slot;
    this.chain = slot.promise;
    return slot.promise;
  }

  /** Full batches, or with `all` everything queued when it starts (a partial batch included). */
  private async drain(all: boolean): Promise<void> {
    this.pair();
    let remaining = this.queue.length;
    let slice = performance.now();
    while (remaining > 0 && (all || this.queue.length >= this.batchSize)) {
      const captures = this.queue.take(this.batchSize);
      if (captures.length === 0) break;
      remaining -= captures.length;
      const events = await this.build(captures);
      if (events.length > 0) await this.deliver(events);
      this.reportDrops();
      // A long backlog must not hold the event loop: let requests in every few milliseconds of work.
      if (performance.now() - slice > DRAIN_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    this.sessions.sweep(Date.now());
    this.reportDrops();
  }

  private async build(captures: Capture[]): Promise<RequestEvent[]> {
    const events: RequestEvent[] = [];
    for (const capture of captures) {
      let event: RequestEvent | null;
      try {
        const built = this.builder.build(capture);
        event = built instanceof Promise ? await built : built;
      } catch (err) {
        this.fail(new Error(`could not build an event: ${(err as Error).message}`, { cause: err }));
        continue;
      }
      if (this.options.sanitizeEvent !== undefined) {
        try {
          event = this.options.sanitizeEvent(event);
        } catch (err) {
          // A sanitizer that throws may have been about to remove something: the event is dropped.
          this.fail(new Error(`sanitizeEvent threw: ${(err as Error).message}; the event was dropped`));
          event = null;
        }
      }
      if (event === null || event === undefined) this.counts.sanitized += 1;
      else events.push(event);
    }
    return events;
  }

  private async deliver(events: RequestEvent[]): Promise<void> {
    let ok = true;
    for (const sink of this.sinks) {
      try {
        await sink.write(events);
        this.counts.uploads += 1;
      } catch (err) {
        ok = false;
        this.counts.droppedUploadFailed += events.length;
        this.fail(new Error(`${sink.name} sink: ${events.length} events lost: ${(err as Error).message}`));
      }
    }
    if (ok) this.counts.delivered += events.length;
    this.dirty = true;
  }

  private reportDrops(): void {
    if (this.unreportedDrops === 0) return;
    const n = this.unreportedDrops;
    this.unreportedDrops = 0;
    this.fail(
      new Error(
        `queue full: dropped the ${n} oldest events (maxQueue ${this.queue.capacity}); uploads are behind`,
      ),
    );
  }

  private sessionEnded(id: string): void {
    for (const sink of this.sinks) {
      if (sink.sessionEnded === undefined) continue;
      Promise.resolve()
        .then(() => sink.sessionEnded?.(id))
        .catch((err) =>
          this.fail(new Error(`${sink.name} sink: ending session failed: ${(err as Error).message}`)),
        );
    }
  }
}

/**
 * A recorder without a server yet; attach servers with `recorder.instrument(server)`. Use one recorder for every
 * server a process makes (a server per HTTP session or per request shares one queue and one set of uploads).
 */
export function createRecorder(options: InstrumentOptions = {}): Recorder {
  return new QueueRecorder(options);
}

/** Whether `value` is a Recorder (rather than options). */
export function isRecorder(value: unknown): value is Recorder {
  return value instanceof QueueRecorder;
}

/**
 * Runs `work` with the process held open. Recording's own timers never keep a finished process alive, but a flush
 * or shutdown someone awaits must finish — retries and their waits included — even when the server it recorded
 * has already stopped and nothing else is left to keep the process running.
 */
async function holdingProcess<T>(work: () => Promise<T>): Promise<T> {
  const hold = setInterval(() => {}, 1 << 30);
  try {
    return await work();
  } finally {
    clearInterval(hold);
  }
}
