import type { Readable, Writable } from 'node:stream';
import { delay } from '../../base/scheduler.js';
import { type FramedLine, LineFramer } from '../../capture/line-framer.js';
import type { TraceSink } from '../../sink/sink.js';
import { timestamp } from '../../trace/encode.js';
import { idKey, messageItems, type RpcId } from '../../trace/jsonrpc.js';
import type { Json, MessageLine } from '../../trace/types.js';
import { upstreamCapture } from '../../upstream/capture.js';
import { createUpstream } from '../../upstream/index.js';
import {
  type Upstream,
  UpstreamError,
  type UpstreamErrorKind,
  type UpstreamEvent,
  type UpstreamMessage,
  type UpstreamTimeouts,
  type UpstreamTransport,
} from '../../upstream/types.js';
import { checkAddedHeaders } from '../http/headers.js';
import { PRODUCED_BY } from '../http/recorder.js';

/**
 * The stdio ↔ HTTP bridge: a stdio-only MCP client talks to a remote MCP server as if it were a local stdio server.
 * Each line the client writes is POSTed as is; every message the server sends — on a POST's answer stream or the
 * session's own stream — comes back as one line on stdout. Both directions are recorded, with the HTTP envelopes.
 *
 * A stdin line that is not JSON is recorded as a `text` line and not forwarded: HTTP has no place for it, and a
 * stdio server would have dropped it too. When the upstream fails, the requests it left unanswered get a JSON-RPC
 * error naming the upstream and the cause, and the bridge goes on: the next request may well succeed. The trace
 * gets an `upstream_error` event and the error as the client received it: an `out` message line marked
 * `producedBy: 'tapedeck'`, since no server sent it. A bridge that ends with the upstream out of reach (never
 * reached, or lost and not reached again) exits non-zero, and its result says why.
 */

export interface HttpBridgeOptions {
  url: string;
  transport?: UpstreamTransport | undefined;
  /** Sent on every request (e.g. Authorization); the trace copy is redacted by the sink. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** A started sink; the bridge does not close it (recordHttpSession does). */
  sink: TraceSink;
  input?: Readable | undefined;
  output?: Writable | undefined;
  /** Where the bridge's own warnings go (default stderr). */
  errorOutput?: Writable | undefined;
  /** Stdin lines longer than this cannot be forwarded; they become a `truncated` event. */
  maxMessageBytes?: number | undefined;
  /** After stdin ends, how long requests still in flight may take to finish. */
  drainMs?: number | undefined;
  timeouts?: Partial<UpstreamTimeouts> | undefined;
  fetch?: typeof fetch | undefined;
  /** Aborting it ends the bridge as stdin EOF does (a signal, in the CLI). */
  signal?: AbortSignal | undefined;
}

export interface HttpBridgeResult {
  exitCode: number;
  /** `eof`: stdin ended; `stopped`: the signal fired. */
  reason: 'eof' | 'stopped';
  /** Requests answered with a bridge error because the upstream failed. */
  failed: number;
  /** Why the upstream was out of reach when the bridge ended (the exit code is then non-zero). */
  transportError?: string;
}

export const HTTP_BRIDGE_DEFAULTS = {
  transport: 'streamable' as UpstreamTransport,
  maxMessageBytes: 64 * 1024 * 1024,
  drainMs: 5000,
  /** The JSON-RPC error code of an answer the bridge makes up when the upstream failed. */
  errorCode: -32000,
  /** The exit code when the upstream was out of reach at the end. */
  transportErrorExitCode: 1,
} as const;

/** Upstream failures that mean it could not be talked to at all, as opposed to an answer it gave. */
const OUT_OF_REACH = new Set<UpstreamErrorKind>(['unreachable', 'timeout', 'closed']);

/**
 * Runs the bridge until stdin ends (or `signal` aborts): then the session is DELETEd and the result resolves.
 *
 * @example
 * sink.start(newMeta({ label: 'remote', transport: 'http', url }));
 * const { exitCode } = await runHttpBridge({ url: 'http://127.0.0.1:3001/mcp', sink });
 * await sink.close({ reason: 'process_exit', exitCode });
 */
export async function runHttpBridge(options: HttpBridgeOptions): Promise<HttpBridgeResult> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const errorOutput = options.errorOutput ?? process.stderr;
  const { sink, url } = options;
  // Before the first line is read: a bad value would otherwise fail every request, quoting it in the error.
  checkAddedHeaders(options.headers ?? {});
  const emit = sink.append.bind(sink);
  const capture = upstreamCapture(emit);
  const warn = (text: string) => errorOutput.write(`tapedeck: ${text}\n`);
  /** Client requests waiting for their response: id key → id. */
  const pending = new Map<string, RpcId>();
  const inflight = new Set<Promise<void>>();
  let failed = 0;
  let stopping = false;
  /** Set while the upstream is out of reach (cleared by the next answer it gives); decides the exit code. */
  let outOfReach: string | undefined;

  output.on('error', (err: NodeJS.ErrnoException) =>
    emit({
      t: timestamp(),
      type: 'event',
      name: 'write_error',
      target: 'client',
      error: err.code ?? err.message,
    }),
  );
  const write = async (text: string): Promise<void> => {
    if (!output.writable) return;
    if (!output.write(`${text}\n`)) {
      // Backpressure: the stream this message came on waits until the client has read it.
      await new Promise<void>((resolve) => {
        output.once('drain', resolve);
        output.once('close', resolve);
      });
    }
  };

  const onMessage = async (message: UpstreamMessage) => {
    outOfReach = undefined;
    capture.received(message);
    for (const item of messageItems(message.raw)) {
      if (item.kind === 'response' && item.id !== null) pending.delete(idKey(item.id));
    }
    await write(message.text);
  };
  const onEvent = (event: UpstreamEvent) => {
    capture.event(event);
    if (event.kind === 'closed' && !stopping) {
      warn(`the upstream session ended (${event.reason})`);
      outOfReach = `the upstream session ended (${event.reason})`;
      failPending([...pending.values()], event.reason, { conn: upstream?.sessionId });
      upstream = undefined;
    }
  };

  let upstream: Upstream | undefined;
  let ready: Promise<Upstream | Error> | undefined;
  /** The upstream session, opened on first use and again after it was lost. */
  const session = (): Promise<Upstream | Error> => {
    if (upstream && ready) return ready;
    const client = createUpstream({
      url,
      transport: options.transport,
      headers: options.headers,
      fetch: options.fetch,
      timeouts: options.timeouts,
      onMessage,
      onSent: capture.sent,
      onEnvelope: capture.envelope,
      onEvent,
    });
    upstream = client;
    ready = client.start().then(
      () => client,
      (err: Error) => {
        upstream = undefined;
        return err;
      },
    );
    return ready;
  };

  /**
   * Answers the client's open requests with an error of the bridge's own, and records it as the client got it:
   * an `out` line filed under the request's session (and stream, when known), so the request reads as answered.
   */
  function failPending(
    ids: RpcId[],
    why: string,
    where: { conn?: string | undefined; stream?: string } = {},
  ): void {
    for (const id of ids) {
      if (!pending.delete(idKey(id))) continue;
      failed++;
      const message = `tapedeck bridge: the upstream ${url} failed: ${why}`;
      emit({ t: timestamp(), type: 'event', name: 'upstream_error', id, message: why });
      const reply = { jsonrpc: '2.0', id, error: { code: HTTP_BRIDGE_DEFAULTS.errorCode, message } };
      const text = JSON.stringify(reply);
      const line: Omit<MessageLine, 'seq'> = {
        t: timestamp(),
        dir: 'out',
        raw: reply,
        producedBy: PRODUCED_BY,
      };
      if (where.conn !== undefined) line.conn = where.conn;
      if (where.stream !== undefined) line.stream = where.stream;
      emit(line, text);
      void write(text);
    }
  }

  const forward = (raw: Json, text: string, atMs: number) => {
    const requests = messageItems(raw).flatMap((item) => (item.kind === 'request' ? [item.id] : []));
    for (const id of requests) pending.set(idKey(id), id);
    const task = (async () => {
      const client = await session();
      if (client instanceof Error) {
        emit({ t: timestamp(atMs), dir: 'in', raw }, text);
        warn(client.message);
        outOfReach = client.message;
        failPending(requests, client.message);
        return;
      }
      try {
        const result = await client.send(raw, { text, atMs });
        outOfReach = undefined;
        failPending(result.unanswered, `its answer stream (${result.stream}) ended without a response`, {
          conn: client.sessionId,
          stream: result.stream,
        });
      } catch (err) {
        if (stopping) return;
        const why = (err as Error).message;
        warn(why);
        if (err instanceof UpstreamError) {
          outOfReach = OUT_OF_REACH.has(err.kind) ? why : undefined;
        }
        if (requests.length === 0)
          emit({ t: timestamp(), type: 'event', name: 'upstream_error', message: why });
        failPending(requests, why, { conn: client.sessionId });
      }
    })();
    inflight.add(task);
    void task.finally(() => inflight.delete(task));
  };

  const maxLineBytes = options.maxMessageBytes ?? HTTP_BRIDGE_DEFAULTS.maxMessageBytes;
  const framer = new LineFramer({ maxLineBytes, onLine: (line) => onLine(line) });
  function onLine(line: FramedLine): void {
    const t = timestamp(line.atMs);
    if (line.kind === 'oversize') {
      warn(`a ${line.size}-byte line from the client is over ${maxLineBytes} bytes and was not forwarded`);
      emit({ t, type: 'event', name: 'truncated', dir: 'in', size: line.size, sha256: line.sha256 });
      return;
    }
    const bytes = line.crlf ? line.bytes.subarray(0, line.bytes.length - 1) : line.bytes;
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let raw: Json | undefined;
    try {
      raw = JSON.parse(text) as Json;
    } catch {
      raw = undefined;
    }
    if (typeof raw !== 'object' || raw === null) {
      emit({ t, type: 'text', dir: 'in', text });
      return;
    }
    forward(raw, text, line.atMs);
  }

  const ended = new Promise<'eof' | 'stopped'>((resolve) => {
    input.on('data', (chunk: Buffer) => framer.push(chunk));
    input.once('end', () => resolve('eof'));
    input.once('close', () => resolve('eof'));
    input.once('error', () => resolve('eof'));
    if (options.signal?.aborted) resolve('stopped');
    options.signal?.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  const reason = await ended;
  framer.end();
  input.pause();
  if (reason === 'eof') {
    const drainMs = options.drainMs ?? HTTP_BRIDGE_DEFAULTS.drainMs;
    await Promise.race([Promise.allSettled([...inflight]), delay(drainMs)]);
  }
  stopping = true;
  await upstream?.close();
  if (outOfReach !== undefined) {
    return {
      exitCode: HTTP_BRIDGE_DEFAULTS.transportErrorExitCode,
      reason,
      failed,
      transportError: outOfReach,
    };
  }
  return { exitCode: 0, reason, failed };
}
