import { describeRequest } from '../../trace/describe.js';
import type { SettingNames } from '../options.js';
import type { KeyedExchange } from './cassette.js';
import { type DiffOptions, diffSize, formatDiff, type StructuralDiff, structuralDiff } from './diff.js';
import type { NormalizedRequest } from './normalize.js';
import type { CassetteExchange } from './types.js';

/**
 * Misses: a live request replay cannot answer, explained in one line — what was asked, the closest recorded
 * request and where the two differ, or which setting would have let it through.
 */

/**
 * `unknown`: nothing recorded matches; `used-up`: it was recorded, but every recording was already served;
 * `out-of-order`: it was recorded, but `ordered` matching expected a different request next.
 */
export type MissReason = 'unknown' | 'used-up' | 'out-of-order';

export interface Miss {
  reason: MissReason;
  /** The live request, normalized. */
  request: NormalizedRequest;
  /** The live request as reports show it: redacted when the replay shows requests so, else `request` itself. */
  shown: NormalizedRequest;
  /** The recorded request most like it: same method first, then the smallest structural difference. */
  closest: CassetteExchange | undefined;
  /** Where the closest recorded request (`recorded`) and the live one differ, normalized (values as shown). */
  diff: StructuralDiff | undefined;
  /** Under `ordered` matching: the request the recording says comes next. */
  expected: CassetteExchange | undefined;
  /** One line for people, used as the JSON-RPC error message. */
  message: string;
}

export interface MissContext {
  entries: readonly KeyedExchange[];
  /** Which exchanges were already served. */
  used: (exchange: CassetteExchange) => boolean;
  expected: KeyedExchange | undefined;
  /** How many recordings share the live request's key (for `used-up`). */
  recorded: number;
  diff: DiffOptions;
  /** How the message names the setting that would have let the request through. */
  names: SettingNames;
  /** A request as the miss shows it (redacted); as it is when absent. */
  show?: ((request: NormalizedRequest) => NormalizedRequest) | undefined;
}

/**
 * Explains a miss.
 *
 * @example explainMiss('unknown', live, context).message
 * // → 'no recorded answer for tools/call get-sum {"a":2,"b":4}; closest: tools/call get-sum {"a":2,"b":3} (differs at $.params.arguments.b: recorded 3, live 4)'
 */
export function explainMiss(reason: MissReason, live: NormalizedRequest, context: MissContext): Miss {
  const show = context.show ?? ((request: NormalizedRequest) => request);
  const shown = show(live);
  const what = describeRequest(shown);
  const expected = context.expected;
  const next = expected ? `expected next: ${describeRequest(show(expected.normalized))}` : undefined;
  if (reason === 'out-of-order') {
    return {
      reason,
      request: live,
      shown,
      closest: undefined,
      diff: undefined,
      expected: expected?.exchange,
      message: `out of order: got ${what}, expected ${expected ? describeRequest(show(expected.normalized)) : 'nothing more'} next${orderHint(context.names)}`,
    };
  }
  if (reason === 'used-up') {
    const repeat = context.names.repeatLast;
    const times =
      context.recorded === 1 ? 'its one recording was' : `all ${context.recorded} recordings were`;
    return {
      reason,
      request: live,
      shown,
      closest: undefined,
      diff: undefined,
      expected: expected?.exchange,
      message: `no recorded answer left for ${what}: ${times} already served${repeat ? ` (${repeat} serves the last one again)` : ''}`,
    };
  }
  const closest = closestEntry(live, context);
  const closestShown = closest && show(closest.normalized);
  // Compared as they are; each difference shows the values as shown.
  const diff = closest
    ? structuralDiff(asMessage(closest.normalized), asMessage(live), '$', context.diff, {
        recorded: asMessage(closestShown!),
        live: asMessage(shown),
      })
    : undefined;
  let message = `no recorded answer for ${what}`;
  if (closest && diff)
    message += `; closest: ${describeRequest(closestShown!)} (differs at ${formatDiff(diff)})`;
  else message += '; the cassette holds no requests';
  if (next) message += `; ${next}`;
  return {
    reason,
    request: live,
    shown,
    closest: closest?.exchange,
    diff,
    expected: expected?.exchange,
    message,
  };
}

/** `(match: 'ordered'; match: 'keyed' accepts any order)`, with what the caller can set. */
function orderHint({ matchOrdered, matchKeyed }: SettingNames): string {
  const mode = matchOrdered ?? "match mode 'ordered'";
  return matchKeyed ? ` (${mode}; ${matchKeyed} accepts any order)` : ` (${mode})`;
}

function asMessage(request: NormalizedRequest): { method: string; params: NormalizedRequest['params'] } {
  return { method: request.method, params: request.params };
}

/** Same method first, then same target (tool, prompt, resource), then unused, then fewest differences, then earliest. */
function closestEntry(live: NormalizedRequest, context: MissContext): KeyedExchange | undefined {
  const sameMethod = context.entries.filter((entry) => entry.normalized.method === live.method);
  const pool = sameMethod.length > 0 ? sameMethod : context.entries;
  let best: { entry: KeyedExchange; rank: number[] } | undefined;
  for (const entry of pool) {
    const rank = [
      targetOf(entry.normalized) === targetOf(live) ? 0 : 1,
      context.used(entry.exchange) ? 1 : 0,
      diffSize(asMessage(entry.normalized), asMessage(live), context.diff.countLimit),
      entry.exchange.ordinal,
    ];
    if (!best || lessThan(rank, best.rank)) best = { entry, rank };
  }
  return best?.entry;
}

function targetOf(request: NormalizedRequest): unknown {
  return request.params.name ?? request.params.uri;
}

function lessThan(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}
