import { TapedeckError } from '../errors.js';
import { loadRedaction, type RedactionOptions } from '../redact/setup.js';
import { FileSink } from '../sink/file.js';
import { noRedaction, type Redactor, type TraceSink } from '../sink/sink.js';
import { timestamp } from '../trace/encode.js';
import { newMeta } from '../trace/meta.js';
import type { TraceDiagnostic } from '../trace/reader.js';
import type { Json, MetaLine, TransportKind } from '../trace/types.js';
import type { Cassette } from './cassette/cassette.js';
import { loadCassette } from './cassette/load.js';
import { type CassetteRedactionOptions, cassetteRedaction } from './cassette/redacted.js';
import type { ReplayChannel } from './engine/channel.js';
import { ReplayEngine, type ReplayEvent, type ReplayReport } from './engine/engine.js';
import { withFallbacks } from './engine/fallback.js';
import type { ReplayOptions } from './options.js';

/**
 * The official SDK's seam, both ways: `replayTransport` is a Transport a Client connects to instead of a server
 * (the cassette answers), `recordTransport` wraps any Transport and writes both directions to a trace. The
 * Transport contract is declared here structurally, so tapedeck needs the SDK neither at run time nor for its types.
 */

/** A JSON-RPC message as SDK transports pass it (the SDK's `JSONRPCMessage`). */
export interface TransportMessage {
  jsonrpc: '2.0';
  [key: string]: unknown;
}

/** The SDK's `TransportSendOptions`: `relatedRequestId` ties a server's message to the request it concerns. */
export interface TransportSendOptions {
  relatedRequestId?: string | number | undefined;
  [key: string]: unknown;
}

/** Function properties compared bivariantly, as the SDK's own transports are written against them. */
type Callback<A extends unknown[]> = { bivarianceHack(...args: A): void }['bivarianceHack'];

/** The SDK's `Transport` (`@modelcontextprotocol/sdk/shared/transport.js`), structurally. */
export interface McpTransport {
  start(): Promise<void>;
  send(message: TransportMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
  onclose?: Callback<[]> | undefined;
  onerror?: Callback<[error: Error]> | undefined;
  onmessage?: Callback<[message: TransportMessage, extra?: unknown]> | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: Callback<[version: string]> | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Replay

export interface ReplayTransportOptions extends ReplayOptions {
  /** Which server of a multi-server cassette file. */
  server?: string | undefined;
  /** Hits, misses, answers, timeouts as they happen. */
  onEvent?: ((event: ReplayEvent) => void) | undefined;
  /** Problems reading the cassette file (corrupt lines skipped …). */
  onDiagnostic?: ((diagnostic: TraceDiagnostic) => void) | undefined;
  /**
   * A cassette whose meta line says it was redacted gets requests redacted by the same rules before matching
   * (built-ins as recorded, the user / project / `$TAPEDECK_REDACT` rules, plus these), so a live secret matches its
   * marker. `false`: match requests as they are. Ignored when `redact` is given.
   */
  redaction?: CassetteRedactionOptions | false | undefined;
}

/**
 * A Transport that is the recorded server: what the client sends is matched against the cassette and answered as
 * recorded (progress, sampling / elicitation / roots requests to the client included). Each message reaches the
 * client in its own macrotask, as from a wire, so the SDK's asynchronous notification handling sees it in order.
 */
export class ReplayTransport implements McpTransport {
  onclose?: Callback<[]> | undefined;
  onerror?: Callback<[error: Error]> | undefined;
  onmessage?: Callback<[message: TransportMessage, extra?: unknown]> | undefined;
  /** Always undefined: a Client that sees a session id skips `initialize`, and the cassette holds it. */
  readonly sessionId: string | undefined = undefined;
  private engine: ReplayEngine | undefined;
  private loaded: Cassette | undefined;
  private opening: Promise<void> | undefined;
  private receive: ((message: Json) => void) | undefined;
  private readonly outbox: Json[] = [];
  private scheduled = false;
  private closed = false;
  private readonly drained: (() => void)[] = [];

  constructor(
    private readonly source: Cassette | string,
    private readonly options: ReplayTransportOptions = {},
  ) {}

  /** The cassette being replayed (once started, for a path). */
  get cassette(): Cassette | undefined {
    return this.loaded;
  }

  start(): Promise<void> {
    this.opening ??= this.open();
    return this.opening;
  }

  async send(message: TransportMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new TapedeckError('usage', 'the replay transport is closed: connect a new one');
    if (!this.receive)
      throw new TapedeckError('usage', 'the replay transport was not started: call start() first');
    // A copy, as over a wire: neither side can change the other's objects.
    this.receive(JSON.parse(JSON.stringify(message)) as Json);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.engine?.close();
    this.outbox.length = 0;
    this.settleDrained();
    this.onclose?.();
  }

  /** A no-op: replay answers in whatever protocol version the recording used. */
  setProtocolVersion(_version: string): void {}

  /**
   * Used and unused exchanges, misses, the client's answers. Throws before start().
   *
   * @example expect(transport.report().unused).toEqual([])
   */
  report(): ReplayReport {
    if (!this.engine) throw new TapedeckError('usage', 'report() needs a started replay transport');
    return this.engine.report();
  }

  /** Resolves once nothing is playing and every message replay sent has been delivered. */
  async idle(): Promise<void> {
    await this.engine?.idle();
    if (this.outbox.length === 0 && !this.scheduled) return;
    await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  private async open(): Promise<void> {
    const { server, onEvent, onDiagnostic, redaction, ...engineOptions } = this.options;
    const loaded =
      typeof this.source === 'string'
        ? await loadCassette(this.source, { server, ...(onDiagnostic ? { onDiagnostic } : {}) })
        : undefined;
    const cassette = loaded?.cassette ?? (this.source as Cassette);
    this.loaded = cassette;
    if (engineOptions.redact === undefined && redaction !== false)
      engineOptions.redact = await cassetteRedaction(loaded?.meta, redaction ?? {});
    const channel: ReplayChannel = {
      send: (message) => this.deliver(message),
      onMessage: (handler) => {
        this.receive = handler;
      },
    };
    const engine = new ReplayEngine(cassette, withFallbacks(channel, cassette), engineOptions);
    engine.onEvent((event) => {
      onEvent?.(event);
      if (event.kind === 'error')
        this.onerror?.(event.error instanceof Error ? event.error : new Error(String(event.error)));
    });
    this.engine = engine;
    engine.start();
  }

  private deliver(message: Json): void {
    if (this.closed) return;
    this.outbox.push(JSON.parse(JSON.stringify(message)) as Json);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.outbox.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const next = this.outbox.shift();
      if (next !== undefined && !this.closed) {
        try {
          this.onmessage?.(next as unknown as TransportMessage);
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
      this.schedule();
      this.settleDrained();
    });
  }

  private settleDrained(): void {
    if (this.outbox.length > 0 && !this.closed) return;
    for (const resolve of this.drained.splice(0)) resolve();
  }
}

/**
 * A Transport backed by a cassette, for in-process tests: a path is read when the client connects (start()).
 *
 * @example
 * const transport = replayTransport('fixtures/session.jsonl');
 * await client.connect(transport);
 * await client.callTool({ name: 'echo', arguments: { message: 'hi' } }); // → the recorded result
 * expect(transport.report().unused).toEqual([]);
 */
export function replayTransport(
  cassette: Cassette | string,
  options: ReplayTransportOptions = {},
): ReplayTransport {
  return new ReplayTransport(cassette, options);
}

// ---------------------------------------------------------------------------------------------------------------
// Record

export interface RecordTransportOptions {
  /** Write the trace to this file (0600, rotated like `tapedeck record`). Give `file` or `sink`. */
  file?: string | undefined;
  /** Or hand lines to this sink, not started yet: it gets the meta line on start() and its end on close. */
  sink?: TraceSink | undefined;
  /** The server name written on every line (mcporter-style multi-server traces) and in the meta. */
  server?: string | undefined;
  label?: string | undefined;
  /** Which end the wrapped transport is: a client's (send = client→server, `in`) or a server's. */
  side?: 'client' | 'server';
  /** `meta.transport`; by default guessed from the wrapped transport's class (stdio, http, sse, memory). */
  transport?: TransportKind | undefined;
  /**
   * For `file`: `defaults` — the rules `tapedeck record` applies: built-in, the user and project redact.json and
   * `$TAPEDECK_REDACT` — or those plus more (`{ patterns, files, rules, defaults, mode }`), none, or a redactor of
   * your own. The first two write their summary into the meta line, so replay redacts requests the same way before
   * matching; a redactor of your own leaves the cassette unmarked.
   */
  redact?: 'defaults' | 'none' | Redactor | RedactionOptions;
}

/**
 * A Transport decorator that records every message both ways and otherwise changes nothing: `send` options
 * (relatedRequestId) are forwarded, the inner `sessionId` shows through, `setProtocolVersion` is passed on, and
 * handlers already set on the inner transport keep being called.
 */
export class RecordingTransport implements McpTransport {
  onclose?: Callback<[]> | undefined;
  onerror?: Callback<[error: Error]> | undefined;
  onmessage?: Callback<[message: TransportMessage, extra?: unknown]> | undefined;
  readonly sink: TraceSink;
  /** Resolves once the trace has its end line. */
  readonly closed: Promise<void>;
  private readonly outgoing: 'in' | 'out';
  private readonly meta: MetaLine;
  private readonly record: (dir: 'in' | 'out', message: TransportMessage) => void;
  private finish!: (reason: 'producer_shutdown' | 'transport_error') => void;
  private failed = false;
  private started = false;

  constructor(
    readonly inner: McpTransport,
    options: RecordTransportOptions,
  ) {
    if ((options.file === undefined) === (options.sink === undefined)) {
      throw new TapedeckError(
        'usage',
        'recordTransport needs one of `file` (a trace path) or `sink`, not both',
      );
    }
    const redact = options.redact ?? 'defaults';
    // Rules are loaded (and a bad redact.json reported) before anything is recorded.
    const setup =
      options.file === undefined || redact === 'none' || typeof redact === 'function'
        ? undefined
        : loadRedaction(redact === 'defaults' ? {} : redact);
    this.sink =
      options.sink ??
      new FileSink({
        path: options.file!,
        redact: setup?.redactor ?? (typeof redact === 'function' ? redact : noRedaction),
      });
    this.outgoing = (options.side ?? 'client') === 'client' ? 'in' : 'out';
    const kind = options.transport ?? guessKind(inner);
    this.meta = newMeta({
      label: options.label ?? options.server ?? 'sdk-transport',
      ...(setup !== undefined ? { redaction: setup.summary } : {}),
      transport: kind,
      server: options.server,
    });
    const server = options.server;
    this.record = (dir, message) => {
      const text = JSON.stringify(message);
      const raw = JSON.parse(text) as Json;
      this.sink.append({ t: timestamp(), dir, raw, ...(server !== undefined ? { server } : {}) }, text);
    };
    this.closed = new Promise((resolve) => {
      let done = false;
      this.finish = (reason) => {
        if (done) return;
        done = true;
        // A transport closed before it started recorded nothing: no file, no end line.
        if (!this.started) resolve();
        else void this.sink.close({ reason }).then(resolve, resolve);
      };
    });
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  set sessionId(value: string | undefined) {
    this.inner.sessionId = value;
  }

  async start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.sink.start({ ...this.meta, startedAt: timestamp() });
      const incoming = this.outgoing === 'in' ? 'out' : 'in';
      const previous = {
        message: this.inner.onmessage,
        error: this.inner.onerror,
        close: this.inner.onclose,
      };
      this.inner.onmessage = (message, extra) => {
        this.record(incoming, message);
        previous.message?.(message, extra);
        this.onmessage?.(message, extra);
      };
      this.inner.onerror = (error) => {
        this.failed = true;
        this.sink.append({ t: timestamp(), type: 'event', name: 'transport_error', error: error.message });
        previous.error?.(error);
        this.onerror?.(error);
      };
      this.inner.onclose = () => {
        this.finish(this.failed ? 'transport_error' : 'producer_shutdown');
        previous.close?.();
        this.onclose?.();
      };
    }
    await this.inner.start();
  }

  send(message: TransportMessage, options?: TransportSendOptions): Promise<void> {
    this.record(this.outgoing, message);
    return options === undefined ? this.inner.send(message) : this.inner.send(message, options);
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      // A transport that never calls onclose still gets its trace ended.
      this.finish('producer_shutdown');
      await this.closed;
    }
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }
}

/**
 * Wraps `inner` so the session is recorded to a trace that `tapedeck show`, `stats` and `replay` read.
 *
 * @example
 * const transport = recordTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }), { file: 'session.jsonl' });
 * await client.connect(transport); … await client.close(); // the trace has its end line once `transport.closed` resolves
 */
export function recordTransport(inner: McpTransport, options: RecordTransportOptions): RecordingTransport {
  return new RecordingTransport(inner, options);
}

const KINDS: Readonly<Record<string, TransportKind>> = {
  StdioClientTransport: 'stdio',
  StdioServerTransport: 'stdio',
  StreamableHTTPClientTransport: 'http',
  StreamableHTTPServerTransport: 'http',
  WebStandardStreamableHTTPServerTransport: 'http',
  SSEClientTransport: 'sse',
  SSEServerTransport: 'sse',
  InMemoryTransport: 'memory',
};

function guessKind(inner: McpTransport): TransportKind | undefined {
  return KINDS[(inner as { constructor?: { name?: string } }).constructor?.name ?? ''];
}
