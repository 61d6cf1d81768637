import { TapedeckError } from '../base/errors.js';
import { loadRedaction, type RedactionOptions } from '../redact/setup.js';
import type { Redactor } from '../redact/types.js';
import { FileSink } from '../sink/file.js';
import { noRedaction, type TraceSink } from '../sink/sink.js';
import { timestamp } from '../trace/encode.js';
import { newMeta } from '../trace/meta.js';
import type { Json, MetaLine, TransportKind } from '../trace/types.js';
import type {
  TransportCallback as Callback,
  McpTransport,
  TransportMessage,
  TransportSendOptions,
} from './sdk-transport.js';

/**
 * The official SDK's seam as a capture point: `recordTransport` wraps any Transport (a client's or a server's) and
 * writes both directions to a trace, changing nothing on the way.
 */

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
