import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRedactor } from '../../redact/engine.js';
import type { RedactConfig } from '../../redact/types.js';
import { FileSink } from '../../sink/file.js';
import type { Redactor } from '../../sink/sink.js';
import { timestamp } from '../../trace/encode.js';
import type { Json, MetaLine, RecordBody } from '../../trace/types.js';
import { PRODUCER } from '../../version.js';
import type { EventSink, FilesDestination, RequestEvent } from '../types.js';

/** A file name from a session id: safe characters only, bounded length. */
function fileStem(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (safe === '' ? 'session' : safe).slice(0, 100);
}

/**
 * A trace file (JSONL v1, via FileSink: 0600 in a 0700 folder) per session: `conn` is the session id, each request
 * a client→server message line, its answer a server→client one, related messages in between when kept whole,
 * and HTTP facts as an `http` line. A session's file gets its end line when the session ends or at shutdown; a
 * session that goes on after that continues in a new file (`<id>-2.jsonl`).
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
    if (existing !== undefined) return existing;
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

function metaOf(event: RequestEvent): MetaLine {
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: event.startedAt,
    label: event.server?.name ?? 'instrumented-server',
    kind: 'mcp',
    producer: { ...PRODUCER },
    traceId: event.sessionId,
    segment: 0,
    session: {
      id: event.sessionId,
      identity: event.identity,
      ...(event.user === undefined ? {} : { user: event.user }),
      ...(event.client === undefined ? {} : { client: event.client }),
    },
  };
  if (event.transport !== 'unknown') meta.transport = event.transport;
  if (event.server !== undefined) meta.server = event.server.name;
  if (event.release !== undefined) meta.release = event.release;
  return meta;
}

/** The trace lines one event becomes, in time order. */
export function linesOf(event: RequestEvent): RecordBody[] {
  const conn = event.sessionId;
  const lines: RecordBody[] = [];
  const t = event.startedAt;
  if (event.http?.headers !== undefined) {
    lines.push({
      t,
      type: 'http',
      conn,
      dir: 'in',
      headers: event.http.headers,
      ...(event.http.method === undefined ? {} : { method: event.http.method }),
      ...(event.http.url === undefined ? {} : { url: event.http.url }),
    });
  }
  const request: Record<string, Json> = { jsonrpc: '2.0', id: event.requestId, method: event.method };
  if (event.params !== undefined) request.params = event.params;
  lines.push({ t, dir: 'in', conn, raw: request });
  for (const related of event.related.messages ?? []) {
    lines.push({ t: related.t, dir: related.dir, conn, raw: related.message });
  }
  const end = timestamp(Date.parse(event.startedAt) + event.durationMs);
  if (event.outcome === 'cancelled' || event.outcome === 'closed') {
    lines.push({
      t: end,
      type: 'event',
      name: 'unanswered',
      requestId: event.requestId,
      outcome: event.outcome,
    });
    return lines;
  }
  const response: Record<string, Json> = { jsonrpc: '2.0', id: event.requestId };
  if (event.error !== undefined) response.error = event.error as unknown as Json;
  // With result capture off the answer's shape stays, its content does not.
  else response.result = event.result ?? (event.isError === true ? { isError: true } : {});
  lines.push({ t: end, dir: 'out', conn, raw: response });
  return lines;
}
