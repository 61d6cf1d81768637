import { delay } from '../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { Cassette } from '../replay/cassette/types.js';
import type { ReplayChannel } from '../replay/engine/channel.js';
import { REPLAY_ERROR_CODES } from '../replay/engine/codes.js';
import { ReplayEngine } from '../replay/engine/engine.js';
import { withFallbacks } from '../replay/engine/fallback.js';
import { errorResponse } from '../replay/engine/rewrite.js';
import { type ReplayOptions, withDefaults } from '../replay/options.js';
import type { ServeEvent, ServeOutcome } from '../replay/serve/stdio.js';
import {
  type ByteReader,
  type ByteWriter,
  type StdioChannelOptions,
  stdioChannel,
} from '../replay/serve/stdio-channel.js';
import { timestamp } from '../trace/encode.js';
import {
  cancelledRequestId,
  classifyMessage,
  idKey,
  isObject,
  type JsonObject,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
} from '../trace/jsonrpc.js';
import type { EventLine, Json, MessageLine } from '../trace/types.js';
import {
  type LiveAnswer,
  type LiveExit,
  type LivePeer,
  type LiveTargetFields,
  liveTargetOf,
} from './peer.js';
import { startLivePeer } from './start-peer.js';

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
  const target = liveTargetOf({ spawn, command, args, env, cwd, upstream });
  const { requestTimeoutMs, ...engineOptions } = rest;
  const { answerTimeoutMs, scheduler } = withDefaults(engineOptions);
  const timeoutMs = requestTimeoutMs ?? UPDATE_DEFAULTS.requestTimeoutMs;
  const emit = (event: UpdateEvent) => onEvent?.(event);
  const client = stdioChannel(input, output, {
    ...channelOptions,
    onSkipped: (line) => emit({ kind: 'skipped', line }),
    onError: (error) => emit({ kind: 'error', error }),
  });
  const lines: UpdateOutcome['lines'] = [];
  /** Forwarded requests still waiting for the live answer: left out of the cassette if the session ends first. */
  const open = new Set<Omit<MessageLine, 'seq'>>();
  const record = (dir: 'in' | 'out', raw: Json) => {
    const line = { t: timestamp(), dir, raw: structuredClone(raw) };
    lines.push(line);
    return line;
  };
  /** Client requests replay has not answered yet, by id key: a miss among them is forwarded instead. */
  const asked = new Map<string, { request: RpcRequest; raw: JsonObject }>();
  /** Server→client requests relayed from the live server, waiting for the client's answer. */
  const relays = new Map<string, (answer: JsonObject | undefined) => void>();
  /** Client request id key → the id it was forwarded with (for cancellations). */
  const forwardedIds = new Map<string, RpcId>();
  let clientInit: RpcRequest | undefined;
  let sawInitialized = false;
  let initializedSent = false;
  let live: Promise<LivePeer | string> | undefined;
  let liveServer: LivePeer | undefined;
  let broughtUp = false;
  let relayId = 0;
  let forwarded = 0;
  let failed = 0;
  let inflight = 0;
  let eof = false;
  const idleWaiters: (() => void)[] = [];

  /** Client requests received (for the probe check, as `tapedeck replay` makes it). */
  const methods: string[] = [];
  /** The engine's own server→client requests not yet answered: at EOF they never will be. */
  const engineAsks = new Set<string>();
  let toEngine: ((message: Json) => void) | undefined;
  const engineSide: ReplayChannel = {
    send(message) {
      const item = classifyMessage(message);
      if (item.kind === 'request') {
        engineAsks.add(idKey(item.id));
        if (eof) engine.close();
      }
      if (item.kind === 'response' && item.id !== null) {
        const pending = asked.get(idKey(item.id));
        asked.delete(idKey(item.id));
        if (pending && item.error?.code === REPLAY_ERROR_CODES.miss) {
          void forward(pending.request, pending.raw, item.error.message);
          return;
        }
      }
      client.send(message);
    },
    onMessage(handler) {
      toEngine = handler;
    },
  };

  client.onMessage((raw) => {
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      const message = classifyMessage(item);
      if (message.kind === 'response' && message.id !== null) {
        const relay = relays.get(idKey(message.id));
        if (relay && isObject(item)) {
          relay(item);
          continue;
        }
        engineAsks.delete(idKey(message.id));
      }
      if (message.kind === 'request' && isObject(item)) {
        methods.push(message.method);
        asked.set(idKey(message.id), { request: message, raw: item });
        if (message.method === 'initialize') clientInit = message;
      }
      if (message.kind === 'notification') onClientNotification(message, item);
      toEngine?.(item);
    }
  });

  function onClientNotification(notification: RpcNotification, raw: Json): void {
    if (notification.method === 'notifications/initialized') {
      sawInitialized = true;
      // Sent in the bring-up when it came first; forwarded when the client's initialize was itself forwarded.
      void live?.then((server) => {
        if (typeof server !== 'string') sendInitialized(server);
      });
      return;
    }
    if (!live) return;
    const cancelled = cancelledRequestId(notification);
    if (cancelled !== undefined) {
      // Cancelling a replayed request is the replay server's business; a forwarded one's is the live server's.
      const target = forwardedIds.get(idKey(cancelled));
      if (target === undefined) return;
      record('in', raw);
      void live.then((server) => {
        if (typeof server !== 'string')
          server.notify(notification.method, { ...(notification.params ?? {}), requestId: target });
      });
      return;
    }
    void live.then((server) => {
      if (typeof server !== 'string') server.notify(notification.method, notification.params);
    });
  }

  function sendInitialized(server: LivePeer): void {
    if (initializedSent) return;
    initializedSent = true;
    server.notify('notifications/initialized');
  }

  /** Starts the live server once; `first` is the request that missed (an `initialize` is then forwarded as is). */
  function bringUp(first: RpcRequest): Promise<LivePeer | string> {
    live ??= (async () => {
      let server: LivePeer;
      try {
        server = await startLivePeer(target, {
          stderr: 'inherit',
          requestTimeoutMs: timeoutMs,
          scheduler,
          onRequest: relayRequest,
          onNotification: relayNotification,
        });
      } catch (err) {
        return `the live server could not be started: ${err instanceof Error ? err.message : String(err)}`;
      }
      liveServer = server;
      emit({ kind: 'live-started', pid: server.pid });
      // The client went through the handshake with the cassette; the live server needs its own.
      if (clientInit && first.method !== 'initialize') {
        const outcome = await server.request('initialize', clientInit.params);
        if (outcome.kind !== 'response' || !isObject(outcome.message.result)) {
          const why =
            outcome.kind === 'timeout'
              ? `no answer to initialize within ${outcome.ms} ms`
              : outcome.kind === 'exit'
                ? `it exited (code ${outcome.exit.code}) during initialize`
                : outcome.kind === 'error'
                  ? outcome.message
                  : `initialize failed: ${JSON.stringify(outcome.message.error ?? null)}`;
          void server.close();
          return `the live server could not be brought up: ${why}`;
        }
        if (sawInitialized) sendInitialized(server);
      }
      broughtUp = true;
      return server;
    })();
    return live;
  }

  async function forward(request: RpcRequest, raw: JsonObject, missMessage: string): Promise<void> {
    inflight++;
    try {
      const server = await bringUp(request);
      if (typeof server === 'string') {
        failed++;
        emit({ kind: 'forward-failed', method: request.method, message: server });
        client.send(errorResponse(request.id, REPLAY_ERROR_CODES.miss, `${missMessage}; ${server}`));
        return;
      }
      emit({ kind: 'forwarded', method: request.method, id: request.id });
      const line = record('in', raw);
      open.add(line);
      const outcome = await server.request(request.method, request.params, {
        onSent: (id) => forwardedIds.set(idKey(request.id), id),
      });
      forwardedIds.delete(idKey(request.id));
      open.delete(line);
      if (outcome.kind === 'response') {
        forwarded++;
        const answer = { ...outcome.message, id: request.id };
        client.send(answer);
        record('out', answer);
        return;
      }
      // Nothing usable to keep: the request stays out of the cassette.
      lines.splice(lines.indexOf(line), 1);
      failed++;
      const why =
        outcome.kind === 'timeout'
          ? `the live server did not answer within ${outcome.ms} ms`
          : outcome.kind === 'error'
            ? outcome.message
            : outcome.exit.reason !== undefined
              ? `the live server went away (${outcome.exit.reason}) before answering`
              : `the live server exited (code ${outcome.exit.code}) before answering`;
      emit({ kind: 'forward-failed', method: request.method, message: why });
      client.send(errorResponse(request.id, REPLAY_ERROR_CODES.miss, `${missMessage}; ${why}`));
    } finally {
      if (--inflight === 0) for (const resolve of idleWaiters.splice(0)) resolve();
    }
  }

  function relayNotification(notification: RpcNotification): void {
    // The client had the session's startup notifications from the cassette; the bring-up's own are not news.
    if (!broughtUp) return;
    const message: JsonObject = { jsonrpc: '2.0', method: notification.method };
    if (notification.params) message.params = notification.params;
    client.send(message);
    record('out', message);
  }

  function relayRequest(request: RpcRequest): Promise<LiveAnswer> {
    // Its own id space: the replay server numbers its server→client requests 0, 1, 2 …
    const id = `tapedeck-live-${relayId++}`;
    const message: JsonObject = { jsonrpc: '2.0', id, method: request.method };
    if (request.params) message.params = request.params;
    const recordIt = broughtUp;
    return new Promise((resolve) => {
      const settle = (answer: JsonObject | undefined) => {
        scheduler.clearTimeout(timer);
        relays.delete(idKey(id));
        if (!answer) {
          resolve({
            error: {
              code: -32603,
              message: `the client did not answer ${request.method} within ${answerTimeoutMs} ms`,
            },
          });
          return;
        }
        if (recordIt) record('in', answer);
        if ('error' in answer && isObject(answer.error)) resolve({ error: answer.error as never });
        else resolve({ result: answer.result ?? null });
      };
      const timer = scheduler.setTimeout(() => settle(undefined), eof ? 0 : answerTimeoutMs);
      relays.set(idKey(id), settle);
      client.send(message);
      if (recordIt) record('out', message);
    });
  }

  const engine = new ReplayEngine(
    cassette,
    withFallbacks(engineSide, cassette, (fallback) => emit({ kind: 'fallback', fallback })),
    engineOptions,
  );
  engine.onEvent((event) => {
    if (event.kind === 'version')
      lines.push({ t: timestamp(), type: 'event', name: 'version_negotiated', ...event.note });
    emit(event);
  });
  engine.start();

  let stop!: () => void;
  const stopped = new Promise<'stopped'>((resolve) => {
    stop = () => resolve('stopped');
  });
  const forwardsIdle = () =>
    inflight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
  const run = async (): Promise<UpdateOutcome> => {
    const ended = await Promise.race([client.ended.then(() => 'eof' as const), stopped]);
    if (ended === 'eof') {
      eof = true;
      // Nobody is left to answer questions: relayed and replayed ones end now.
      for (const relay of [...relays.values()]) relay(undefined);
      if (engineAsks.size > 0) engine.close();
      await Promise.race([Promise.all([engine.idle(), forwardsIdle()]), stopped]);
    }
    engine.close();
    client.close();
    const liveExit = live ? await liveServer?.close() : undefined;
    await Promise.race([client.flush(), delay(drainMs ?? UPDATE_DEFAULTS.drainMs, scheduler)]);
    const replay: ServeOutcome = {
      report: engine.report(),
      ended,
      requests: methods.length,
      probe: methods.length > 0 && methods.every((method) => method === 'server/discover'),
    };
    const kept = lines.filter((line) => !(line.type !== 'event' && open.has(line)));
    // An event alone is no reason to rewrite the cassette.
    const added = kept.some((line) => line.type !== 'event') ? kept : [];
    return { replay, forwarded, failed, lines: added, liveExit };
  };
  return { done: run(), stop: () => stop() };
}
