import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { FaultGate } from '../../faults/gate.js';
import type { FaultRecord } from '../../faults/records.js';
import type { Json } from '../../trace/types.js';
import type { AllowedHosts } from './guard.js';
import type { RecordQueue } from './later.js';
import type { HttpRecorder } from './recorder.js';

/** What every exchange of one proxy shares. */
export interface ForwardContext {
  upstream: URL;
  /** The upstream as shown in traces and error messages (credentials hidden). */
  upstreamShown: string;
  agent: Agent;
  recorder: HttpRecorder;
  /** Where recording work waits while the bytes it copies are passed on; the recorder's clock is its `now`. */
  later: RecordQueue;
  allow: AllowedHosts;
  /** Paths whose bodies are MCP traffic: the upstream's own, plus legacy POST endpoints learned on the way. */
  mcpPaths: Set<string>;
  /** Exchanges in flight, so shutdown can wait for them or cut them short. */
  active: Set<ActiveExchange>;
  /** How many bytes of a GET event stream may be held back waiting for its first (`endpoint`) event. */
  holdBytes: number;
  /** Headers sent with every upstream request in place of the client's of the same names (name, value, …). */
  addHeaders: readonly string[];
  /** Their names, lower-case: the client's headers of these names are not forwarded. */
  replacedHeaders: readonly string[];
  /** Tells the user, once per kind, of something about the upstream that needs them (see HttpProxyOptions). */
  notice(notice: ProxyNotice): void;
  /** The OAuth side: metadata naming the proxy, `resource` mapped back (undefined: OAuth passes through as is). */
  oauth?: OAuthSide | undefined;
  /** Faults to inject into the answers (undefined: none, and the exchanges forward as they always do). */
  faults?: FaultGate | undefined;
  /** Told of every fault as it is injected. */
  onFault?: ((record: FaultRecord) => void) | undefined;
}

/**
 * Something about the upstream the user should know and no client will say. `oauth`: the upstream asked for OAuth
 * (a Bearer challenge, or a client fetched its protected-resource metadata through the proxy). `oauth-browser`: a
 * client's user is sent to the authorization server's own page (`path` names it, without its query).
 * `oauth-bound`: the upstream binds tokens to the client (`path` names how: DPoP, mutual TLS), which no proxy at
 * another URL can take part in.
 */
export interface ProxyNotice {
  kind: 'oauth' | 'oauth-browser' | 'oauth-bound';
  status: number;
  path: string;
}

/** The OAuth side of a proxy, as the exchanges use it (src/proxy/oauth/gateway.ts is the one implementation). */
export interface OAuthSide {
  /** True when a request path is OAuth traffic the side answers itself. */
  claims(path: string): boolean;
  /** Answers such a request. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** How many such requests are being answered. */
  readonly pending: number;
  /** Waits for them until `enough` settles, then cuts the rest short; resolves once all are recorded. */
  settle(enough: Promise<unknown>): Promise<void>;
  /**
   * Reads an MCP answer: the headers to forward (a challenge's metadata URL at the proxy) and the `oauth` event to
   * record, if any.
   */
  mcpAnswer(facts: {
    origin: string;
    status: number;
    authorization: string | undefined;
    rawHeaders: readonly string[];
  }): { rawHeaders: readonly string[]; event?: Record<string, unknown> };
}

/** An exchange in flight, as shutdown sees it. */
export interface ActiveExchange {
  /** Resolves once the exchange is over, however it ended. */
  readonly done: Promise<void>;
  /** Ends it now: the upstream request is dropped, the client's response ended. */
  abort(reason: string): void;
}

/** The JSON-RPC error code of answers the proxy gives itself (the upstream never saw or answered the request). */
export const PROXY_ERROR_CODE = -32000;

/**
 * A JSON-RPC error body the proxy answers with itself.
 *
 * @example proxyErrorBody(1, 'upstream http://h/mcp unreachable: ECONNREFUSED') // '{"jsonrpc":"2.0","id":1,"error":{…}}'
 */
export function proxyErrorBody(id: Json, message: string, data?: Record<string, Json>): string {
  const error =
    data === undefined ? { code: PROXY_ERROR_CODE, message } : { code: PROXY_ERROR_CODE, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/** Answers a request with a JSON body of the proxy's own; returns the headers sent, for the trace. */
export function answer(res: ServerResponse, status: number, body: string): Record<string, string> {
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  res.writeHead(status, headers);
  res.end(body);
  return headers;
}
