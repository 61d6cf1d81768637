import { delay, realScheduler } from '../../base/scheduler.js';
import type { FaultOptions } from '../../faults/options.js';
import { armTimedFaults } from '../../faults/timed.js';
import { classifyMessage, idKey } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { Cassette } from '../cassette/types.js';
import type { ReplayChannel } from '../engine/channel.js';
import { ReplayEngine, type ReplayEvent, type ReplayReport } from '../engine/engine.js';
import { type Fallback, withFallbacks } from '../engine/fallback.js';
import { replayFaultPlan, withFaults } from '../engine/faults.js';
import type { ReplayOptions } from '../options.js';
import {
  type ByteReader,
  type ByteWriter,
  type SkippedLine,
  type StdioChannelOptions,
  stdioChannel,
} from './stdio-channel.js';

/**
 * A cassette served as a stdio MCP server: the session runs until the client closes our input (EOF) or stop() is
 * called (a signal). At EOF whatever is still playing finishes — unless it waits for an answer from the client,
 * which can no longer come.
 */

export type ServeEvent =
  | ReplayEvent
  /** A line of input that was not a JSON message. */
  | { kind: 'skipped'; line: SkippedLine }
  /** A `ping` or `server/discover` the cassette did not record, answered all the same. */
  | { kind: 'fallback'; fallback: Fallback };

export interface ServeStdioOptions extends ReplayOptions, FaultOptions {
  input: ByteReader;
  output: ByteWriter;
  channel?: Omit<StdioChannelOptions, 'onSkipped' | 'onError'>;
  onEvent?: (event: ServeEvent) => void;
  /** How long output may take to drain at the end, once nothing more will be sent. */
  drainMs?: number;
}

export interface ServeOutcome {
  report: ReplayReport;
  /** `eof`: the client closed our input; `stopped`: stop() was called; `disconnected`: an injected disconnect. */
  ended: 'eof' | 'stopped' | 'disconnected';
  /** Client requests received, `server/discover` included. */
  requests: number;
  /** The client asked `server/discover` and nothing else: a 2026-era client's probe process. */
  probe: boolean;
}

export interface StdioReplayServer {
  readonly done: Promise<ServeOutcome>;
  /** Ends the session now: playback stops, queued output gets `drainMs` to go out. */
  stop(): void;
}

export const SERVE_DEFAULTS = { drainMs: 5000 } as const;

/**
 * Serves `cassette` over a readable / writable pair (usually stdin and stdout).
 *
 * @example
 * const server = serveStdio(cassette, { input: process.stdin, output: openStdout().stream });
 * process.once('SIGTERM', () => server.stop());
 * const { report } = await server.done; console.error(report.summary);
 */
export function serveStdio(cassette: Cassette, options: ServeStdioOptions): StdioReplayServer {
  const {
    input,
    output,
    channel: channelOptions,
    onEvent,
    drainMs,
    faults,
    seed,
    ...engineOptions
  } = options;
  const scheduler = engineOptions.scheduler ?? realScheduler;
  const plan = replayFaultPlan(cassette, { faults, seed }, scheduler);
  const emit = (event: ServeEvent) => onEvent?.(event);
  const channel = stdioChannel(input, output, {
    ...channelOptions,
    onSkipped: (line) => emit({ kind: 'skipped', line }),
    onError: (error) => emit({ kind: 'error', error }),
    scheduler,
  });
  let disconnect!: () => void;
  const disconnected = new Promise<'disconnected'>((resolve) => {
    disconnect = () => resolve('disconnected');
  });

  const methods: string[] = [];
  /** Server→client requests sent and not yet answered (live id keys). */
  const asks = new Set<string>();
  let eof = false;

  const observed: ReplayChannel = {
    send(message: Json) {
      const item = classifyMessage(message);
      if (item.kind === 'request') {
        asks.add(idKey(item.id));
        // The client closed its side: an answer can never come, so stop instead of waiting out the timeout.
        if (eof) engine.close();
      }
      channel.send(message);
    },
    onMessage(handler) {
      channel.onMessage((message) => {
        const item = classifyMessage(message);
        const items = item.kind === 'batch' ? item.items : [item];
        for (const one of items) {
          if (one.kind === 'request') methods.push(one.method);
          else if (one.kind === 'response' && one.id !== null) asks.delete(idKey(one.id));
        }
        handler(message);
      });
    },
  };
  // Faults sit next to the wire, so fallback answers (ping …) can get them too.
  const faulted = plan
    ? withFaults(
        {
          send: observed.send,
          onMessage: observed.onMessage,
          sendText: channel.sendText,
          sendSlowly: channel.sendSlowly,
          disconnect,
        },
        plan,
        { scheduler, onFault: (fault) => engine.injected(fault) },
      )
    : observed;
  const engine = new ReplayEngine(
    cassette,
    withFallbacks(faulted, cassette, (fallback) => emit({ kind: 'fallback', fallback })),
    engineOptions,
  );
  engine.onEvent(emit);
  engine.start();
  const disarm = plan
    ? armTimedFaults(
        plan,
        (fault) => {
          engine.injected(fault);
          disconnect();
        },
        scheduler,
      )
    : () => {};

  let stop!: () => void;
  const stopped = new Promise<'stopped'>((resolve) => {
    stop = () => resolve('stopped');
  });
  const run = async (): Promise<ServeOutcome> => {
    const ended = await Promise.race([channel.ended.then(() => 'eof' as const), stopped, disconnected]);
    disarm();
    if (ended === 'eof') {
      eof = true;
      if (asks.size > 0) engine.close();
      await Promise.race([engine.idle(), stopped]);
    }
    engine.close();
    channel.close();
    await Promise.race([channel.flush(), delay(drainMs ?? SERVE_DEFAULTS.drainMs, scheduler)]);
    return {
      report: engine.report(),
      ended,
      requests: methods.length,
      probe: methods.length > 0 && methods.every((method) => method === 'server/discover'),
    };
  };
  return { done: run(), stop: () => stop() };
}
