import { parseDuration } from '../base/units.js';
import {
  checkRule,
  type FaultRule,
  parseAction,
  parseFaultSpec,
  parseMatch,
  parseNth,
  parsePercent,
  usage,
} from './spec.js';

/**
 * Faults as a profile lists them (a JSON or YAML file, or the `faults` option of replayTransport / useCassette):
 * each entry a spec string, or an object with the same parts by name plus `after`, a moment from the start.
 *
 * ```yaml
 * seed: 7
 * faults:
 *   - latency=200~50@tools/call
 *   - { kind: error, value: -32603, match: "tools/call:search", nth: "3-" }
 *   - { after: 5s, kind: disconnect }
 * ```
 */

/** One fault written out by its parts. */
export interface FaultRuleInput {
  kind: string;
  /** The kind's value: `200~50`, `-32603`, `2kb/s`. */
  value?: string | number | undefined;
  /** A method, or `tools/call:<tool>`, `prompts/get:<prompt>`, `resources/read:<uri>`. */
  match?: string | undefined;
  /** A share (0–100] of the matching requests. */
  percent?: number | string | undefined;
  /** `3` (the third matching request) or `"3-"` (the third on). */
  nth?: number | string | undefined;
  /** A duration (`5s`, `1.5m`) or ms after the start: the fault applies from then on (a bare disconnect happens then). */
  after?: string | number | undefined;
}

/** A fault as callers give it: a spec string, its parts, or a rule already parsed. */
export type FaultInput = string | FaultRuleInput | FaultRule;

/** What a profile says: the faults, and the seed when it names one. */
export interface FaultProfile {
  faults: FaultRule[];
  seed?: number | undefined;
}

const RULE_KEYS = ['kind', 'value', 'match', 'percent', 'nth', 'after'];

/**
 * Parses every input; `where` names the list in errors (`faults[2].value …`). Throws TapedeckError('usage').
 *
 * @example faultRules(['drop@tools/call#2', { after: '5s', kind: 'disconnect' }])
 */
export function faultRules(inputs: readonly FaultInput[], where = 'faults'): FaultRule[] {
  if (!Array.isArray(inputs))
    throw usage(where, 'must be a list of faults (spec strings or { kind, value, match, … } objects)');
  return inputs.map((input, i) => faultRule(input, `${where}[${i}]`));
}

function faultRule(input: FaultInput, where: string): FaultRule {
  if (typeof input === 'string') return parseFaultSpec(input, `${where} '${input}'`);
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw usage(
      where,
      `must be a spec string or an object with kind, value, match …; got ${JSON.stringify(input)}`,
    );
  if ('action' in input && 'source' in input) return input;
  const entry = input as unknown as Record<string, unknown>;
  const unknown = Object.keys(entry).filter((key) => !RULE_KEYS.includes(key));
  if (unknown.length > 0)
    throw usage(where, `has an unknown key '${unknown[0]}'; expected ${RULE_KEYS.join(', ')}`);
  if (typeof entry.kind !== 'string') throw usage(where, "needs a kind, such as kind: 'error'");
  const value = scalar(entry.value, `${where}.value`);
  const action = parseAction(entry.kind, value, where);
  const matchText = scalar(entry.match, `${where}.match`);
  const match = matchText === undefined ? undefined : parseMatch(matchText, where);
  const percentText = scalar(entry.percent, `${where}.percent`);
  const percent = percentText === undefined ? undefined : parsePercent(percentText, where);
  const nthText = scalar(entry.nth, `${where}.nth`);
  const nth = nthText === undefined ? undefined : parseNth(nthText.replace(/^#/, ''), where);
  const afterMs = entry.after === undefined ? undefined : parseAfter(entry.after, where);
  const source = [
    `${entry.kind}${value === undefined ? '' : `=${value}`}`,
    matchText === undefined ? '' : `@${matchText}`,
    percentText === undefined ? '' : `%${percentText}`,
    nthText === undefined ? '' : `#${nthText.replace(/^#/, '')}`,
    afterMs === undefined ? '' : ` after ${afterMs}ms`,
  ].join('');
  return checkRule({ action, match, percent, nth, afterMs, source }, where);
}

/** A value given as a string or number (YAML reads `-32603` and `3` as numbers). */
function scalar(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw usage(where, `must be a string or a number; got ${JSON.stringify(value)}`);
}

function parseAfter(value: unknown, where: string): number {
  const ms =
    typeof value === 'number'
      ? Number.isFinite(value) && value >= 0
        ? Math.round(value)
        : undefined
      : typeof value === 'string'
        ? /^\d+$/.test(value.trim())
          ? Number(value)
          : parseDuration(value)
        : undefined;
  if (ms === undefined)
    throw usage(where, `has a bad after '${String(value)}'; expected a duration such as 5s, 1.5m or 500ms`);
  return ms;
}

/**
 * A parsed profile document (from JSON or YAML): a list of faults, or `{ seed?, faults }`. `name` names it in errors.
 *
 * @example faultProfile({ seed: 7, faults: ['drop@tools/call#2'] }, 'faults.yaml') // → { seed: 7, faults: [ … ] }
 */
export function faultProfile(document: unknown, name: string): FaultProfile {
  if (Array.isArray(document)) return { faults: faultRules(document, `${name}: faults`) };
  if (typeof document !== 'object' || document === null)
    throw usage(name, 'must hold a list of faults, or an object with `faults` (and an optional `seed`)');
  const body = document as Record<string, unknown>;
  const unknown = Object.keys(body).filter((key) => key !== 'faults' && key !== 'seed');
  if (unknown.length > 0) throw usage(name, `has an unknown key '${unknown[0]}'; expected faults and seed`);
  if (!Array.isArray(body.faults)) throw usage(name, 'needs `faults`: a list of fault specs or objects');
  const seed = body.seed;
  if (seed !== undefined && !(typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0))
    throw usage(name, `has a bad seed ${JSON.stringify(seed)}; expected a whole number from 0`);
  return { faults: faultRules(body.faults as FaultInput[], `${name}: faults`), seed };
}
