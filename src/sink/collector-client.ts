import { TapedeckError } from '../base/errors.js';

/**
 * The client side of the collector API (see src/collector/routes.ts): requests with the write token, error
 * bodies turned into one-line TapedeckErrors, live traces. Used by the collector sink, `tapedeck push` and
 * `record --live`.
 */

export interface CollectorClientOptions {
  /** The collector's base URL, e.g. http://127.0.0.1:7420. */
  url: string;
  /** The write token (`<tapedeck home>/token` of the collector's machine). */
  token: string;
  /** Injected for tests; the global fetch by default. */
  fetch?: typeof fetch;
}

/** The base URL without a trailing slash; a usage-style error for anything but http(s). */
export function collectorBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TapedeckError('usage', `the collector URL must look like http://127.0.0.1:7420; got '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TapedeckError('usage', `the collector URL must be http:// or https://; got '${url}'`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/**
 * One JSON request to the collector; resolves to the parsed answer of a 2xx, throws a TapedeckError otherwise
 * (unreachable, refused token, or the collector's own error message).
 *
 * @example const trace = await collectorRequest({ url, token }, 'POST', '/api/v1/traces/live', { label: 'x' });
 */
export async function collectorRequest<T = Record<string, unknown>>(
  client: CollectorClientOptions,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  init: { headers?: Record<string, string>; stream?: AsyncIterable<Uint8Array | string> } = {},
): Promise<T> {
  const base = collectorBase(client.url);
  const headers: Record<string, string> = { authorization: `Bearer ${client.token}`, ...init.headers };
  let payload: RequestInit['body'];
  if (init.stream !== undefined) {
    payload = init.stream as unknown as RequestInit['body'];
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await (client.fetch ?? fetch)(`${base}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      ...(init.stream === undefined ? {} : { duplex: 'half' }),
    } as RequestInit);
  } catch (err) {
    throw unreachable(base, err);
  }
  const text = await response.text();
  if (response.ok) return (text === '' ? {} : JSON.parse(text)) as T;
  throw new TapedeckError(
    'input',
    `the collector at ${base} answered ${response.status}: ${errorText(text)}`,
  );
}

/** What a collector error body says, or the body itself cut short. */
export function errorText(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: show the start of it.
  }
  return body.length > 200 ? `${body.slice(0, 200)}…` : body || '(no body)';
}

/** A live trace made on the collector. */
export interface LiveTrace {
  id: string;
  /** The viewer's page for it: `<base>/#trace=<id>`. */
  url: string;
}

/**
 * Creates a live trace to append lines to (`record --live`, the collector sink).
 *
 * @example const { id, url } = await createLiveTrace({ url: 'http://127.0.0.1:7420', token }, 'everything');
 */
export async function createLiveTrace(client: CollectorClientOptions, label?: string): Promise<LiveTrace> {
  const answer = await collectorRequest<{ id: string; url: string }>(
    client,
    'POST',
    '/api/v1/traces/live',
    label === undefined ? {} : { label },
  );
  return { id: answer.id, url: answer.url };
}

function unreachable(base: string, err: unknown): TapedeckError {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? (err as Error).message);
  return new TapedeckError(
    'io',
    `cannot reach the collector at ${base} (${why}); is it running? (tapedeck serve)`,
  );
}
