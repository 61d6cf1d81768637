import { TapedeckError } from '../base/errors.js';
import { parseDuration } from '../base/units.js';

/**
 * What a fault is, and its one-line grammar `KIND[=VALUE][@MATCH][%PERCENT][#NTH]`: the kind says what happens to
 * an answer (or to the connection), MATCH which requests it is about, PERCENT and NTH which of those. Parsing
 * fails with one line that names the bad part and what was expected; nothing here knows a wire.
 */

export type FaultKind =
  | 'latency'
  | 'error'
  | 'tool-error'
  | 'drop'
  | 'disconnect'
  | 'malformed'
  | 'duplicate'
  | 'slow-stream';

export const FAULT_KINDS: readonly FaultKind[] = [
  'latency',
  'error',
  'tool-error',
  'drop',
  'disconnect',
  'malformed',
  'duplicate',
  'slow-stream',
];

/** What a fault does, with its value read. */
export type FaultAction =
  /** The answer waits `ms` (± `jitterMs`, drawn from the seed) before it goes out. */
  | { kind: 'latency'; ms: number; jitterMs: number }
  /** A JSON-RPC error with this code in place of the answer. */
  | { kind: 'error'; code: number }
  /** A `tools/call` result with `isError: true` in place of the answer. */
  | { kind: 'tool-error' }
  /** No answer at all. */
  | { kind: 'drop' }
  /** The connection closes once the request arrives. */
  | { kind: 'disconnect' }
  /** Text that is not JSON in place of the answer. */
  | { kind: 'malformed' }
  /** The answer twice. */
  | { kind: 'duplicate' }
  /** The answer's bytes trickle out at this rate. */
  | { kind: 'slow-stream'; bytesPerSecond: number };

/** Which requests a fault is about: a method, optionally narrowed to one tool, prompt or resource. */
export interface FaultMatch {
  method: string;
  /** The tool (`tools/call`), prompt (`prompts/get`) or resource uri (`resources/read`). */
  name?: string | undefined;
}

/** Which matching request: the `n`th (1-based), or the `n`th and every one after it. */
export interface FaultNth {
  n: number;
  onward: boolean;
}

/** One fault, parsed. */
export interface FaultRule {
  action: FaultAction;
  /** Undefined: every request (`tool-error`: every `tools/call`). */
  match?: FaultMatch | undefined;
  /** Applies to this share (0–100] of the matching requests, drawn from the seed. */
  percent?: number | undefined;
  nth?: FaultNth | undefined;
  /**
   * Milliseconds after the start before the fault applies (profiles only). A `disconnect` that names no request
   * (no match, percent or nth) happens at that moment by itself.
   */
  afterMs?: number | undefined;
  /** How it was written, for messages, events and reports (`error=-32603@tools/call#3`). */
  source: string;
}

/** MATCH methods that may name one target after a colon, and what the target is. */
export const NAMED_TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'tool',
  'prompts/get': 'prompt',
  'resources/read': 'uri',
};

const VALUE_HINT: Record<FaultKind, string> = {
  latency: 'latency=MS or latency=MS~JITTER (a number of ms, or a duration such as 1.5s)',
  error: 'error=CODE (an integer JSON-RPC error code such as -32603)',
  'tool-error': 'tool-error (no value)',
  drop: 'drop (no value)',
  disconnect: 'disconnect (no value)',
  malformed: 'malformed (no value)',
  duplicate: 'duplicate (no value)',
  'slow-stream': 'slow-stream=BYTES/S (such as 200/s or 2kb/s)',
};

/** The error code `error` uses when none is given: JSON-RPC's internal error. */
export const DEFAULT_ERROR_CODE = -32603;

/**
 * Reads one fault spec. `where` names it in errors (the flag, or a profile entry). Throws TapedeckError('usage').
 *
 * @example parseFaultSpec('error=-32603@tools/call:search#3-') // → { action: { kind: 'error', code: -32603 }, match: { method: 'tools/call', name: 'search' }, nth: { n: 3, onward: true }, … }
 */
export function parseFaultSpec(spec: string, where = `--fault '${spec}'`): FaultRule {
  const text = spec.trim();
  if (text === '') throw usage(where, 'is empty; expected KIND[=VALUE][@MATCH][%PERCENT][#NTH]');
  let rest = text;
  // A resource uri may itself hold `#` or `%`: a suffix that does not read as #NTH / %PERCENT stays part of it.
  const suffix = <T>(pattern: RegExp, parse: (value: string, where: string) => T): T | undefined => {
    const found = pattern.exec(rest);
    if (!found) return undefined;
    try {
      const value = parse(found[1]!, where);
      rest = rest.slice(0, found.index);
      return value;
    } catch (error) {
      if (/@[^:]+:/.test(rest)) return undefined;
      throw error;
    }
  };
  const nth = suffix(/#([^#%@]*)$/, parseNth);
  const percent = suffix(/%([^#%@]*)$/, parsePercent);
  const at = rest.indexOf('@');
  const head = at < 0 ? rest : rest.slice(0, at);
  const match = at < 0 ? undefined : parseMatch(rest.slice(at + 1), where);
  const eq = head.indexOf('=');
  const kindText = (eq < 0 ? head : head.slice(0, eq)).trim();
  const value = eq < 0 ? undefined : head.slice(eq + 1).trim();
  const action = parseAction(kindText, value, where);
  return checkRule({ action, match, percent, nth, source: text }, where);
}

/**
 * The action a kind and its value stand for. Throws TapedeckError('usage') naming `where`.
 *
 * @example parseAction('latency', '200~50', '--fault') // → { kind: 'latency', ms: 200, jitterMs: 50 }
 */
export function parseAction(kindText: string, value: string | undefined, where: string): FaultAction {
  const kind = FAULT_KINDS.find((k) => k === kindText.toLowerCase());
  if (kind === undefined)
    throw usage(where, `has an unknown kind '${kindText}'; expected one of ${FAULT_KINDS.join(', ')}`);
  const bad = () =>
    usage(where, `has a bad value '${value ?? ''}' for ${kind}; expected ${VALUE_HINT[kind]}`);
  switch (kind) {
    case 'latency': {
      if (value === undefined) throw bad();
      const [base, jitter, extra] = value.split('~');
      const ms = parseMillis(base!);
      const jitterMs = jitter === undefined ? 0 : parseMillis(jitter);
      if (ms === undefined || jitterMs === undefined || extra !== undefined) throw bad();
      return { kind, ms, jitterMs };
    }
    case 'error': {
      if (value === undefined) return { kind, code: DEFAULT_ERROR_CODE };
      if (!/^[+-]?\d{1,15}$/.test(value)) throw bad();
      return { kind, code: Number(value) };
    }
    case 'slow-stream': {
      const bytesPerSecond = value === undefined ? undefined : parseRate(value);
      if (bytesPerSecond === undefined) throw bad();
      return { kind, bytesPerSecond };
    }
    default:
      if (value !== undefined) throw bad();
      return { kind };
  }
}

/**
 * A MATCH: a method, or `tools/call:<tool>`, `prompts/get:<prompt>`, `resources/read:<uri>`.
 *
 * @example parseMatch('resources/read:file:///a.txt', '--fault') // → { method: 'resources/read', name: 'file:///a.txt' }
 */
export function parseMatch(text: string, where: string): FaultMatch {
  const colon = text.indexOf(':');
  const method = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (!/^[A-Za-z][\w/.-]*$/.test(method))
    throw usage(
      where,
      `has a bad MATCH '${text}'; expected a method such as tools/call, or tools/call:<tool>`,
    );
  if (colon < 0) return { method };
  const name = text.slice(colon + 1);
  if (NAMED_TARGETS[method] === undefined)
    throw usage(
      where,
      `names '${name}' after ${method}, which has no named target; only tools/call:<tool>, prompts/get:<prompt> and resources/read:<uri> take one`,
    );
  if (name === '') throw usage(where, `has an empty ${NAMED_TARGETS[method]} after '${method}:'`);
  return { method, name };
}

/** `#3` (the third matching request) or `#3-` (the third and every one after). */
export function parseNth(text: string, where: string): FaultNth {
  const match = /^(\d{1,9})(-?)$/.exec(text.trim());
  const n = match ? Number(match[1]) : 0;
  if (!match || n < 1)
    throw usage(where, `has a bad #NTH '#${text}'; expected #N or #N- with N from 1 (such as #3 or #3-)`);
  return { n, onward: match[2] === '-' };
}

/** `%25` or `%12.5`: a share above 0 and at most 100. */
export function parsePercent(text: string, where: string): number {
  const value = /^\d{1,3}(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(value > 0 && value <= 100))
    throw usage(where, `has a bad %PERCENT '%${text}'; expected a number above 0 and at most 100`);
  return value;
}

/** Whole milliseconds: a plain number is ms, or a duration (`1.5s`, `200ms`); 0 is allowed. */
function parseMillis(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed);
  return parseDuration(trimmed);
}

/** Binary units, as every byte size tapedeck reads (`--max-bytes 50MB`). */
const RATE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1_048_576,
  mb: 1_048_576,
  mib: 1_048_576,
};

/** `200`, `200/s`, `2kb/s`, `1.5mb/s` → bytes per second (at least 1). */
function parseRate(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)\s*(?:\/\s*s)?$/i.exec(text.trim());
  const unit = match ? RATE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return undefined;
  const rate = Math.round(Number(match[1]) * unit);
  return rate >= 1 ? rate : undefined;
}

/** Checks what only the whole rule can tell. */
export function checkRule(rule: FaultRule, where: string): FaultRule {
  if (rule.action.kind === 'tool-error' && rule.match !== undefined && rule.match.method !== 'tools/call')
    throw usage(
      where,
      `matches ${rule.match.method}, but tool-error answers tools/call only; match tools/call or tools/call:<tool>`,
    );
  return rule;
}

/**
 * A usage error that names where the fault came from.
 *
 * @example throw usage("--fault 'x'", "has an unknown kind 'x'")
 */
export function usage(where: string, problem: string): TapedeckError {
  return new TapedeckError('usage', `${where} ${problem}`);
}

/**
 * A `--seed`: a whole number from 0.
 *
 * @example parseSeed('42', '--seed') // → 42
 */
export function parseSeed(text: string, where = '--seed'): number {
  const value = /^\d{1,15}$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw usage(where, `'${text}' is not a seed; expected a whole number from 0`);
  return value;
}
