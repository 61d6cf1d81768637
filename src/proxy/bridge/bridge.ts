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
  UPSTREAM_DEFAULTS,
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
import { BridgeOAuth } from './oauth-client.js';

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
  /**
   * Sign in with OAuth when the upstream answers 401 (the default, unless `headers` carries an Authorization):
   * `folder` keeps the sign-in between runs (undefined: memory only), `openBrowser` opens the authorization URL
   * (without it the URL is only written to `errorOutput`). `false` turns it off.
   */
  oauth?: false | { folder: string | undefined; openBrowser?: ((url: URL) => void) | undefined } | undefined;
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
  return new HttpBridge(options).run();
}

type Emit = TraceSink['append'];

/** One bridge session: stdin lines forwarded upstream, upstream messages written to stdout, both recorded. */
class HttpBridge {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly errorOutput: Writable;
  private readonly emit: Emit;
  private readonly capture: ReturnType<typeof upstreamCapture>;
  private readonly framer: LineFramer;
  private readonly maxLineBytes: number;
  /** Client requests waiting for their response: id key → id. */
  private readonly pending = new Map<string, RpcId>();
  private readonly inflight = new Set<Promise<void>>();
  private failed = 0;
  private stopping = false;
  /** Set while the upstream is out of reach (cleared by the next answer it gives); decides the exit code. */
  private outOfReach: string | undefined;
  private upstream: Upstream | undefined;
  private ready: Promise<Upstream | Error> | undefined;
  private readonly oauth: BridgeOAuth | undefined;
  private readonly ended = new AbortController();

  constructor(private readonly options: HttpBridgeOptions) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.errorOutput = options.errorOutput ?? process.stderr;
    const { sink } = options;
    // Before the first line is read: a bad value would otherwise fail every request, quoting it in the error.
    checkAddedHeaders(options.headers ?? {});
    this.emit = sink.append.bind(sink);
    this.capture = upstreamCapture(this.emit);
    this.output.on('error', (err: NodeJS.ErrnoException) =>
      this.emit({
        t: timestamp(),
        type: 'event',
        name: 'write_error',
        target: 'client',
        error: err.code ?? err.message,
      }),
    );
    this.maxLineBytes = options.maxMessageBytes ?? HTTP_BRIDGE_DEFAULTS.maxMessageBytes;
    this.framer = new LineFramer({ maxLineBytes: this.maxLineBytes, onLine: (line) => this.onLine(line) });
    this.oauth = this.makeOAuth();
  }

  /** The bridge's own OAuth client, unless turned off or the user gave an Authorization header of their own. */
  private makeOAuth(): BridgeOAuth | undefined {
    const { options } = this;
    const given = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
    if (options.oauth === false || given) return undefined;
    return new BridgeOAuth({
      url: options.url,
      folder: options.oauth?.folder,
      openBrowser: options.oauth?.openBrowser,
      say: (text) => this.warn(text),
      envelope: this.capture.envelope,
      event: (fields) => this.emit({ t: timestamp(), type: 'event', name: 'oauth', ...fields }),
      signal: this.ended.signal,
      fetch: options.fetch,
      retryHeadersMs: options.timeouts?.headersMs ?? UPSTREAM_DEFAULTS.timeouts.headersMs,
    });
  }

  /** Runs until stdin ends (or the signal aborts), then closes the session. */
  async run(): Promise<HttpBridgeResult> {
    const { input, options } = this;
    const ended = new Promise<'eof' | 'stopped'>((resolve) => {
      input.on('data', (chunk: Buffer) => this.framer.push(chunk));
      input.once('end', () => resolve('eof'));
      input.once('close', () => resolve('eof'));
      input.once('error', () => resolve('eof'));
      if (options.signal?.aborted) resolve('stopped');
      options.signal?.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
    const reason = await ended;
    this.framer.end();
    input.pause();
    if (reason === 'eof') {
      const drainMs = options.drainMs ?? HTTP_BRIDGE_DEFAULTS.drainMs;
      await Promise.race([Promise.allSettled([...this.inflight]), delay(drainMs)]);
    }
    this.stopping = true;
    this.ended.abort();
    await this.upstream?.close();
    await this.oauth?.close();
    const { failed, outOfReach } = this;
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

  private warn(text: string): void {
    this.errorOutput.write(`tapedeck: ${text}\n`);
  }

  private async write(text: string): Promise<void> {
    const { output } = this;
    if (!output.writable) return;
    if (!output.write(`${text}\n`)) {
      // Backpressure: the stream this message came on waits until the client has read it.
      await new Promise<void>((resolve) => {
        output.once('drain', resolve);
        output.once('close', resolve);
      });
    }
  }

  private async onMessage(message: UpstreamMessage): Promise<void> {
    this.outOfReach = undefined;
    this.capture.received(message);
    for (const item of messageItems(message.raw)) {
      if (item.kind === 'response' && item.id !== null) this.pending.delete(idKey(item.id));
    }
    await this.write(message.text);
  }

  private onEvent(event: UpstreamEvent): void {
    this.capture.event(event);
    if (event.kind === 'closed' && !this.stopping) {
      this.warn(`the upstream session ended (${event.reason})`);
      this.outOfReach = `the upstream session ended (${event.reason})`;
      this.failPending([...this.pending.values()], event.reason, { conn: this.upstream?.sessionId });
      this.upstream = undefined;
    }
  }

  /** The upstream session, opened on first use and again after it was lost. */
  private session(): Promise<Upstream | Error> {
    if (this.upstream && this.ready) return this.ready;
    const { options, capture } = this;
    const client = createUpstream({
      url: options.url,
      transport: options.transport,
      headers: options.headers,
      fetch: this.oauth?.fetch ?? options.fetch,
      timeouts: options.timeouts,
      onMessage: (message) => this.onMessage(message),
      onSent: capture.sent,
      onEnvelope: capture.envelope,
      onEvent: (event) => this.onEvent(event),
    });
    this.upstream = client;
    this.ready = client.start().then(
      () => client,
      (err: Error) => {
        this.upstream = undefined;
        return err;
      },
    );
    return this.ready;
  }

  /**
   * Answers the client's open requests with an error of the bridge's own, and records it as the client got it:
   * an `out` line filed under the request's session (and stream, when known), so the request reads as answered.
   */
  private failPending(
    ids: RpcId[],
    why: string,
    where: { conn?: string | undefined; stream?: string } = {},
  ): void {
    for (const id of ids) {
      if (!this.pending.delete(idKey(id))) continue;
      this.failed++;
      const message = `tapedeck bridge: the upstream ${this.options.url} failed: ${why}`;
      this.emit({ t: timestamp(), type: 'event', name: 'upstream_error', id, message: why });
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
      this.emit(line, text);
      void this.write(text);
    }
  }

  private forward(raw: Json, text: string, atMs: number): void {
    const requests = messageItems(raw).flatMap((item) => (item.kind === 'request' ? [item.id] : []));
    for (const id of requests) this.pending.set(idKey(id), id);
    const task = this.send(raw, text, atMs, requests);
    this.inflight.add(task);
    void task.finally(() => this.inflight.delete(task));
  }

  private async send(raw: Json, text: string, atMs: number, requests: RpcId[]): Promise<void> {
    const client = await this.session();
    if (client instanceof Error) {
      this.emit({ t: timestamp(atMs), dir: 'in', raw }, text);
      this.warn(client.message);
      this.outOfReach = client.message;
      this.failPending(requests, client.message);
      return;
    }
    try {
      const result = await client.send(raw, { text, atMs });
      this.outOfReach = undefined;
      this.failPending(result.unanswered, `its answer stream (${result.stream}) ended without a response`, {
        conn: client.sessionId,
        stream: result.stream,
      });
    } catch (err) {
      if (this.stopping) return;
      const why = (err as Error).message;
      this.warn(why);
      if (err instanceof UpstreamError) {
        this.outOfReach = OUT_OF_REACH.has(err.kind) ? why : undefined;
      }
      if (requests.length === 0)
        this.emit({ t: timestamp(), type: 'event', name: 'upstream_error', message: why });
      this.failPending(requests, why, { conn: client.sessionId });
    }
  }

  private onLine(line: FramedLine): void {
    const t = timestamp(line.atMs);
    if (line.kind === 'oversize') {
      this.warn(
        `a ${line.size}-byte line from the client is over ${this.maxLineBytes} bytes and was not forwarded`,
      );
      this.emit({ t, type: 'event', name: 'truncated', dir: 'in', size: line.size, sha256: line.sha256 });
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
      this.emit({ t, type: 'text', dir: 'in', text });
      return;
    }
    this.forward(raw, text, line.atMs);
  }
}
