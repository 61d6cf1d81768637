import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRedactor } from '../../redact/engine.js';
import type { RedactConfig, Redactor } from '../../redact/types.js';
import { FileSink } from '../../sink/file.js';
import { INSTRUMENT_DEFAULTS } from '../defaults.js';
import type { EventSink, FilesDestination, RequestEvent } from '../types.js';
import { linesOf, metaOf } from './lines.js';

/** A file name from a session id: safe characters only, bounded length. */
function fileStem(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (safe === '' ? 'session' : safe).slice(0, 100);
}

/**
 * A trace file (JSONL v1, via FileSink: 0600 in a 0700 folder) per session: `conn` is the session id, each request
 * a client→server message line, its answer a server→client one, related messages in between when kept whole,
 * and HTTP facts as an `http` line. A session's file gets its end line when the session ends or at shutdown; a
 * session that goes on after that continues in a new file (`<id>-2.jsonl`). At most `maxOpenFiles` files are open
 * at once: the least recently written one is ended first (its session, if it goes on, continues in a new file).
 */
export class FilesSink implements EventSink {
  readonly name = 'files';
  private readonly open = new Map<string, FileSink>();
  private readonly redact: Redactor;

  constructor(
    private readonly destination: FilesDestination,
    redaction: RedactConfig,
    private readonly warn: (message: string) => void,
  ) {
    this.redact = createRedactor(redaction);
  }

  async write(events: readonly RequestEvent[]): Promise<void> {
    for (const event of events) {
      const sink = this.sinkFor(event);
      for (const body of linesOf(event)) sink.append(body);
    }
  }

  async sessionEnded(sessionId: string): Promise<void> {
    const sink = this.open.get(sessionId);
    if (sink === undefined) return;
    this.open.delete(sessionId);
    await sink.close({ reason: 'producer_shutdown' });
  }

  async shutdown(): Promise<void> {
    const sinks = [...this.open.values()];
    this.open.clear();
    await Promise.all(sinks.map((sink) => sink.close({ reason: 'producer_shutdown' })));
  }

  private sinkFor(event: RequestEvent): FileSink {
    const existing = this.open.get(event.sessionId);
    if (existing !== undefined) {
      // Map order is the eviction order: the most recently written session goes last.
      this.open.delete(event.sessionId);
      this.open.set(event.sessionId, existing);
      return existing;
    }
    const limit = Math.max(1, this.destination.maxOpenFiles ?? INSTRUMENT_DEFAULTS.maxOpenFiles);
    for (const [id] of this.open) {
      if (this.open.size < limit) break;
      void this.sessionEnded(id).catch((err) =>
        this.warn(`cannot end trace file of session ${id}: ${(err as Error).message}`),
      );
    }
    const stem = fileStem(event.sessionId);
    let path = join(this.destination.dir, `${stem}.jsonl`);
    for (let n = 2; existsSync(path); n += 1) path = join(this.destination.dir, `${stem}-${n}.jsonl`);
    const sink = new FileSink({
      path,
      redact: this.redact,
      warn: this.warn,
      ...(this.destination.maxBytes === undefined ? {} : { maxBytes: this.destination.maxBytes }),
    });
    sink.start(metaOf(event));
    this.open.set(event.sessionId, sink);
    return sink;
  }
}
