import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { parseDuration } from '../base/units.js';
import { ApiError, tooLarge } from './api-error.js';

/** Request helpers shared by the routes: bodies within a limit, query values checked with clear 400s. */

export type Env = { Bindings: Partial<HttpBindings> };
export type Ctx = Context<Env>;

/**
 * The request body as it arrives, in chunks, failing with 413 once it passes `limit` (at once when the
 * Content-Length already says so). Under Node the socket is read directly; elsewhere (tests through
 * `app.request`) the web stream.
 */
export async function* bodyChunks(c: Ctx, limit: number): AsyncGenerator<Uint8Array> {
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const incoming = c.env?.incoming;
  const source: AsyncIterable<Uint8Array> | null =
    incoming ?? (c.req.raw.body as AsyncIterable<Uint8Array> | null);
  if (source === null) return;
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    yield chunk;
  }
}

/** A small JSON body (an empty body is `{}`); 400 when it is not a JSON object. */
export async function jsonBody(c: Ctx, limit: number): Promise<Record<string, unknown>> {
  const parts: Uint8Array[] = [];
  for await (const chunk of bodyChunks(c, limit)) parts.push(chunk);
  const text = Buffer.concat(parts).toString('utf8').trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'bad_request', `the body is not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ApiError(400, 'bad_request', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A whole number ≥ 0 from the query, or `fallback` when absent. */
export function querySeq(c: Ctx, name: string, fallback: number): number {
  const value = c.req.query(name);
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,15}$/.test(value)) throw badQuery(name, value, 'a whole number ≥ 0');
  return Number(value);
}

/** A whole number in 1..max from the query, or `fallback`. */
export function queryLimit(c: Ctx, fallback: number, max: number): number {
  const value = c.req.query('limit');
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw badQuery('limit', value, `a whole number from 1 to ${max}`);
  return Number(value);
}

/** `true`/`false` (or `1`/`0`) from the query. */
export function queryBool(c: Ctx, name: string): boolean | undefined {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw badQuery(name, value, 'true or false');
}

/** One of `allowed` from the query. */
export function queryChoice<T extends string>(c: Ctx, name: string, allowed: readonly T[]): T | undefined {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw badQuery(name, value, allowed.join(', '));
  return value as T;
}

/** A non-empty string from the query (at most 500 characters). */
export function queryText(c: Ctx, name: string): string | undefined {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (value.length > 500) throw badQuery(name, `${value.slice(0, 20)}…`, 'at most 500 characters');
  return value;
}

/** A time from the query: ISO-8601 or milliseconds since the epoch. */
export function queryTime(c: Ctx, name: string): number | undefined {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(ms)) throw badQuery(name, value, 'an ISO-8601 time or milliseconds since 1970');
  return ms;
}

/** A lifetime: seconds as a number, or a duration string such as "7d". */
export function lifetime(value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  const ms =
    typeof value === 'number' && Number.isInteger(value) && value > 0
      ? value * 1000
      : typeof value === 'string'
        ? parseDuration(value)
        : undefined;
  if (ms === undefined || ms > max) {
    throw new ApiError(
      400,
      'bad_request',
      `expiresIn must be seconds or a duration such as 7d or 12h, at most ${Math.round(max / 86_400_000)}d; got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

function badQuery(name: string, value: string, expected: string): ApiError {
  return new ApiError(400, 'bad_request', `query parameter ${name} must be ${expected}; got '${value}'`);
}
