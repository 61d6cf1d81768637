import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import { canonicalJson } from './normalize.js';
import type { CassetteExchange } from './types.js';

/**
 * 2026-07-28 multi-round-trip requests (MRTR): a request answered with `resultType: "input_required"` is retried with
 * the same method and arguments plus `inputResponses` and the server's opaque `requestState`. Each retry is its own
 * exchange; linking them into chains lets replay serve round n+1 after round n even when several chains look alike.
 */

/** Params keys a retry adds to the original request. */
const RETRY_KEYS = new Set(['inputResponses', 'requestState', '_meta']);

/**
 * True for a request that answers an earlier `input_required` (it carries `inputResponses` or `requestState`).
 *
 * @example isRetry({ name: 'deploy', arguments: {}, requestState: 'v1.abc' }) // → true
 */
export function isRetry(params: JsonObject | undefined): boolean {
  return params !== undefined && ('inputResponses' in params || 'requestState' in params);
}

/** The `requestState` a request echoes, or an `input_required` result hands out. */
export function requestStateOf(value: JsonObject | undefined): string | undefined {
  const state = value?.requestState;
  return typeof state === 'string' ? state : undefined;
}

/** The `requestState` of a recorded response's result. */
export function responseState(exchange: CassetteExchange): string | undefined {
  const result = exchange.response?.result;
  return isObject(result) ? requestStateOf(result) : undefined;
}

/** What stays the same across the rounds of one chain: method and params without the retry keys. */
function baseKey(method: string, params: JsonObject = {}): string {
  const base: JsonObject = {};
  for (const [key, value] of Object.entries(params)) if (!RETRY_KEYS.has(key)) base[key] = value;
  return `${method} ${canonicalJson(base)}`;
}

/**
 * Sets `mrtr` on every exchange of a chain, in place. A retry continues the earlier `input_required` exchange with
 * the same base whose handed-out `requestState` it echoes, else the latest one not yet continued. `paramsOf` reads
 * an exchange's request params (the cassette builder's leaves requests held as text unread).
 *
 * @example linkRounds(cassette.exchanges); cassette.exchanges[4].mrtr // → { chain: 2, round: 2, previous: 3 }
 */
export function linkRounds(
  exchanges: readonly CassetteExchange[],
  paramsOf: (exchange: CassetteExchange) => JsonObject | undefined = (exchange) => exchange.request.params,
): void {
  const open = new Map<string, CassetteExchange[]>();
  for (const exchange of exchanges) {
    const params = paramsOf(exchange);
    const retry = isRetry(params);
    // Most sessions have no multi-round-trip requests at all: no key to build for them.
    if (!retry && exchange.outcome !== 'input_required') continue;
    const key = baseKey(exchange.method, params);
    if (retry) {
      const waiting = open.get(key) ?? [];
      const state = requestStateOf(params);
      let at = state === undefined ? -1 : waiting.findIndex((x) => responseState(x) === state);
      if (at < 0) at = waiting.length - 1;
      const previous = waiting[at];
      if (previous) {
        waiting.splice(at, 1);
        previous.mrtr ??= { chain: previous.ordinal, round: 0, previous: undefined };
        exchange.mrtr = {
          chain: previous.mrtr.chain,
          round: previous.mrtr.round + 1,
          previous: previous.ordinal,
        };
      }
    }
    if (exchange.outcome === 'input_required') {
      const waiting = open.get(key);
      if (waiting) waiting.push(exchange);
      else open.set(key, [exchange]);
    }
  }
}
