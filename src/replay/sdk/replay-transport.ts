import { TapedeckError } from '../../base/errors.js';
import { realScheduler } from '../../base/scheduler.js';
import type {
  TransportCallback as Callback,
  McpTransport,
  TransportMessage,
  TransportSendOptions,
} from '../../capture/sdk-transport.js';
import type { FaultOptions } from '../../faults/options.js';
import { armTimedFaults } from '../../faults/timed.js';
import type { LlmCall } from '../../llm/calls.js';
import type { LlmReplay } from '../../llm/replay.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { Json } from '../../trace/types.js';
import { loadCassette } from '../cassette/load.js';
import { type CassetteRedactionOptions, cassetteRedaction } from '../cassette/redacted.js';
import type { Cassette } from '../cassette/types.js';
import { ReplayEngine, type ReplayEvent, type ReplayReport } from '../engine/engine.js';
import { withFallbacks } from '../engine/fallback.js';
import { type FaultableChannel, replayFaultPlan, withFaults } from '../engine/faults.js';
import type { ReplayOptions } from '../options.js';
import { parseError } from './fault-transport.js';
import { wireCopy } from './wire-copy.js';

/**
 * The official SDK's seam on the replay side: `replayTransport` is a Transport a Client connects to instead of a
 * server, and the cassette answers. (Its counterpart, recordTransport, is a capture point: src/capture.)
 */

/**
 * `faults` spoil answers on their way to the client as a stdio server's would be: `malformed` reaches the client as
 * the parse error its stdio transport reports (`onerror`), `disconnect` closes the transport, `slow-stream` delays
 * the answer by the time its bytes would take.
 */
export interface ReplayTransportOptions extends ReplayOptions, FaultOptions {
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
  /**
   * An agent's model calls to answer beside the cassette: an LLM trace (`record --llm`, `useLlmCassette`), or its
   * calls read. The transport starts a replay of the provider on 127.0.0.1 when the client connects, and stops it
   * when closed; `transport.llm.url` is the base URL to give the model's SDK.
   */
  llm?: string | readonly LlmCall[] | undefined;
}

/**
 * A Transport that is the recorded server: what the client sends is matched against the cassette and answered as
 * recorded (progress, sampling / elicitation / roots requests to the client included). Each message reaches the
 * client in its own macrotask, as from a wire, so the SDK's asynchronous notification handling sees it in order; a
 * response with nothing queued before it comes in a microtask after `send` returns.
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
  /** Messages on their way to the client, and (injected faults) errors its transport would report. */
  private readonly outbox: (Json | Failure)[] = [];
  private disarm: () => void = () => {};
  /** Deliveries scheduled and not yet run: one per message in the outbox. */
  private scheduled = 0;
  /** Responses delivered in a microtask since the last delivery in a task of its own. */
  private microtaskRun = 0;
  private closed = false;
  private readonly drained: (() => void)[] = [];
  private llmReplay: LlmReplay | undefined;

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
    this.receive(wireCopy(message) as Json);
  }

  /**
   * The replay of the model's provider the `llm` option asked for: its base URL, misses and unused calls. Throws
   * before start(), or without the option.
   *
   * @example const model = new Anthropic({ apiKey: 'offline', baseURL: transport.llm.url });
   */
  get llm(): LlmReplay {
    if (!this.llmReplay)
      throw new TapedeckError(
        'usage',
        this.options.llm === undefined
          ? 'this replay transport answers no model calls: give it the llm option (an LLM trace)'
          : 'transport.llm needs a started replay transport: connect the client first',
      );
    return this.llmReplay;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    this.engine?.close();
    await this.llmReplay?.close();
    this.outbox.length = 0;
    this.settleDrained();
    this.onclose?.();
  }

  /** A no-op: the version the client asked for in `initialize` is answered there, as a server negotiates it. */
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
    if (this.outbox.length === 0 && this.scheduled === 0) return;
    await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  private async open(): Promise<void> {
    const { server, onEvent, onDiagnostic, redaction, faults, seed, llm, ...engineOptions } = this.options;
    if (llm !== undefined) this.llmReplay = await startLlm(llm);
    const loaded =
      typeof this.source === 'string'
        ? await loadCassette(this.source, { server, ...(onDiagnostic ? { onDiagnostic } : {}) })
        : undefined;
    const cassette = loaded?.cassette ?? (this.source as Cassette);
    this.loaded = cassette;
    if (engineOptions.redact === undefined && redaction !== false)
      engineOptions.redact = await cassetteRedaction(loaded?.meta, redaction ?? {});
    const scheduler = engineOptions.scheduler ?? realScheduler;
    const plan = replayFaultPlan(cassette, { faults, seed }, scheduler);
    const channel: FaultableChannel = {
      send: (message, owned) => this.deliver(message, owned),
      onMessage: (handler) => {
        this.receive = handler;
      },
      sendText: (_message, text) => this.deliverError(parseError(text)),
      sendSlowly: (message, rate) => {
        const ms = Math.round((new TextEncoder().encode(JSON.stringify(message)).length * 1000) / rate);
        scheduler.setTimeout(() => this.deliver(message), ms);
      },
      disconnect: () => {
        // Once the request's own delivery is done: the client sees its transport close, as a server's exit.
        setImmediate(() => void this.close());
      },
    };
    const faulted = plan
      ? withFaults(channel, plan, { scheduler, onFault: (fault) => engine.injected(fault) })
      : channel;
    const engine = new ReplayEngine(cassette, withFallbacks(faulted, cassette), engineOptions);
    engine.onEvent((event) => {
      onEvent?.(event);
      if (event.kind === 'error')
        this.onerror?.(event.error instanceof Error ? event.error : new Error(String(event.error)));
    });
    this.engine = engine;
    engine.start();
    if (plan)
      this.disarm = armTimedFaults(
        plan,
        (fault) => {
          engine.injected(fault);
          void this.close();
        },
        scheduler,
      );
  }

  private deliver(message: Json, owned = false): void {
    if (this.closed) return;
    // A response with nothing before it on its way needs no task of its own: the SDK's Protocol handles one
    // synchronously (its handler was set before send), and no notification waits to be seen first.
    // At most MICROTASK_RUN of them in a row, so a client that awaits one call after another still lets timers and
    // I/O run.
    const alone = this.outbox.length === 0 && this.scheduled === 0 && isResponse(message);
    this.outbox.push(owned ? message : wireCopy(message));
    if (alone && this.microtaskRun < MICROTASK_RUN) {
      this.microtaskRun++;
      this.scheduled++;
      queueMicrotask(this.flushOne);
    } else this.schedule();
  }

  private deliverError(error: Error): void {
    if (this.closed) return;
    this.outbox.push(new Failure(error));
    this.schedule();
  }

  /**
   * Each message gets a macrotask of its own, in the order sent (the client's microtasks run between two). Messages
   * queued in one turn are delivered in the next one, each its own task, rather than one turn of the event loop each.
   * A response queued when nothing else is goes in a microtask instead (see deliver).
   */
  private schedule(): void {
    this.scheduled++;
    setImmediate(this.flushInTask);
  }

  private readonly flushInTask = (): void => {
    this.microtaskRun = 0;
    this.flushOne();
  };

  /** The oldest message (or error) to the client. */
  private readonly flushOne = (): void => {
    this.scheduled--;
    if (this.outbox.length > 0) {
      const next = this.outbox.shift();
      if (!this.closed) {
        try {
          if (next instanceof Failure) this.onerror?.(next.error);
          else this.onmessage?.(next as unknown as TransportMessage);
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    this.settleDrained();
  };

  private settleDrained(): void {
    if (this.drained.length === 0 || (this.outbox.length > 0 && !this.closed)) return;
    for (const resolve of this.drained.splice(0)) resolve();
  }
}

/** How many responses in a row may reach the client in a microtask before one waits for a task of its own. */
const MICROTASK_RUN = 64;

/** A JSON-RPC response: an id, a result or an error, no method. */
function isResponse(message: Json): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as { [key: string]: Json };
  return m.method === undefined && m.id !== undefined && (m.result !== undefined || m.error !== undefined);
}

/** An error the client's transport would report, waiting in the outbox among the messages. */
class Failure {
  constructor(readonly error: Error) {}
}

/**
 * A replay of an agent's model calls on 127.0.0.1, with the rules `record --llm` redacts by (loaded when asked
 * for: src/replay imports no node: module at load time).
 */
async function startLlm(llm: string | readonly LlmCall[]): Promise<LlmReplay> {
  const [{ startLlmReplay }, { readLlmCalls }, { compile }] = await Promise.all([
    import('../../llm/replay.js'),
    import('../../llm/read.js'),
    import('../../redact/compile.js'),
  ]);
  const calls =
    typeof llm === 'string'
      ? await readLlmCalls(llm).catch((err: unknown) => {
          throw new TapedeckError('not_found', `cannot read the LLM trace ${llm}: ${(err as Error).message}`);
        })
      : llm;
  return startLlmReplay({ calls, compiled: compile({ defaults: true, rules: [], mode: 'marker' }) });
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
