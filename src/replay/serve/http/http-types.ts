/**
 * The few things the HTTP front door needs of Node's request, response and async-context objects, as structural
 * types: the handlers stay free of `node:` imports (only server.ts loads node:http, lazily), and tests can drive
 * them with plain objects.
 */

/** Header values as Node gives them: lower-case names, repeated headers as arrays. */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** An incoming request (node:http's IncomingMessage satisfies it). */
export interface HttpRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: HeaderBag;
  /** Every header as sent, name and value alternating (Node's `rawHeaders`): `headers` keeps one `Host` only. */
  readonly rawHeaders?: readonly string[];
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  resume(): unknown;
}

/** A response being written (node:http's ServerResponse satisfies it). */
export interface HttpResponseLike {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers?: Record<string, string>): unknown;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string): unknown;
  /** Cuts the connection (an injected disconnect). */
  destroy?(): unknown;
  /** Fires when the response is done or the client went away (Node 20: use this, not the request's `close`). */
  on(event: 'close', listener: () => void): unknown;
  flushHeaders?(): void;
}

/**
 * Async context that follows a call through its awaits and timers (node:async_hooks' AsyncLocalStorage satisfies
 * it). It tells the front door which live session and which HTTP exchange a message the engine sends belongs to.
 */
export interface ContextStore<T> {
  run<R>(store: T, callback: () => R): R;
  getStore(): T | undefined;
}

/** One value of a header (the first when repeated), or undefined. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
