import type { HttpLine } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { isCounterId } from './headers.js';
import { matchHeaderRule } from './key-words.js';
import { formatMarker, isMarker } from './marker.js';
import { hashSession } from './session.js';
import { specificRule } from './specific.js';
import type { TraceState } from './state.js';
import type { Hits } from './values.js';
import { hideInString } from './walk.js';

type Headers = HttpLine['headers'];

/**
 * Redacts HTTP headers: a header named by a header rule is replaced whole (each value, for a list) — as a stable
 * hash for rules that keep one (`Mcp-Session-Id`) — and every other value gets the value rules. Returns the same
 * object when nothing changed, otherwise a copy.
 *
 * @example redactHeaders({ Authorization: 'Bearer abc', Accept: '*\/*' }, compiled) // { Authorization: '[REDACTED:authorization-header]', Accept: '*\/*' }
 */
export function redactHeaders(headers: HttpLine['headers'], compiled: CompiledRules): HttpLine['headers'] {
  return hideInHeaders(headers, compiled);
}

/** {@link redactHeaders} with detection hooks. */
export function hideInHeaders(
  headers: Headers,
  compiled: CompiledRules,
  hits?: Hits,
  state?: TraceState,
): Headers {
  const names = Object.keys(headers);
  let entries: Array<[string, string | string[]]> | undefined;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    const value = headers[name] as string | string[];
    const where = `headers.${name.toLowerCase()}`;
    const rule = matchHeaderRule(compiled.headers, name);
    const one = (text: string): string => {
      if (typeof text !== 'string') return text;
      if (rule === undefined) return hideInString(text, compiled, hits, where);
      if (text === '' || isMarker(text)) return text;
      if (rule.id === compiled.session) return hashSession(text, compiled, hits, where, state);
      if (rule.id === compiled.eventIds && isCounterId(text)) return text;
      // A stable-hash rule keeps its id, so equal values keep equal markers; others give way to a token's format.
      const id = rule.hash ? rule.id : specificRule(rule.id, text, compiled);
      hits?.hit(id, where, text);
      const style = rule.hash ? { mode: 'hash' as const, hasher: compiled.stableHash } : compiled.style;
      return formatMarker(id, text, style);
    };
    let next: string | string[];
    if (Array.isArray(value)) {
      const mapped = value.map(one);
      next = mapped.every((item, j) => item === value[j]) ? value : mapped;
    } else {
      next = one(value);
    }
    if (next !== value && entries === undefined) {
      entries = names
        .slice(0, i)
        .map((n): [string, string | string[]] => [n, headers[n] as string | string[]]);
    }
    entries?.push([name, next]);
  }
  return entries === undefined ? headers : Object.fromEntries(entries);
}
