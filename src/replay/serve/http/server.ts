import { TapedeckError } from '../../../base/errors.js';
import { duplicateHost } from '../../../base/local-names.js';
import type { Cassette } from '../../cassette/types.js';
import type { ReplayReport } from '../../engine/engine.js';
import { FrontDoor } from './door.js';
import { isModernOnly } from './era.js';
import type { HttpServeEvent } from './events.js';
import { rejectForeign } from './guard.js';
import type { HttpRequestLike, HttpResponseLike } from './http-types.js';
import { type Origin, ReplayHub } from './hub.js';
import { handleLegacySse } from './legacy-sse.js';
import { HTTP_REPLAY_DEFAULTS, type HttpReplayOptions, listenUrl } from './options.js';
import { answerRecorded } from './recorded.js';
import { sendError } from './respond.js';
import { handleStreamable } from './streamable.js';

/**
 * A cassette served as an HTTP MCP server (Streamable HTTP, or legacy SSE). It runs until stop() — the CLI calls
 * it on SIGINT / SIGTERM — then ends every session and reports what was used, as the stdio server does. node:http
 * and node:async_hooks are loaded here, on first use, so importing mcp-tapedeck/replay loads no node: module.
 */

export interface HttpServeOutcome {
  report: ReplayReport;
  /** Sessions opened (2026-era requests open none). */
  sessions: number;
  /** Client requests answered from the cassette or by a fallback, misses included. */
  requests: number;
}

export interface HttpReplayServer {
  /** Where clients connect, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly done: Promise<HttpServeOutcome>;
  /** Ends every session and stops listening; `done` resolves once the connections are closed. */
  stop(): void;
}

/**
 * Serves `cassette` over HTTP until stop(). Fails with TapedeckError('io') when the address cannot be bound.
 *
 * @example
 * const server = await serveHttp(cassette, { port: 0 });
 * const client = new Client(info); await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
 * server.stop(); console.log((await server.done).report.summary);
 */
export async function serveHttp(
  cassette: Cassette,
  options: HttpReplayOptions = {},
): Promise<HttpReplayServer> {
  const { host, port, transport, path, allowHosts, onEvent, ...engineOptions } = options;
  const [{ createServer }, { AsyncLocalStorage }] = await Promise.all([
    import('node:http'),
    import('node:async_hooks'),
  ]);
  let requests = 0;
  const emit = (event: HttpServeEvent) => {
    if (event.kind === 'hit' || event.kind === 'miss' || event.kind === 'fallback') requests++;
    onEvent?.(event);
  };
  // A disconnect fault that names no request cuts every connection (by then `server` is listening).
  const hub = new ReplayHub(cassette, engineOptions, new AsyncLocalStorage<Origin>(), emit, () =>
    server.closeAllConnections(),
  );
  const allowed = allowHosts ?? [];
  const door = new FrontDoor(
    hub,
    {
      allowHosts: allowed,
      maxBodyBytes: HTTP_REPLAY_DEFAULTS.maxBodyBytes,
      maxBuffered: HTTP_REPLAY_DEFAULTS.maxBuffered,
      maxHistory: HTTP_REPLAY_DEFAULTS.maxHistory,
      progressGapMs: HTTP_REPLAY_DEFAULTS.progressGapMs,
      modernOnly: isModernOnly(cassette),
      messagePath: HTTP_REPLAY_DEFAULTS.messagePath,
    },
    emit,
  );
  const flavour = transport ?? HTTP_REPLAY_DEFAULTS.transport;
  const handle = flavour === 'sse' ? handleLegacySse : handleStreamable;
  const serve = (req: HttpRequestLike, res: HttpResponseLike) => {
    const duplicate = duplicateHost(req.rawHeaders);
    if (duplicate !== undefined) return door.reject(req, res, 400, -32600, `Bad Request: ${duplicate}`);
    const refusal = rejectForeign(req.headers, allowed);
    if (refusal !== undefined) return door.reject(req, res, 403, -32000, `Forbidden: ${refusal}`);
    if (answerRecorded(cassette, req, res, emit)) return;
    handle(door, req, res).catch((error: unknown) => {
      emit({ kind: 'error', error });
      sendError(res, 500, -32603, 'Internal error');
    });
  };
  const server = createServer(serve);
  const bindHost = host ?? HTTP_REPLAY_DEFAULTS.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new TapedeckError('io', `cannot listen on ${bindHost}:${port ?? 0}: ${error.code ?? error.message}`, {
          cause: error,
        }),
      ),
    );
    server.listen(port ?? HTTP_REPLAY_DEFAULTS.port, bindHost, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : (port ?? 0);
  const defaultPath = flavour === 'sse' ? HTTP_REPLAY_DEFAULTS.ssePath : HTTP_REPLAY_DEFAULTS.path;

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const done = stopped.then(async () => {
    door.closeAll();
    hub.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    return { report: hub.engine.report(), sessions: door.sessionCount, requests };
  });
  return {
    url: listenUrl(bindHost, boundPort, path ?? defaultPath),
    port: boundPort,
    done,
    stop: () => stop(),
  };
}
