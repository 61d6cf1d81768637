import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { hideInHeaders } from './header-values.js';
import { matchHeaderRule } from './key-words.js';
import { formatMarker } from './marker.js';
import { hashSession, hashSessionInUrl } from './session.js';
import type { TraceState } from './state.js';
import { hideable } from './values.js';
import { hideInJson } from './walk.js';

/**
 * Whole JSON documents in other tools' formats — a HAR file, an HTTP exchanges capture, a shack trajectory — redacted
 * where they stand, so the result is still a file of that format. Headers are redacted as headers wherever a
 * document keeps them (a `headers` map or a HAR `[{name, value}]` list), cookie values are hidden, session ids in
 * URLs are hashed, and everything else goes through the message walk (key rules, JSON in strings, value rules).
 */

/** Deeper than this, the header pass stops looking (the message walk still covers everything). */
const MAX_HEADER_DEPTH = 32;

type Rec = { [key: string]: Json };

function isRecord(value: Json | undefined): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A HAR-style `[{name, value}]` header list with each credential value hidden. */
function headerList(list: Json[], compiled: CompiledRules, state: TraceState | undefined): Json[] {
  let copy: Json[] | undefined;
  list.forEach((item, i) => {
    if (!isRecord(item) || typeof item.name !== 'string' || typeof item.value !== 'string') return;
    const rule = matchHeaderRule(compiled.headers, item.name);
    const id = rule?.id ?? compiled.keys.match(item.name);
    if (id === undefined || !hideable(item.value)) return;
    const value =
      id === compiled.session
        ? hashSession(item.value, compiled, undefined, 'headers', state)
        : formatMarker(id, item.value, compiled.style);
    copy ??= list.slice();
    copy[i] = { ...item, value };
  });
  return copy ?? list;
}

/** A `[{name, value}]` cookie list with every value hidden: a cookie is a credential until shown otherwise. */
function cookieList(list: Json[], compiled: CompiledRules): Json[] {
  const rule = compiled.keys.match('cookie');
  if (rule === undefined) return list;
  let copy: Json[] | undefined;
  list.forEach((item, i) => {
    if (!isRecord(item) || !hideable(item.value)) return;
    copy ??= list.slice();
    copy[i] = { ...item, value: formatMarker(rule, item.value as Json, compiled.style) };
  });
  return copy ?? list;
}

function headerPass(
  value: Json,
  compiled: CompiledRules,
  state: TraceState | undefined,
  depth: number,
): Json {
  if (typeof value !== 'object' || value === null || depth > MAX_HEADER_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    value.forEach((item, i) => {
      const next = headerPass(item, compiled, state, depth + 1);
      if (next === item) return;
      copy ??= value.slice();
      copy[i] = next;
    });
    return copy ?? value;
  }
  let copy: Rec | undefined;
  for (const [key, item] of Object.entries(value)) {
    let next: Json = item;
    if (key === 'headers' && Array.isArray(item)) next = headerList(item, compiled, state);
    else if (key === 'headers' && isRecord(item) && Object.values(item).every(isHeaderValue)) {
      next = hideInHeaders(item as Record<string, string | string[]>, compiled, undefined, state);
    } else if (key === 'cookies' && Array.isArray(item)) next = cookieList(item, compiled);
    else if (key === 'url' && typeof item === 'string')
      next = hashSessionInUrl(item, compiled, undefined, 'url', state);
    else next = headerPass(item, compiled, state, depth + 1);
    if (next !== item) {
      copy ??= Object.fromEntries(Object.entries(value)) as Rec;
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? value;
}

function isHeaderValue(value: Json): boolean {
  return (
    typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))
  );
}

/**
 * Redacts a JSON document of another tool's format in place: the same value back when nothing needed hiding,
 * otherwise a copy of the same shape.
 *
 * @example redactDocument(JSON.parse(harText), compiled) // HAR with Authorization values hidden, still a HAR
 */
export function redactDocument(doc: Json, compiled: CompiledRules, state?: TraceState): Json {
  const headed = headerPass(doc, compiled, state, 0);
  return hideInJson(headed, compiled, { keyed: true });
}
