import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { childStates, type PathStates, rootStates, selectedBy } from './jsonpath.js';
import { formatMarker } from './marker.js';
import { type Hits, hideable, hideInText } from './values.js';

/** How a walk goes: which rules take part, and (for detection) where it is. */
interface Walk {
  compiled: CompiledRules;
  /** Key and path rules apply (message payloads); off for event fields, which only get value rules. */
  keyed: boolean;
  hits: Hits | undefined;
  /** The keys from the root to the current node; kept only when `hits` wants to know where things are. */
  stack: Array<string | number>;
  root: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `$.params.arguments.apiKey`, `$.content[0]`, `$['x-api-key']`; with root '' a plain `message`, `error.detail`. */
export function formatPath(root: string, stack: ReadonlyArray<string | number>): string {
  let out = root;
  for (const key of stack) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `['${key.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`;
  }
  return out;
}

function hide(walk: Walk, rule: string, value: Json): Json {
  walk.hits?.hit(rule, formatPath(walk.root, walk.stack), value);
  return formatMarker(rule, value, walk.compiled.style);
}

function node(walk: Walk, value: Json, states: PathStates | undefined): Json {
  if (typeof value === 'string') {
    return hideInText(value, walk.compiled, walk.hits, walk.hits && formatPath(walk.root, walk.stack));
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i] as Json;
      const next = child(walk, item, i, states);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  // Copies are built with Object.fromEntries: `__proto__` and `constructor` keys stay own data properties, and
  // nothing is ever assigned through `obj[key] =`.
  const record = value as Record<string, Json>;
  const keys = Object.keys(record);
  let entries: Array<[string, Json]> | undefined;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const item = record[key] as Json;
    const next = child(walk, item, key, states);
    if (next !== item && entries === undefined) {
      entries = [];
      for (let j = 0; j < i; j += 1) entries.push([keys[j]!, record[keys[j]!] as Json]);
    }
    entries?.push([key, next]);
  }
  return entries === undefined ? value : Object.fromEntries(entries);
}

function child(walk: Walk, item: Json, key: string | number, states: PathStates | undefined): Json {
  const { compiled } = walk;
  let next: PathStates | undefined;
  let rule: string | undefined;
  if (states !== undefined) {
    next = childStates(compiled.paths, states, key);
    const selected = selectedBy(compiled.paths, next);
    if (selected >= 0) rule = compiled.pathIds[selected];
    if (next.length === 0) next = undefined;
  }
  if (rule === undefined && walk.keyed && typeof key === 'string') rule = compiled.keys.match(key);
  if (walk.hits !== undefined) walk.stack.push(key);
  const out = rule !== undefined && hideable(item) ? hide(walk, rule, item) : node(walk, item, next);
  if (walk.hits !== undefined) walk.stack.pop();
  return out;
}

/**
 * Redacts a JSON value (a message's `raw`): key rules by key name, path rules by JSONPath from `$` (this value),
 * value rules on every string. Returns the same value when nothing changed, otherwise a copy — the input is never
 * touched.
 *
 * @example redactJson({ params: { apiKey: 'abc', max_tokens: 5 } }, compile(config)) // { params: { apiKey: '[REDACTED:api-key]', max_tokens: 5 } }
 */
export function redactJson(value: Json, compiled: CompiledRules): Json {
  return hideInJson(value, compiled, { keyed: true });
}

/** {@link redactJson} with detection hooks, or value rules only (`keyed: false`, for event fields). */
export function hideInJson(
  value: Json,
  compiled: CompiledRules,
  how: {
    keyed: boolean;
    /** Path rules apply (default): off for values that are not a message, whose `$` they would misread. */
    paths?: boolean;
    hits?: Hits | undefined;
    root?: string;
    at?: Array<string | number>;
  },
): Json {
  const walk: Walk = {
    compiled,
    keyed: how.keyed,
    hits: how.hits,
    stack: how.at ?? [],
    root: how.root ?? '$',
  };
  if (!how.keyed || how.paths === false || compiled.paths.length === 0) return node(walk, value, undefined);
  const states = rootStates(compiled.paths);
  const selected = selectedBy(compiled.paths, states);
  const rule = selected >= 0 ? compiled.pathIds[selected] : undefined;
  if (rule !== undefined && hideable(value)) return hide(walk, rule, value);
  return node(walk, value, states);
}
