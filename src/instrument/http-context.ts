import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { RawHeaders } from './values.js';

/** What the middleware learned about the HTTP request a message arrived on. */
export interface HttpRequestFacts {
  method?: string;
  url?: string;
  headers: RawHeaders;
  peerAddress?: string;
}

const store = new AsyncLocalStorage<HttpRequestFacts>();
/** No middleware made yet: nothing to look up (the common stdio and in-memory case costs one branch). */
let inUse = false;

/** The facts of the HTTP request being handled, if `httpMiddleware` runs around it. */
export function currentHttpFacts(): HttpRequestFacts | undefined {
  return inUse ? store.getStore() : undefined;
}

export interface HttpMiddlewareOptions {
  /** Take the client address from the first `X-Forwarded-For` entry (only behind a proxy you run). */
  trustProxy?: boolean;
}

/** Express / connect / node:http shape: `(req, res, next)`. */
export type NodeNext = (err?: unknown) => void;

/** Hono shape: `(c, next)`; `c.req.raw` is a web Request, `c.env.incoming` node's request under @hono/node-server. */
export interface HonoContextLike {
  req: { raw: Request; url: string; method: string };
  env?: unknown;
}

/**
 * One function for both shapes: `(req, res, next)` for Express, connect and node:http, `(c, next)` for Hono. It
 * returns what `next` returns, as a promise (Hono awaits it; Express and node:http ignore it).
 */
export type HttpMiddleware = (
  reqOrContext: IncomingMessage | HonoContextLike,
  resOrNext: unknown,
  next?: NodeNext,
) => Promise<void>;

/**
 * Middleware that hands an HTTP request's headers, URL and peer address to the events of the MCP messages it
 * carries (through AsyncLocalStorage). Works as Express / connect middleware, around a node:http handler, and as
 * Hono middleware. Behind a reverse proxy, `trustProxy: true` takes the address from `X-Forwarded-For`.
 *
 * @example
 * app.use(httpMiddleware());                                                     // Express
 * http.createServer((req, res) => mw(req, res, () => handle(req, res)));           // node:http, mw = httpMiddleware()
 * app.use('*', httpMiddleware({ trustProxy: true }));                             // Hono
 */
export function httpMiddleware(options: HttpMiddlewareOptions = {}): HttpMiddleware {
  const trustProxy = options.trustProxy === true;
  inUse = true;
  return async (reqOrContext, resOrNext, next) => {
    if (typeof next === 'function') {
      store.run(nodeFacts(reqOrContext as IncomingMessage, trustProxy), next);
      return;
    }
    const c = reqOrContext as HonoContextLike;
    await store.run(honoFacts(c, trustProxy), resOrNext as () => Promise<void>);
  };
}

function nodeFacts(req: IncomingMessage, trustProxy: boolean): HttpRequestFacts {
  const facts: HttpRequestFacts = { headers: req.headers };
  if (req.method !== undefined) facts.method = req.method;
  const host = req.headers.host;
  const path = (req as { originalUrl?: string }).originalUrl ?? req.url;
  if (path !== undefined) {
    const scheme = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http';
    facts.url = host !== undefined ? `${scheme}://${host}${path}` : path;
  }
  const peer = peerOf(req.headers['x-forwarded-for'], req.socket?.remoteAddress, trustProxy);
  if (peer !== undefined) facts.peerAddress = peer;
  return facts;
}

function honoFacts(c: HonoContextLike, trustProxy: boolean): HttpRequestFacts {
  const headers: RawHeaders = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const facts: HttpRequestFacts = { headers, method: c.req.method, url: c.req.url };
  const socketAddress = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket
    ?.remoteAddress;
  const peer = peerOf(headers['x-forwarded-for'], socketAddress, trustProxy);
  if (peer !== undefined) facts.peerAddress = peer;
  return facts;
}

/** The client's address: the socket's, or — only when the proxy is trusted — the first X-Forwarded-For entry. */
function peerOf(
  forwarded: string | string[] | undefined,
  socket: string | undefined,
  trustProxy: boolean,
): string | undefined {
  if (trustProxy && forwarded !== undefined) {
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first !== undefined && first !== '') return first;
  }
  return socket;
}
