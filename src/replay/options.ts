import { TapedeckError } from '../base/errors.js';
import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { OutputRedaction } from '../redact/output.js';
import type { JsonObject } from '../trace/jsonrpc.js';
import { DIFF_DEFAULTS, type DiffOptions } from './cassette/diff.js';
import {
  DEFAULT_NORMALIZATION,
  type NormalizationRules,
  type NormalizedRequest,
} from './cassette/normalize.js';
import type { IgnorePath } from './cassette/paths.js';

/**
 * Every replay knob, with its default, in one place.
 */

/**
 * `keyed`: different requests may arrive in any order (concurrent clients work), identical ones are served in
 * recorded order. `ordered`: additionally the recorded order of all requests (mcporter's strict mode).
 */
export type MatchMode = 'keyed' | 'ordered';

/** What a request gets once every recording of it was used: `none` = a miss, `last` = the last one again. */
export type RepeatMode = 'none' | 'last';

/** `none`: as fast as possible, in recorded order; `recorded`: the recorded gaps; a number: gaps divided by it. */
export type Timing = 'none' | 'recorded' | number;

/**
 * Decides whether a live request matches a recorded one: true / false, or undefined to leave it to the
 * matching key. Both sides are normalized.
 *
 * @example const sameTool: CustomMatcher = (live, rec) => live.method === 'tools/call' ? live.params.name === rec.params.name : undefined;
 */
export type CustomMatcher = (live: NormalizedRequest, recorded: NormalizedRequest) => boolean | undefined;

/**
 * How a miss or a timeout names the setting that would change it, as the caller sets it: replay options in code
 * (`repeat: 'last'`), a command's flags (`--repeat last`). A name left out is a setting the caller does not offer,
 * and the message names none.
 */
export interface SettingNames {
  /** Serve the last recording again once all were used: `repeat: 'last'`. */
  repeatLast?: string | undefined;
  /** The recorded order of all requests: `match: 'ordered'`. */
  matchOrdered?: string | undefined;
  /** Any order: `match: 'keyed'`. */
  matchKeyed?: string | undefined;
  /** How long the client may take to answer a replayed request: `answerTimeoutMs`. */
  answerTimeout?: string | undefined;
}

/** The names of replay options, as code passes them to replayTransport, serveStdio … */
export const OPTION_NAMES: SettingNames = {
  repeatLast: "repeat: 'last'",
  matchOrdered: "match: 'ordered'",
  matchKeyed: "match: 'keyed'",
  answerTimeout: 'answerTimeoutMs',
};

export interface MatchOptions {
  match: MatchMode;
  repeat: RepeatMode;
  /** Methods that always get their last recording again once used up, whatever `repeat` says. */
  repeatMethods: readonly string[];
  normalization: NormalizationRules;
  /** JSONPath locations in `{ method, params }` left out of matching, e.g. `$.params.arguments.timestamp`. */
  ignore: readonly (string | IgnorePath)[];
  /** A custom normalization step after the built-in one. */
  normalize: ((request: NormalizedRequest) => NormalizedRequest) | undefined;
  matchers: readonly CustomMatcher[];
  diff: DiffOptions;
  /**
   * Redacts a request's params before normalization, on both sides: a redacted cassette holds markers where the
   * live request carries secrets (see `cassetteRedaction`). Markers redact to themselves.
   */
  redact: ((method: string, params: JsonObject) => JsonObject) | undefined;
  /** How messages name the settings that would change a miss or a timeout (default: the option names). */
  settingNames: SettingNames;
  /**
   * How requests and answers are shown — in a miss's message (the JSON-RPC error too), the unused list, a client's
   * answer that differs: redacted as the trace would hold them. Matching is untouched. Without it they are shown as
   * they came.
   */
  shown: OutputRedaction | undefined;
}

export interface EngineOptions extends MatchOptions {
  timing: Timing;
  /** How long to wait for the client's answer to a server→client request (sampling, elicitation, roots). */
  answerTimeoutMs: number;
  /** The longest single recorded gap replayed under `recorded` timing; longer idle gaps are cut to it. */
  maxDelayMs: number;
  /** @internal The clock recorded gaps and answer waits run on: the real one, or a test's (see src/base/scheduler.ts). */
  scheduler: Scheduler;
  /**
   * @internal Which live client a message comes from or goes to, for front doors that serve several clients with
   * one engine (HTTP sessions): each client's handshake terms are its own. Undefined: there is one client.
   */
  clientOf: (() => object | undefined) | undefined;
}

export const REPLAY_DEFAULTS: EngineOptions = {
  match: 'keyed',
  repeat: 'none',
  // Discovery is idempotent, and the 2026 stdio client asks it from a probe process and again from the session.
  repeatMethods: ['server/discover'],
  normalization: DEFAULT_NORMALIZATION,
  ignore: [],
  normalize: undefined,
  matchers: [],
  diff: DIFF_DEFAULTS,
  redact: undefined,
  settingNames: OPTION_NAMES,
  shown: undefined,
  timing: 'none',
  answerTimeoutMs: ANSWER_TIMEOUT_MS,
  maxDelayMs: 60_000,
  scheduler: realScheduler,
  clientOf: undefined,
};

/** Options as callers give them: any subset over REPLAY_DEFAULTS; undefined (a flag left off) means the default. */
export type ReplayOptions = { [K in keyof EngineOptions]?: EngineOptions[K] | undefined };

/**
 * Fills in the defaults.
 *
 * @example withDefaults({ match: 'ordered' }).repeat // → 'none'
 */
export function withDefaults(options: ReplayOptions = {}): EngineOptions {
  const out = { ...REPLAY_DEFAULTS };
  for (const [key, value] of Object.entries(options)) {
    // An explicit undefined means "the default", as it does for a flag left off.
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  checkOptions(out);
  return out;
}

/**
 * Library callers get the checks the CLI's flags get: a typo (`timing: 'recoded'`) must fail in one line, not
 * replay as if nothing had been asked for. Throws TapedeckError('usage').
 */
function checkOptions(options: EngineOptions): void {
  const bad = (name: string, expected: string, value: unknown) =>
    new TapedeckError('usage', `replay option ${name} must be ${expected}; got ${shown(value)}`);
  if (options.match !== 'keyed' && options.match !== 'ordered')
    throw bad('match', "'keyed' or 'ordered'", options.match);
  if (options.repeat !== 'none' && options.repeat !== 'last')
    throw bad('repeat', "'none' or 'last'", options.repeat);
  const timing = options.timing;
  if (
    timing !== 'none' &&
    timing !== 'recorded' &&
    !(typeof timing === 'number' && timing > 0 && timing < Infinity)
  )
    throw bad('timing', "'none', 'recorded' or a speed factor above 0", timing);
  for (const name of ['answerTimeoutMs', 'maxDelayMs'] as const) {
    const value = options[name];
    if (!(typeof value === 'number' && value > 0 && value < Infinity))
      throw bad(name, 'a number of milliseconds above 0', value);
  }
  for (const name of ['ignore', 'repeatMethods', 'matchers'] as const) {
    if (!Array.isArray(options[name])) throw bad(name, 'an array', options[name]);
  }
  const { scheduler } = options;
  if (typeof scheduler?.setTimeout !== 'function' || typeof scheduler.now !== 'function')
    throw bad('scheduler', 'a Scheduler (now, setTimeout, clearTimeout)', scheduler);
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  return String(value);
}

/**
 * Reads a `--timing` value: `none`, `recorded`, or a speed factor (`2`, `2x`, `0.5`).
 *
 * @example parseTiming('4x') // → 4
 */
export function parseTiming(value: string): Timing {
  if (value === 'none' || value === 'recorded') return value;
  const factor = Number(value.endsWith('x') ? value.slice(0, -1) : value);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new TapedeckError(
      'usage',
      `bad timing "${value}": expected none, recorded, or a speed factor above 0 such as 2 or 0.5x`,
    );
  }
  return factor;
}

/**
 * The delay in ms that `recordedMs` of recorded gap becomes under `timing`.
 *
 * @example scaledDelay(1000, 4, 60_000) // → 250
 */
export function scaledDelay(recordedMs: number, timing: Timing, maxDelayMs: number): number {
  if (timing === 'none' || recordedMs <= 0) return 0;
  const speed = timing === 'recorded' ? 1 : timing;
  return Math.min(recordedMs, maxDelayMs) / speed;
}
