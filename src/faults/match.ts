import type { Json } from '../trace/types.js';
import type { FaultMatch, FaultRule } from './spec.js';

/**
 * Which requests a fault's MATCH names, and which MATCHes name nothing a recording holds (a typo in a tool name
 * must not pass as "the fault never fired").
 */

/** A request as faults see it: its method and params. */
export interface FaultRequest {
  method: string;
  params?: Json | undefined;
}

/**
 * The tool, prompt or uri a request is about, for the methods a MATCH may narrow by name.
 *
 * @example namedTarget({ method: 'tools/call', params: { name: 'echo' } }) // → 'echo'
 */
export function namedTarget(request: FaultRequest): string | undefined {
  const { params } = request;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const key =
    request.method === 'tools/call' || request.method === 'prompts/get'
      ? 'name'
      : request.method === 'resources/read'
        ? 'uri'
        : undefined;
  if (key === undefined) return undefined;
  const value = params[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Does `rule` name `request`? No MATCH names every request — except for `tool-error`, which only a `tools/call`
 * can get.
 *
 * @example ruleMatches(parseFaultSpec('drop@tools/call:echo'), { method: 'tools/call', params: { name: 'echo' } }) // → true
 */
export function ruleMatches(rule: FaultRule, request: FaultRequest): boolean {
  const match: FaultMatch | undefined =
    rule.match ?? (rule.action.kind === 'tool-error' ? { method: 'tools/call' } : undefined);
  if (match === undefined) return true;
  if (match.method !== request.method) return false;
  return match.name === undefined || match.name === namedTarget(request);
}

/**
 * The rules whose MATCH names a method, tool, prompt or uri none of `requests` has. Methods a replayer answers
 * without a recording (`extraMethods`: ping …) count as present.
 *
 * @example unmatchedRules(rules, cassette.exchanges.map((x) => ({ method: x.method, params: x.request.params })))
 */
export function unmatchedRules(
  rules: readonly FaultRule[],
  requests: Iterable<FaultRequest>,
  extraMethods: readonly string[] = [],
): FaultRule[] {
  const methods = new Set(extraMethods);
  const names = new Set<string>();
  for (const request of requests) {
    methods.add(request.method);
    const name = namedTarget(request);
    if (name !== undefined) names.add(`${request.method}\u0000${name}`);
  }
  return rules.filter((rule) => {
    const match = rule.match;
    if (match === undefined) return false;
    if (match.name === undefined) return !methods.has(match.method);
    return !names.has(`${match.method}\u0000${match.name}`);
  });
}

/**
 * One line about a MATCH that names nothing: what it names and what there is instead.
 *
 * @example describeUnmatched(rule, requests) // → "--fault 'drop@tools/call:serch' names tool 'serch', which the cassette never calls (it calls: echo, add)"
 */
export function describeUnmatched(
  rule: FaultRule,
  requests: Iterable<FaultRequest>,
  where: string,
  subject = 'the cassette',
): string {
  const match = rule.match!;
  if (match.name === undefined) return `${where} matches ${match.method}, which ${subject} never asks`;
  const seen = new Set<string>();
  for (const request of requests) {
    if (request.method !== match.method) continue;
    const name = namedTarget(request);
    if (name !== undefined) seen.add(name);
  }
  const what = match.method === 'tools/call' ? 'tool' : match.method === 'prompts/get' ? 'prompt' : 'uri';
  const listed = [...seen].slice(0, 12).join(', ');
  const instead = seen.size === 0 ? `${subject} has no ${match.method}` : `it has: ${listed}`;
  return `${where} names ${what} '${match.name}', which ${subject} never asks for (${instead})`;
}
