import { delay, type Scheduler } from '../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { Cassette } from '../replay/cassette/types.js';
import type { ReplayChannel } from '../replay/engine/channel.js';
import { REPLAY_ERROR_CODES } from '../replay/engine/codes.js';
import { ReplayEngine } from '../replay/engine/engine.js';
import { withFallbacks } from '../replay/engine/fallback.js';
import { type ReplayOptions, withDefaults } from '../replay/options.js';
import type { ServeEvent, ServeOutcome } from '../replay/serve/stdio.js';
import {
  type ByteReader,
  type ByteWriter,
  type StdioChannel,
  type StdioChannelOptions,
  stdioChannel,
} from '../replay/serve/stdio-channel.js';
import { timestamp } from '../trace/encode.js';
import {
  classifyMessage,
  idKey,
  isObject,
  type JsonObject,
  type RpcId,
  type RpcRequest,
} from '../trace/jsonrpc.js';
import type { EventLine, Json, MessageLine } from '../trace/types.js';
import { type LiveExit, type LiveTargetFields, liveTargetOf } from './peer.js';
import { MissForwarder } from './update-forward.js';

/**
 * `run --mode update`: replay what the cassette holds and, on the first request it does not, bring up the live
 * server — with the live client's own `initialize` and `notifications/initialized` — then forward that request and
 * every later miss to it and relay the answers (progress, logs, the server's own sampling / elicitation / roots
 * requests included). Hits keep being served from the cassette. The forwarded traffic, as the client saw it, is
 * handed back at the end for the caller to append to the cassette.
 *
 * The cassette is served by the replay engine, as `tapedeck replay` serves it; this file sits between the engine and
 * the client and turns the engine's miss errors into forwarded requests.
 */

export type UpdateEvent =
  | ServeEvent
  | { kind: 'live-started'; pid: number | undefined }
  | { kind: 'forwarded'; method: string; id: RpcId }
  | { kind: 'forward-failed'; method: string; message: string };

/**
 * The live server is a command (`spawn` — node: `child_process.spawn` — with `command`, `args`, `env`, `cwd`) or
 * `upstream`, a remote Streamable HTTP / SSE server.
 */
export interface UpdateOptions extends ReplayOptions, LiveTargetFields {
  input: ByteReader;
  output: ByteWriter;
  /** How long a forwarded request may wait for the live server. */
  requestTimeoutMs?: number | undefined;
  channel?: Omit<StdioChannelOptions, 'onSkipped' | 'onError'> | undefined;
  onEvent?: ((event: UpdateEvent) => void) | undefined;
  drainMs?: number | undefined;
}

export interface UpdateOutcome {
  /** The replay outcome: its report counts the forwarded requests as misses. */
  replay: ServeOutcome;
  /** Requests the live server answered. */
  forwarded: number;
  /** Requests that missed and got no live answer (the server failed to start, timed out or went away). */
  failed: number;
  /**
   * The new traffic as the client saw it (its ids), in order: lines to append to the cassette. When the client
   * asked for another protocol version than the recording holds, a `version_negotiated` event line says so (the new
   * exchanges were made in that version); none at all when nothing new was forwarded.
   */
  lines: (Omit<MessageLine, 'seq'> | Omit<EventLine, 'seq'>)[];
  liveExit: LiveExit | undefined;
}

export interface UpdateSession {
  readonly done: Promise<UpdateOutcome>;
  stop(): void;
}

export const UPDATE_DEFAULTS = { requestTimeoutMs: ANSWER_TIMEOUT_MS, drainMs: 5000 } as const;

/**
 * Serves `cassette` over a stdio pair, forwarding misses to the server `command`.
 *
 * @example
 * const session = serveUpdate(cassette, { input: process.stdin, output: process.stdout, spawn, command: 'node', args: ['server.js'] });
 * const { lines } = await session.done;
 * await appendToCassette('session.jsonl', lines);
 */
export function serveUpdate(cassette: Cassette, options: UpdateOptions): UpdateSession {
  const server = new UpdateServer(cassette, options);
  return { done: server.run(), stop: () => server.stop() };
}

/** One update session: the client's channel, the replay engine in front, and the live side behind its misses. */
class UpdateServer {
  private readonly client: StdioChannel;
  private readonly live: MissForwarder;
  private readonly engine: ReplayEngine;
  private readonly scheduler: Scheduler;
  private readonly drainMs: number;
  /** Client requests replay has not answered yet, by id key: a miss among them is forwarded instead. */
  private readonly asked = new Map<string, { request: RpcRequest; raw: JsonObject }>();
  /** Client requests received (for the probe check, as `tapedeck replay` makes it). */
  private readonly methods: string[] = [];
  /** The engine's own server→client requests not yet answered: at EOF they never will be. */
  private readonly engineAsks = new Set<string>();
  private toEngine: ((message: Json) => void) | undefined;
  private eof = false;
  private readonly stopped: Promise<'stopped'>;
  stop!: () => void;

  constructor(cassette: Cassette, options: UpdateOptions) {
    const {
      input,
      output,
      channel: channelOptions,
      onEvent,
      drainMs,
      spawn,
      command,
      args,
      env,
      cwd,
      upstream,
      ...rest
    } = options;
    const { requestTimeoutMs, ...engineOptions } = rest;
    const { answerTimeoutMs, scheduler } = withDefaults(engineOptions);
    const emit = (event: UpdateEvent) => onEvent?.(event);
    this.scheduler = scheduler;
    this.drainMs = drainMs ?? UPDATE_DEFAULTS.drainMs;
    this.client = stdioChannel(input, output, {
      ...channelOptions,
      onSkipped: (line) => emit({ kind: 'skipped', line }),
      onError: (error) => emit({ kind: 'error', error }),
    });
    this.live = new MissForwarder({
      target: liveTargetOf({ spawn, command, args, env, cwd, upstream }),
      requestTimeoutMs: requestTimeoutMs ?? UPDATE_DEFAULTS.requestTimeoutMs,
      answerTimeoutMs,
      scheduler,
      emit,
      send: (message) => this.client.send(message),
    });
    this.client.onMessage((raw) => this.fromClient(raw));
    const engineSide: ReplayChannel = {
      send: (message) => this.fromEngine(message),
      onMessage: (handler) => {
        this.toEngine = handler;
      },
    };
    this.engine = new ReplayEngine(
      cassette,
      withFallbacks(engineSide, cassette, (fallback) => emit({ kind: 'fallback', fallback })),
      engineOptions,
    );
    this.engine.onEvent((event) => {
      if (event.kind === 'version')
        this.live.lines.push({ t: timestamp(), type: 'event', name: 'version_negotiated', ...event.note });
      emit(event);
    });
    this.engine.start();
    this.stopped = new Promise<'stopped'>((resolve) => {
      this.stop = () => resolve('stopped');
    });
  }

  /** What the engine sends the client: a miss of a client request is forwarded to the live server instead. */
  private fromEngine(message: Json): void {
    const item = classifyMessage(message);
    if (item.kind === 'request') {
      this.engineAsks.add(idKey(item.id));
      if (this.eof) this.engine.close();
    }
    if (item.kind === 'response' && item.id !== null) {
      const pending = this.asked.get(idKey(item.id));
      this.asked.delete(idKey(item.id));
      if (pending && item.error?.code === REPLAY_ERROR_CODES.miss) {
        void this.live.forward(pending.request, pending.raw, item.error.message);
        return;
      }
    }
    this.client.send(message);
  }

  private fromClient(raw: Json): void {
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      const message = classifyMessage(item);
      if (message.kind === 'response' && message.id !== null) {
        if (isObject(item) && this.live.answerRelay(message.id, item)) continue;
        this.engineAsks.delete(idKey(message.id));
      }
      if (message.kind === 'request' && isObject(item)) {
        this.methods.push(message.method);
        this.asked.set(idKey(message.id), { request: message, raw: item });
        if (message.method === 'initialize') this.live.clientInit = message;
      }
      if (message.kind === 'notification') this.live.onClientNotification(message, item);
      this.toEngine?.(item);
    }
  }

  async run(): Promise<UpdateOutcome> {
    const { client, engine, live, methods } = this;
    const ended = await Promise.race([client.ended.then(() => 'eof' as const), this.stopped]);
    if (ended === 'eof') {
      this.eof = true;
      // Nobody is left to answer questions: relayed and replayed ones end now.
      live.endOfInput();
      if (this.engineAsks.size > 0) engine.close();
      await Promise.race([Promise.all([engine.idle(), live.idle()]), this.stopped]);
    }
    engine.close();
    client.close();
    const liveExit = await live.close();
    await Promise.race([client.flush(), delay(this.drainMs, this.scheduler)]);
    const replay: ServeOutcome = {
      report: engine.report(),
      ended,
      requests: methods.length,
      probe: methods.length > 0 && methods.every((method) => method === 'server/discover'),
    };
    return { replay, forwarded: live.forwarded, failed: live.failed, lines: live.keptLines(), liveExit };
  }
}
