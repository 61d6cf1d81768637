import type { Json } from '../trace/types.js';
import { UPSTREAM_DEFAULTS, UpstreamError } from './types.js';

/**
 * The HTTP plumbing both clients share: a request whose head must arrive in time, errors that name the URL and
 * the cause, and message bodies read the way the MCP transports write them.
 */

export interface TimedRequest {
  fetch: typeof fetch;
  url: string;
  init: RequestInit;
  /** Aborts the request (and its body) from outside: closing the client. */
  signal: AbortSignal;
  headersMs: number;
}

/**
 * Sends a request and waits at most `headersMs` for the status and headers. The body is left to the caller (it
 * may be an endless SSE stream); `signal` still aborts it.
 *
 * @example const response = await timedFetch({ fetch, url, init: { method: 'GET' }, signal, headersMs: 30_000 });
 */
export async function timedFetch(request: TimedRequest): Promise<Response> {
  const { url, headersMs } = request;
  const own = new AbortController();
  const abort = () => own.abort(request.signal.reason);
  if (request.signal.aborted) abort();
  else request.signal.addEventListener('abort', abort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    own.abort();
  }, headersMs);
  try {
    return await request.fetch(url, { ...request.init, signal: own.signal });
  } catch (err) {
    if (timedOut) {
      throw new UpstreamError(
        'timeout',
        `the upstream ${url} did not answer within ${headersMs} ms`,
        undefined,
        {
          cause: err,
        },
      );
    }
    if (request.signal.aborted) throw new UpstreamError('closed', `the connection to ${url} was closed`);
    throw new UpstreamError('unreachable', `cannot reach the upstream ${url}: ${causeOf(err)}`, undefined, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** `ECONNREFUSED 127.0.0.1:9`, `getaddrinfo ENOTFOUND nowhere.invalid`, … — what undici hides in `cause`. */
export function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const inner = cause instanceof Error ? cause : err instanceof Error ? err : undefined;
  if (!inner) return String(err);
  const code = (inner as { code?: unknown }).code;
  const text = inner.message || String(code ?? inner.name);
  return typeof code === 'string' && !text.includes(code) ? `${code} ${text}` : text;
}

/** A message body: one JSON value per text (single-line for a stdio client), undefined when it is not JSON. */
export function parseBody(text: string): { raw: Json; text: string } | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let raw: Json;
  try {
    raw = JSON.parse(trimmed) as Json;
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  // A stdio client reads one message per line: a pretty-printed or multi-line body is re-encoded compactly.
  return { raw, text: /[\r\n]/.test(trimmed) ? JSON.stringify(raw) : trimmed };
}

/**
 * The error for an HTTP failure whose body is not JSON-RPC: the status and a short excerpt of the body.
 *
 * @example httpError('http://127.0.0.1:3001/mcp', 502, 'Bad Gateway', '<html>…') // 'the upstream … answered 502 Bad Gateway: <html>…'
 */
export function httpError(url: string, status: number, statusText: string, body: string): UpstreamError {
  const flat = body.replace(/\s+/g, ' ').trim();
  const max = UPSTREAM_DEFAULTS.excerptChars;
  const excerpt = flat.length > max ? `${flat.slice(0, max)}…` : flat;
  const head = `${status}${statusText ? ` ${statusText}` : ''}`;
  return new UpstreamError(
    'http',
    `the upstream ${url} answered ${head}${excerpt ? `: ${excerpt}` : ' with an empty body'}`,
    status,
  );
}

/** True for a body that is a JSON-RPC message or batch (so a 4xx carrying one is delivered, not raised). */
export function isJsonRpc(raw: Json): boolean {
  const items = Array.isArray(raw) ? raw : [raw];
  return (
    items.length > 0 &&
    items.every(
      (item) => typeof item === 'object' && item !== null && !Array.isArray(item) && 'jsonrpc' in item,
    )
  );
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
