import type { FaultRecord } from '../../faults/records.js';
import { describeRequest } from '../../trace/describe.js';
import type { JsonObject, RpcId } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import { type StructuralDiff, structuralDiff } from '../cassette/diff.js';
import type { MatchReport } from '../cassette/matcher.js';
import type { Miss } from '../cassette/miss.js';
import type { CassetteExchange } from '../cassette/types.js';
import type { EngineOptions } from '../options.js';
import type { VersionNote } from './negotiation.js';

/**
 * What the replay engine tells: the events it emits as a session goes, the report at its end, and the shapes its
 * answers to the client take (an answer's outcome, a miss as error data).
 */

export type ReplayEvent =
  | { kind: 'hit'; exchange: CassetteExchange; id: RpcId; repeated: boolean }
  | { kind: 'miss'; miss: Miss; id: RpcId }
  | { kind: 'answer'; answer: AnswerCheck }
  | { kind: 'timeout'; method: string; exchange: number | undefined; message: string }
  /**
   * The matched exchange has no recorded response (the recording ended first, or the response's line was
   * unreadable): the client got a JSON-RPC error instead of waiting forever.
   */
  | { kind: 'no-response'; exchange: number; message: string }
  /** A client message replay had no use for (an answer nobody waits for, an invalid message). */
  | { kind: 'stray'; reason: string; message: Json }
  /** Sending failed (the channel went away): the playback stops, the engine carries on. */
  | { kind: 'error'; error: unknown }
  /** A fault was injected on the way to the client (see the `faults` option of the front doors). */
  | { kind: 'fault'; fault: FaultRecord }
  /**
   * The live client asked for another protocol version than the recording holds (each distinct case once): the
   * `initialize` answer names the version a live server would have answered, everything else is as recorded.
   */
  | { kind: 'version'; note: VersionNote }
  /**
   * A recorded server→client request not sent, because the live client did not declare the capability it needs
   * (a live server would not ask either). The exchange went on as recorded, the recorded answer standing in for
   * the client's. `first` is true for the first one of its method.
   */
  | {
      kind: 'withheld';
      method: string;
      capability: string;
      exchange: number | undefined;
      first: boolean;
    };

/** How the client's answer to a replayed server→client request compares with the recorded one. */
export interface AnswerCheck {
  method: string;
  /** The exchange whose script asked, or undefined for an unsolicited request. */
  exchange: number | undefined;
  /** True when the answer differs — or when the recording holds no answer to compare with. */
  differs: boolean;
  /** `$.result…` / `$.error…` paths; undefined when there was nothing recorded to compare. */
  diff: StructuralDiff | undefined;
}

/** The matcher's report (used / unused / misses) plus what the client's answers and timeouts said. */
export interface ReplayReport extends MatchReport {
  answers: AnswerCheck[];
  /** One line per server→client request the client left unanswered (in time, or before the session ended). */
  timeouts: string[];
  /** Every fault injected, in order (none unless faults were asked for). */
  faults: FaultRecord[];
}

/**
 * How the client's answer to a server→client request compares with the recorded one: compared as they are, each
 * difference showing the values as the trace would hold them (`shown`). No recorded answer counts as differing.
 */
export function answerCheck(
  method: string,
  recorded: JsonObject | undefined,
  answer: JsonObject,
  exchange: number | undefined,
  options: Pick<EngineOptions, 'diff' | 'shown'>,
): AnswerCheck {
  const shown = options.shown;
  const [before, after] = recorded ? [outcomeOf(recorded), outcomeOf(answer)] : [];
  const diff =
    before && after
      ? structuralDiff(
          before,
          after,
          '$',
          options.diff,
          shown && { recorded: shown.message(before), live: shown.message(after) },
        )
      : undefined;
  return { method, exchange, differs: diff === undefined || diff.total > 0, diff };
}

/**
 * What an answer says, without its envelope (`jsonrpc`, `id`).
 *
 * @example outcomeOf({ jsonrpc: '2.0', id: 3, result: {} }) // → { result: {} }
 */
export function outcomeOf(message: JsonObject): JsonObject {
  const out: JsonObject = {};
  if ('result' in message) out.result = message.result ?? null;
  if ('error' in message) out.error = message.error ?? null;
  return out;
}

/**
 * The miss as error data: enough for a tool to show the diff without parsing the message.
 *
 * @example missData(miss).kind // → 'used-up'
 */
export function missData(miss: Miss): Json {
  const data: JsonObject = { kind: miss.reason, request: describeRequest(miss.shown) };
  if (miss.closest) data.closest = { ordinal: miss.closest.ordinal, line: miss.closest.lineNo ?? null };
  if (miss.diff) data.diff = miss.diff.entries.map((entry) => ({ ...entry }));
  if (miss.expected) data.expected = { ordinal: miss.expected.ordinal, line: miss.expected.lineNo ?? null };
  return data;
}
