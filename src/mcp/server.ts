import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { defaultDataDir } from '../base/paths.js';
import { VERSION } from '../base/version.js';
import type { Redactor } from '../redact/types.js';
import { TrajectoryCache } from './loaded.js';
import { TrajectoryRecorder } from './recorder.js';
import { TrajectoryStore } from './store.js';
import { registerTrajectoryTools, type TrajectoryService } from './tools.js';

/**
 * `tapedeck mcp`: an MCP server with recording and lookup tools for agents (shack-session-replay compatible), on
 * the official SDK's McpServer. Trajectories are tapedeck traces, so every other tapedeck command reads them.
 */

export interface TrajectoryServiceOptions {
  /** Where trajectories live (default `$TAPEDECK_HOME/trajectories`, i.e. `~/.tapedeck/trajectories`). */
  dataDir?: string;
  /** Redacts every line before it is written (the CLI passes the `record` redaction rules). */
  redact?: Redactor;
  /** Extra meta fields for new trajectories (the redaction summary). */
  meta?: Record<string, unknown>;
  log?: (message: string) => void;
}

/** The store, recorder and cache one server process shares between its sessions. */
export function createTrajectoryService(options: TrajectoryServiceOptions = {}): TrajectoryService {
  const log = options.log ?? ((message: string) => process.stderr.write(`tapedeck mcp: ${message}\n`));
  const store = new TrajectoryStore(options.dataDir ?? defaultDataDir());
  const recorder = new TrajectoryRecorder(store, {
    log,
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.meta ? { meta: options.meta } : {}),
  });
  return { store, recorder, cache: new TrajectoryCache(), log };
}

export const MCP_INSTRUCTIONS =
  'Record what your tools are asked and answer, and look answers up again later for deterministic runs: ' +
  'start_recording {name}, then record_event {request, response} per call, then stop_recording; later ' +
  'replay_lookup {trajectory, request}. list_trajectories, get_trajectory, search_trajectories, ' +
  'diff_trajectories and trajectory_stats read what was recorded.';

/**
 * A new McpServer with every tool registered on `service` (one per connection; the service is shared).
 *
 * @example await createMcpServer(createTrajectoryService({ dataDir })).connect(transport);
 */
export function createMcpServer(service: TrajectoryService): McpServer {
  const server = new McpServer(
    { name: 'tapedeck', version: VERSION },
    { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
  );
  registerTrajectoryTools(server, service);
  return server;
}

export interface StdioServeOptions {
  stdin?: NodeJS.ReadableStream & { on(event: 'end', listener: () => void): unknown };
  stdout?: NodeJS.WritableStream;
}

/**
 * Serves the tools over stdio until stdin ends (every request read by then is answered first) or `stop()` is
 * called. Only the protocol goes to stdout.
 *
 * @example await serveMcpStdio(createTrajectoryService()).done;
 */
export function serveMcpStdio(
  service: TrajectoryService,
  options: StdioServeOptions = {},
): { done: Promise<void>; stop: () => void } {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(
    stdin as NodeJS.ReadStream & typeof process.stdin,
    (options.stdout ?? process.stdout) as NodeJS.WriteStream & typeof process.stdout,
  );
  const server = createMcpServer(service);
  const pending = new Set<string | number>();
  let ended = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settle = () => {
    if (!ended || pending.size > 0) return;
    void server.close().finally(() => finish());
  };
  const connected = server.connect(transport).then(() => {
    // Requests still being handled when stdin ends are answered before the server closes.
    const onmessage = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) pending.add(message.id);
      onmessage?.(message);
    };
    const send = transport.send.bind(transport);
    transport.send = async (message: JSONRPCMessage) => {
      await send(message);
      if (!('method' in message) && 'id' in message && message.id !== null && message.id !== undefined) {
        pending.delete(message.id);
        settle();
      }
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      finish();
    };
  });
  const stop = () => {
    ended = true;
    settle();
  };
  stdin.on('end', () => void connected.then(stop));
  return { done: done.then(() => service.recorder.close()), stop };
}
