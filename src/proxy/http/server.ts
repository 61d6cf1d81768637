import { Agent, createServer, type Server } from 'node:http';
import { Agent as TlsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TapedeckError } from '../../base/errors.js';
import type { FaultOptions } from '../../faults/options.js';
import type { FaultRecord } from '../../faults/records.js';
import type { TraceSink } from '../../sink/sink.js';
import type { MetaLine } from '../../trace/types.js';
import { openFaultGate } from '../fault-gate.js';
import { OAuthGateway } from '../oauth/gateway.js';
import type { ActiveExchange, ForwardContext, ProxyNotice } from './context.js';
import { forwardExchange } from './forward.js';
import { allowedHosts } from './guard.js';
import { checkAddedHeaders } from './headers.js';
import { RecordQueue } from './later.js';
import { HTTP_PROXY_LISTEN } from './listen-defaults.js';
import { HTTP_RECORDER_DEFAULTS, HttpRecorder } from './recorder.js';
import { shownUrl } from './url.js';

/**
 * `faults` are injected into the upstream's answers on their way to the client (see src/faults): the trace keeps
 * what the upstream sent, a `fault` event says what the client got instead.
 */
export interface HttpProxyOptions extends FaultOptions {
  /** Told of every fault as it is injected (besides its event in the trace). */
  onFault?: ((record: FaultRecord) => void) | undefined;
  /** The MCP server's URL (`http:` or `https:`); its path is the path clients use on the proxy. */
  upstream: URL;
  /** Started already (its meta line written), unless `meta` is given; the proxy appends to it and never closes it. */
  sink: TraceSink;
  /**
   * The trace's meta line, for a `sink` not started yet: the proxy starts it once it listens, so a listener that
   * cannot start (a port in use) leaves no trace behind.
   */
  meta?: MetaLine;
  /** Address to listen on (default 127.0.0.1) and port (default 7430; 0 picks a free one). */
  host?: string;
  port?: number;
  /** Host names besides local ones that clients may use (Host and Origin headers); `*` allows any. */
  allowHosts?: readonly string[];
  /** Trace copies of larger bodies and events become `truncated` events. */
  maxMessageBytes?: number;
  /** How long `close()` lets open exchanges finish before it cuts them short. */
  shutdownGraceMs?: number;
  /**
   * Headers to send the upstream with every request, in place of any the client sent under those names: a token
   * the proxy adds, so clients need none. They are not recorded (the trace keeps what the client sent).
   */
  headers?: Readonly<Record<string, string>>;
  /** Told once per kind of what the user should know and no client will say (see ProxyNotice). */
  onNotice?: (notice: ProxyNotice) => void;
  /**
   * `map` (default): the proxy stands in for the upstream in OAuth — its protected-resource metadata names the
   * proxy, `resource` is mapped back to the upstream's URL on the way to the authorization server, and the flow is
   * recorded with its secrets as stable hashes. `passthrough`: OAuth requests are forwarded as they are.
   */
  oauth?: 'map' | 'passthrough';
}

export const HTTP_PROXY_DEFAULTS = {
  ...HTTP_PROXY_LISTEN,
  maxMessageBytes: HTTP_RECORDER_DEFAULTS.maxMessageBytes,
  shutdownGraceMs: 1000,
  /** Bytes of a GET event stream held back at most while waiting for a legacy `endpoint` event. */
  holdBytes: 64 * 1024,
} as const;

/** A running recording proxy. */
export interface HttpProxy {
  /** The URL clients use in place of the upstream's: this listener's origin and the upstream's path. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /**
   * The recorder the exchanges go through (its sink is the trace).
   * @internal
   */
  readonly recorder: HttpRecorder;
  /**
   * Stops taking connections, lets open exchanges finish for up to `graceMs` (event streams rarely do), cuts
   * the rest short, and resolves when the listener is closed. The sink stays open for the caller's `end` line.
   * Called again with 0 while closing, it stops waiting.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts a recording reverse proxy in front of an MCP server reached over HTTP (Streamable HTTP, legacy HTTP+SSE,
 * and whatever else the server serves — OAuth metadata, token endpoints — passed through untouched). Listens on
 * 127.0.0.1 unless told otherwise, and answers only requests whose Host and Origin are local or allowed.
 *
 * @example
 * const sink = new FileSink({ path: 'session.jsonl' });
 * sink.start(newMeta({ label: 'everything', transport: 'http', url: 'http://127.0.0.1:3001/mcp' }));
 * const proxy = await startHttpProxy({ upstream: new URL('http://127.0.0.1:3001/mcp'), sink, port: 0 });
 * // point the client at proxy.url …
 * await proxy.close(); await sink.close({ reason: 'producer_shutdown' });
 */
export async function startHttpProxy(options: HttpProxyOptions): Promise<HttpProxy> {
  const upstream = options.upstream;
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new TapedeckError(
      'usage',
      `the upstream must be an http: or https: URL; got '${shownUrl(upstream.href)}'`,
    );
  }
  checkAddedHeaders(options.headers ?? {});
  const host = options.host ?? HTTP_PROXY_DEFAULTS.host;
  const later = new RecordQueue();
  const recorder = new HttpRecorder({
    sink: options.sink,
    now: later.now,
    maxMessageBytes: options.maxMessageBytes ?? HTTP_PROXY_DEFAULTS.maxMessageBytes,
  });
  // Keep-alive to the upstream: a request costs no new connection (or TLS handshake) after the first.
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const };
  const agent = upstream.protocol === 'https:' ? new TlsAgent(agentOptions) : new Agent(agentOptions);
  const noticed = new Set<string>();
  // A disconnect that names no request cuts every client connection (by then `server` listens).
  const faults = openFaultGate(options, (record) => {
    later.push(() => recorder.event('fault', { ...record }));
    options.onFault?.(record);
    server.closeAllConnections();
  });
  // Faults read the answers: the upstream is asked for them unencoded.
  const identity = faults ? ['Accept-Encoding', 'identity'] : [];
  const ctx: ForwardContext = {
    upstream,
    upstreamShown: shownUrl(upstream.href),
    agent,
    recorder,
    later,
    allow: allowedHosts(options.allowHosts ?? []),
    mcpPaths: new Set([upstream.pathname]),
    active: new Set<ActiveExchange>(),
    holdBytes: HTTP_PROXY_DEFAULTS.holdBytes,
    addHeaders: [...Object.entries(options.headers ?? {}).flat(), ...identity],
    replacedHeaders: [
      ...Object.keys(options.headers ?? {}).map((name) => name.toLowerCase()),
      ...(faults ? ['accept-encoding'] : []),
    ],
    faults,
    onFault: options.onFault,
    notice: (notice) => {
      if (noticed.has(notice.kind)) return;
      noticed.add(notice.kind);
      options.onNotice?.(notice);
    },
  };
  if (options.oauth !== 'passthrough') {
    ctx.oauth = new OAuthGateway({
      upstream,
      recorder,
      later,
      notice: (notice) => ctx.notice(notice),
      ...(options.headers ? { addHeaders: options.headers } : {}),
    });
  }
  const server = createServer((req, res) => forwardExchange(req, res, ctx));
  // Event streams stay open for as long as the session lives; Node's per-request timers must not cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const address = await listen(server, host, options.port ?? HTTP_PROXY_DEFAULTS.port);
  // A wildcard address is no place to connect to; the URL names this machine's loopback instead.
  const connectTo =
    address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const shownHost = connectTo.includes(':') ? `[${connectTo}]` : connectTo;
  const url = `http://${shownHost}:${address.port}${upstream.pathname}`;
  if (options.meta !== undefined) options.sink.start(options.meta);
  const added = Object.keys(options.headers ?? {});
  // The names of the headers the proxy adds, never their values.
  recorder.event('listen', {
    url,
    upstream: ctx.upstreamShown,
    ...(added.length > 0 ? { adds: added } : {}),
  });

  let closing: Promise<void> | undefined;
  let hurry: () => void = () => {};
  const close = (graceMs: number = options.shutdownGraceMs ?? HTTP_PROXY_DEFAULTS.shutdownGraceMs) => {
    // Asked again while closing, with no grace: stop waiting for open exchanges.
    if (closing !== undefined) {
      if (graceMs === 0) hurry();
      return closing;
    }
    const hurried = new Promise<void>((resolve) => {
      hurry = resolve;
    });
    faults?.disarm();
    closing = shutdown(server, ctx, graceMs, hurried).finally(() => agent.destroy());
    return closing;
  };
  return { url, host: address.address, port: address.port, recorder, close };
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      // An address or name this machine does not have is a wrong --listen; a port in use or refused is the
      // machine's state at the moment (the same command may work later).
      const wrong = err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND';
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is in use; pick another with --listen'
          : err.code === 'EADDRNOTAVAIL'
            ? 'no such address on this machine; expected one of its own addresses, such as 127.0.0.1'
            : err.code === 'ENOTFOUND'
              ? 'no such host name; expected an address of this machine, such as 127.0.0.1'
              : err.message;
      const message = `cannot listen on ${host}:${port}: ${why} (${err.code ?? 'error'})`;
      reject(new TapedeckError(wrong ? 'usage' : 'io', message));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

async function shutdown(
  server: Server,
  ctx: ForwardContext,
  graceMs: number,
  hurried: Promise<void>,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const open = [...ctx.active];
  const oauthOpen = ctx.oauth?.pending ?? 0;
  ctx.later.push(() => ctx.recorder.event('shutdown', { open: open.length + oauthOpen, graceMs }));
  if (open.length > 0 || oauthOpen > 0) {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    const enough = Promise.race([grace, hurried]);
    // OAuth exchanges (a token request still out to its server) are waited for as MCP exchanges are.
    await Promise.all([
      Promise.race([Promise.all(open.map((x) => x.done)), enough]),
      ctx.oauth?.settle(enough),
    ]);
    clearTimeout(timer);
    for (const exchange of [...ctx.active]) exchange.abort('shutting down');
  }
  server.closeIdleConnections();
  // Connections whose responses were just ended get a moment to flush; anything left after that is cut.
  const cut = setTimeout(() => server.closeAllConnections(), 200);
  await closed;
  clearTimeout(cut);
  // The trace's `end` line follows: nothing may still wait to be recorded.
  ctx.later.flush();
}
