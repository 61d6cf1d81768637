import { TapedeckError } from '../../base/errors.js';
import { parseDuration } from '../../base/units.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';

/** How a call's arguments must look: equal, a JSON subset of them, or each named argument matching a regex. */
export type ArgsMatcher = { exact: Json } | { subset: Json } | { regex: Record<string, string> };

/** A call the policy asks for (or forbids): a tool and, optionally, what its arguments hold. */
export interface CallRule {
  tool: string;
  args?: ArgsMatcher | undefined;
}

/** What an agent's run must (and must not) do. */
export interface Policy {
  expect: CallRule[];
  forbid: CallRule[];
  /** Tools that must be called in this order (other calls may come between). */
  order: string[];
  maxCalls: Record<string, number>;
  maxDurationMs?: number | undefined;
  expectNoErrors: boolean;
}

export const EMPTY_POLICY: Policy = {
  expect: [],
  forbid: [],
  order: [],
  maxCalls: {},
  expectNoErrors: false,
};

const KEYS = [
  'expectTools',
  'forbidTools',
  'order',
  'maxCalls',
  'maxDuration',
  'expectNoErrors',
  'expect',
  'forbid',
];

/**
 * Reads a policy file's parsed JSON or YAML:
 *
 * ```yaml
 * expectTools: [search]            # or expect: [{ tool: search, args: { subset: { query: "x" } } }]
 * forbidTools: [delete_item]       # or forbid: [{ tool: write, args: { regex: { path: "^/etc" } } }]
 * order: [search, summarize]
 * maxCalls: { search: 3 }
 * maxDuration: 30s
 * expectNoErrors: true
 * ```
 *
 * @example parsePolicy({ expectTools: ['search'] }, 'policy.yaml').expect // → [{ tool: 'search' }]
 */
export function parsePolicy(value: unknown, file: string): Policy {
  const fail = (what: string) => new TapedeckError('usage', `${file}: ${what}`);
  if (!isObject(value as Json)) throw fail('a policy is an object such as {"expectTools": ["search"]}');
  const record = value as JsonObject;
  for (const key of Object.keys(record))
    if (!KEYS.includes(key)) throw fail(`unknown key "${key}"; a policy holds ${KEYS.join(', ')}`);
  const names = (key: string): string[] => {
    const list = record[key];
    if (list === undefined) return [];
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string'))
      throw fail(`"${key}" must be a list of tool names`);
    return list as string[];
  };
  const rules = (key: string): CallRule[] => {
    const list = record[key];
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw fail(`"${key}" must be a list of {tool, args?}`);
    return list.map((entry, i) => callRule(entry, `"${key}"[${i}]`, fail));
  };
  const policy: Policy = {
    expect: [...names('expectTools').map((tool) => ({ tool })), ...rules('expect')],
    forbid: [...names('forbidTools').map((tool) => ({ tool })), ...rules('forbid')],
    order: names('order'),
    maxCalls: {},
    expectNoErrors: record.expectNoErrors === true,
  };
  if (record.maxCalls !== undefined) {
    if (!isObject(record.maxCalls)) throw fail('"maxCalls" must map tool names to counts');
    for (const [tool, n] of Object.entries(record.maxCalls)) {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
        throw fail(`"maxCalls".${tool} must be a whole number`);
      policy.maxCalls[tool] = n;
    }
  }
  if (record.maxDuration !== undefined) {
    const ms =
      typeof record.maxDuration === 'number' ? record.maxDuration : parseDuration(String(record.maxDuration));
    if (ms === undefined)
      throw fail(
        `"maxDuration" must be a duration such as 30s or 500ms; got ${JSON.stringify(record.maxDuration)}`,
      );
    policy.maxDurationMs = ms;
  }
  return policy;
}

function callRule(entry: Json, where: string, fail: (what: string) => Error): CallRule {
  if (!isObject(entry) || typeof entry.tool !== 'string') throw fail(`${where} needs a "tool" name`);
  if (entry.args === undefined) return { tool: entry.tool };
  const args = entry.args;
  if (isObject(args) && 'exact' in args) return { tool: entry.tool, args: { exact: args.exact ?? null } };
  if (isObject(args) && 'subset' in args) return { tool: entry.tool, args: { subset: args.subset ?? null } };
  if (isObject(args) && isObject(args.regex)) {
    const regex: Record<string, string> = {};
    for (const [name, pattern] of Object.entries(args.regex)) {
      if (typeof pattern !== 'string') throw fail(`${where}.args.regex.${name} must be a regular expression`);
      try {
        new RegExp(pattern, 'u');
      } catch (err) {
        throw fail(
          `${where}.args.regex.${name} is not a valid regular expression: ${(err as Error).message}`,
        );
      }
      regex[name] = pattern;
    }
    return { tool: entry.tool, args: { regex } };
  }
  throw fail(`${where}.args must be {exact: …}, {subset: …} or {regex: {name: pattern}}`);
}
