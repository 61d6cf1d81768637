import { Matcher } from '../replay/cassette/matcher.js';
import { compileIgnorePath } from '../replay/cassette/paths.js';
import { cassetteRedaction, type RequestRedactor } from '../replay/cassette/redacted.js';
import { isObject, type JsonObject, type RpcId } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { givenResponse, type LoadedTrajectory, recordedAt, responseLineOf } from './loaded.js';

/**
 * `replay_lookup`: the recorded response for a request, matched the way `tapedeck replay` matches — method and
 * params with the id left out, and the same normalization (progress tokens, trace context, client info …), plus
 * the caller's ignore paths. Identical requests recorded several times are told apart by `occurrence`.
 */

export interface LookupArgs {
  request: JsonObject;
  /** Which recording of an identical request, 1-based (default 1: the first). */
  occurrence?: number | undefined;
  /** JSONPaths of the request to leave out of matching, e.g. `$.params.arguments.timestamp`. */
  ignore?: readonly string[] | undefined;
}

export type LookupResult = { matched: true; response: Json; recorded_at: string | null } | { matched: false };

const redactors = new WeakMap<LoadedTrajectory, Promise<RequestRedactor | undefined>>();

/**
 * @example
 * await lookupResponse(loaded, { request: { method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } } })
 * // → { matched: true, response: { result: { hits: ['doc1'] } }, recorded_at: '2026-11-29T12:00:01.000Z' }
 */
export async function lookupResponse(
  loaded: LoadedTrajectory,
  args: LookupArgs,
  log?: (message: string) => void,
): Promise<LookupResult> {
  const { request } = args;
  const method = request.method;
  if (typeof method !== 'string' || method === '')
    throw new Error('request needs a "method" (a string such as "tools/call")');
  const params = request.params;
  if (params !== undefined && !isObject(params))
    throw new Error(`request "params" must be an object; got ${JSON.stringify(params)}`);
  const occurrence = args.occurrence ?? 1;
  if (!Number.isInteger(occurrence) || occurrence < 1)
    throw new Error(`occurrence must be a whole number from 1 (the first recording); got ${occurrence}`);
  const ignore = (args.ignore ?? []).map((path) => {
    try {
      return compileIgnorePath(path);
    } catch (err) {
      throw new Error(`ignore path '${path}': ${(err as Error).message.replace(/^bad ignore path: /, '')}`);
    }
  });
  let redact = redactors.get(loaded);
  if (redact === undefined) {
    redact = cassetteRedaction(loaded.meta, { onWarning: (message) => log?.(message) });
    redactors.set(loaded, redact);
  }
  const redactor = await redact;
  const matcher = new Matcher(loaded.cassette, { ignore, ...(redactor ? { redact: redactor } : {}) });
  let found: ReturnType<Matcher['match']> | undefined;
  for (let n = 0; n < occurrence; n++) {
    found = matcher.match(method, params);
    if (found.kind === 'miss') return { matched: false };
  }
  if (found === undefined || found.kind !== 'hit') return { matched: false };
  const exchange = found.exchange;
  if (exchange.response === undefined) return { matched: false };
  const liveId = request.id as RpcId | undefined;
  const response = givenResponse(
    responseLineOf(loaded, exchange),
    exchange.response,
    typeof liveId === 'string' || typeof liveId === 'number' ? liveId : undefined,
  );
  return { matched: true, response, recorded_at: recordedAt(exchange) };
}
