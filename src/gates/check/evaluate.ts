import { canonicalJson } from '../../trace/canonical-json.js';
import { isObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { ArgsMatcher, CallRule, Policy } from './policy.js';
import type { AgentRun, ToolCall } from './runs.js';

/** One rule a run broke. */
export interface Violation {
  /** `expect-tool`, `forbid-tool`, `order`, `max-calls`, `max-duration`, `no-errors`. */
  rule: string;
  message: string;
  /** The trace line it points at, when one call is to blame. */
  line?: number | undefined;
}

/**
 * True when `value` holds everything `subset` does (objects key by key, arrays item by item, the rest equal).
 *
 * @example isSubset({ a: 1, b: 2 }, { a: 1 }) // → true
 */
export function isSubset(value: Json | undefined, subset: Json): boolean {
  if (Array.isArray(subset))
    return Array.isArray(value) && subset.every((item, i) => isSubset(value[i], item));
  if (isObject(subset))
    return isObject(value) && Object.entries(subset).every(([k, v]) => isSubset(value[k], v));
  return canonicalJson(value) === canonicalJson(subset);
}

/** True when a call's arguments satisfy a matcher (no matcher: any arguments). */
export function argsMatch(args: Json, matcher: ArgsMatcher | undefined): boolean {
  if (matcher === undefined) return true;
  if ('exact' in matcher) return canonicalJson(args) === canonicalJson(matcher.exact);
  if ('subset' in matcher) return isSubset(args, matcher.subset);
  return Object.entries(matcher.regex).every(([name, pattern]) => {
    const value = isObject(args) ? args[name] : undefined;
    const text = typeof value === 'string' ? value : value === undefined ? undefined : canonicalJson(value);
    return text !== undefined && new RegExp(pattern, 'u').test(text);
  });
}

const matches = (call: ToolCall, rule: CallRule) =>
  call.tool === rule.tool && argsMatch(call.args, rule.args);
const described = (rule: CallRule) =>
  rule.args === undefined
    ? `"${rule.tool}"`
    : `"${rule.tool}" with arguments matching ${canonicalJson(rule.args as Json)}`;

/**
 * Every rule of a policy a run broke; empty when it passes.
 *
 * @example evaluate(run, { ...EMPTY_POLICY, forbid: [{ tool: 'delete_item' }] })
 */
export function evaluate(run: AgentRun, policy: Policy): Violation[] {
  const violations: Violation[] = [];
  for (const rule of policy.expect)
    if (!run.calls.some((call) => matches(call, rule)))
      violations.push({ rule: 'expect-tool', message: `never called ${described(rule)}` });
  for (const rule of policy.forbid) {
    const call = run.calls.find((c) => matches(c, rule));
    if (call !== undefined)
      violations.push({
        rule: 'forbid-tool',
        message: `called ${described(rule)}, which is forbidden`,
        line: call.line,
      });
  }
  if (policy.order.length > 0) {
    let next = 0;
    for (const call of run.calls) if (call.tool === policy.order[next]) next += 1;
    if (next < policy.order.length) {
      const seen = run.calls.map((c) => c.tool).join(', ') || 'no tools';
      violations.push({
        rule: 'order',
        message: `did not call ${policy.order.join(' → ')} in that order (stopped before "${policy.order[next]}"); called: ${seen}`,
      });
    }
  }
  for (const [tool, max] of Object.entries(policy.maxCalls)) {
    const calls = run.calls.filter((c) => c.tool === tool);
    if (calls.length > max)
      violations.push({
        rule: 'max-calls',
        message: `called "${tool}" ${calls.length} times, more than ${max}`,
        line: calls[max]?.line,
      });
  }
  if (policy.maxDurationMs !== undefined && run.durationMs > policy.maxDurationMs)
    violations.push({
      rule: 'max-duration',
      message: `took ${run.durationMs} ms, more than ${policy.maxDurationMs} ms`,
    });
  if (policy.expectNoErrors) {
    const failed = run.calls.find((c) => c.failed);
    if (failed !== undefined || run.errors > 0)
      violations.push({
        rule: 'no-errors',
        message: `${failed === undefined ? `${run.errors} request(s) were answered with an error` : `"${failed.tool}" failed`}`,
        line: failed?.line,
      });
  }
  return violations;
}

/** Per tool over several runs: how many runs called it and at which positions (1-based, first call). */
export interface ToolSpread {
  tool: string;
  runs: number;
  positions: number[];
}

/**
 * The "run it five times: which tools, in what order" table.
 *
 * @example spread(runs) // → [{ tool: 'search', runs: 5, positions: [1, 1, 2, 1, 1] }, …]
 */
export function spread(runs: readonly AgentRun[]): ToolSpread[] {
  const tools = new Map<string, ToolSpread>();
  for (const run of runs) {
    const order = [...new Set(run.calls.map((c) => c.tool))];
    order.forEach((tool, i) => {
      const entry = tools.get(tool) ?? { tool, runs: 0, positions: [] };
      entry.runs += 1;
      entry.positions.push(i + 1);
      tools.set(tool, entry);
    });
  }
  return [...tools.values()].sort((a, b) => b.runs - a.runs || a.tool.localeCompare(b.tool));
}
