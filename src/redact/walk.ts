import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { deepSecret } from './deep.js';
import { parseEmbedded, writeEmbedded } from './embedded.js';
import { childStates, type PathStates, rootStates, selectedBy } from './jsonpath.js';
import { formatMarker } from './marker.js';
import { DESCRIBED_VALUES, flatHeaderRules, isDescriptor, namedPair, tupleRules } from './pair-shapes.js';
import { specificRule } from './specific.js';
import { type Hits, hideable, hideInText, MAX_TEXT_DEPTH } from './values.js';

/** How a walk goes: which rules take part, and (for detection) where it is. */
interface Walk {
  compiled: CompiledRules;
  /** Key and path rules apply (message payloads); off for event fields, which only get value rules. */
  keyed: boolean;
  hits: Hits | undefined;
  /** The keys from the root to the current node; kept only when `hits` wants to know where things are. */
  stack: Array<string | number>;
  root: string;
  /** Strings-within-strings this walk sits in (a JSON text inside a string is walked one level down). */
  textDepth: number;
  /** Set when a subtree past {@link MAX_DEPTH} was kept as it was (it held nothing to hide). */
  deepKept: boolean;
  /** Replace such subtrees with a marker: set on the second pass over a value whose copy must be encodable. */
  dropDeep: boolean;
}

/**
 * Objects and arrays nested deeper than this are not walked recursively: their subtree is searched without
 * recursion and kept when clean, hidden whole when not. A real message never comes near; a hostile one nested
 * 10,000 deep costs linear time and no stack.
 */
export const MAX_DEPTH = 200;
/** The marker a subtree past MAX_DEPTH becomes when the copy around it must be written out (see Walk.dropDeep). */
const NESTING_RULE = 'nesting-limit';

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

function where(walk: Walk): string {
  return walk.hits === undefined ? '' : formatPath(walk.root, walk.stack);
}

/**
 * Redacts one string: JSON held in it is walked like a message (key rules included), anything else gets the value
 * rules. Returns the same string when nothing changed.
 *
 * @example hideInString('{"apiKey":"abc"}', compiled) // '{"apiKey":"[REDACTED:api-key]"}'
 */
export function hideInString(
  text: string,
  compiled: CompiledRules,
  hits?: Hits,
  at = 'text',
  textDepth = 0,
): string {
  if (textDepth < MAX_TEXT_DEPTH) {
    const embedded = parseEmbedded(text);
    if (embedded !== undefined) {
      const redacted = hideInJson(embedded, compiled, {
        keyed: true,
        paths: false,
        hits,
        root: `${at}#$`,
        textDepth: textDepth + 1,
      });
      return redacted === embedded ? text : writeEmbedded(text, redacted);
    }
  }
  return hideInText(text, compiled, hits, at, textDepth, hideNested);
}

/** Text decoded out of a string (base64) is redacted as a string value is. */
function hideNested(text: string, compiled: CompiledRules, depth: number, where: string): string {
  return hideInString(text, compiled, undefined, where, depth);
}

/**
 * Walks one value. `key` is the key it sits under; `described` is set for a JSON Schema descriptor under a secret's
 * name, whose `default`, `examples` … are hidden under that rule.
 */
function node(
  walk: Walk,
  value: Json,
  states: PathStates | undefined,
  depth: number,
  key?: string | number,
  described?: string,
): Json {
  if (typeof value === 'string')
    return hideInString(value, walk.compiled, walk.hits, where(walk), walk.textDepth);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return tooDeep(walk, value);
  if (Array.isArray(value)) {
    // `[["Authorization", "Bearer …"], …]` and `rawHeaders`: the name is an item, the secret the next one.
    const paired = walk.keyed
      ? (tupleRules(walk.compiled, value) ??
        (typeof key === 'string' ? flatHeaderRules(walk.compiled, key, value) : undefined))
      : undefined;
    let copy: Json[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i] as Json;
      const rule = paired?.get(i);
      const next =
        rule === undefined
          ? child(walk, item, i, states, undefined, depth)
          : Array.isArray(item)
            ? hidePairValue(walk, item, i, rule)
            : hideAt(walk, item, i, rule);
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
  const pair = walk.keyed ? namedPair(walk.compiled, record) : undefined;
  let entries: Array<[string, Json]> | undefined;
  let i = 0;
  // The own enumerable fields in Object.keys order; `for…in` with this own-property test makes no key list and reads
  // each field straight from where the object keeps it.
  for (const name in record) {
    if (!hasOwn.call(record, name)) continue;
    const item = record[name] as Json;
    const named = pair?.fields.has(name)
      ? pair.rule
      : described !== undefined && DESCRIBED_VALUES.has(name)
        ? described
        : undefined;
    const next = child(walk, item, name, states, named, depth);
    if (next !== item && entries === undefined) entries = entriesBefore(record, i);
    entries?.push([name, next]);
    i += 1;
  }
  return entries === undefined ? value : Object.fromEntries(entries);
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The first `count` own enumerable fields of `record`, as entries: what a copy starts with when a later field changed. */
function entriesBefore(record: Record<string, Json>, count: number): Array<[string, Json]> {
  const keys = Object.keys(record);
  const entries: Array<[string, Json]> = [];
  for (let j = 0; j < count; j += 1) entries.push([keys[j]!, record[keys[j]!] as Json]);
  return entries;
}

/** An item hidden under `rule`, found where it is (a list's value after its header name). */
function hideAt(walk: Walk, item: Json, index: number, rule: string): Json {
  if (!hideable(item)) return item;
  if (walk.hits !== undefined) walk.stack.push(index);
  const out = hide(walk, specificRule(rule, item, walk.compiled), item);
  if (walk.hits !== undefined) walk.stack.pop();
  return out;
}

/** A `[name, value]` pair with its value hidden under `rule`. */
function hidePairValue(walk: Walk, pair: Json[], index: number, rule: string): Json {
  if (walk.hits !== undefined) walk.stack.push(index);
  const value = hideAt(walk, pair[1] as Json, 1, rule);
  if (walk.hits !== undefined) walk.stack.pop();
  return value === pair[1] ? pair : [pair[0] as Json, value];
}

/** A subtree at MAX_DEPTH: searched without recursion, kept when it holds nothing to hide, hidden whole when it does. */
function tooDeep(walk: Walk, value: Json): Json {
  const rule = deepSecret(value, walk.compiled, walk.keyed, (text) =>
    hideInString(text, walk.compiled, undefined, '', walk.textDepth),
  );
  if (rule !== undefined) return hide(walk, rule, value);
  walk.hits?.unchecked?.(
    where(walk),
    `JSON nested deeper than ${MAX_DEPTH} levels (searched, kept as it was)`,
  );
  if (walk.dropDeep) return formatMarker(NESTING_RULE, value, walk.compiled.style);
  walk.deepKept = true;
  return value;
}

function child(
  walk: Walk,
  item: Json,
  key: string | number,
  states: PathStates | undefined,
  named: string | undefined,
  depth: number,
): Json {
  const { compiled } = walk;
  let next: PathStates | undefined;
  let rule: string | undefined;
  if (states !== undefined) {
    next = childStates(compiled.paths, states, key);
    const selected = selectedBy(compiled.paths, next);
    if (selected >= 0) rule = compiled.pathIds[selected];
    if (next.length === 0) next = undefined;
  }
  // A path rule names what its author pointed at; a key rule gives way to a value rule that knows the value's format.
  let byName = false;
  if (rule === undefined && walk.keyed && typeof key === 'string') {
    rule = compiled.keys.matchValue(key, item) ?? named;
    byName = rule !== undefined;
  }
  if (walk.hits !== undefined) walk.stack.push(key);
  let out: Json;
  if (rule !== undefined && byName && isDescriptor(item))
    // `"password": {"type": "string", …}` describes the field: walked, with the values it gives hidden.
    out = node(walk, item, next, depth + 1, key, rule);
  else if (rule !== undefined && hideable(item))
    out = hide(walk, byName ? specificRule(rule, item, compiled) : rule, item);
  else out = node(walk, item, next, depth + 1, key);
  if (walk.hits !== undefined) walk.stack.pop();
  return out;
}

/**
 * Redacts a JSON value (a message's `raw`): key rules by key name, path rules by JSONPath from `$` (this value),
 * value rules on every string, JSON inside strings walked the same way. Returns the same value when nothing changed,
 * otherwise a copy — the input is never touched.
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
    /** Strings-within-strings `value` sits in (JSON parsed out of a string is one level down). */
    textDepth?: number;
  },
): Json {
  const walk: Walk = {
    compiled,
    keyed: how.keyed,
    hits: how.hits,
    stack: how.at ?? [],
    root: how.root ?? '$',
    textDepth: how.textDepth ?? 0,
    deepKept: false,
    dropDeep: false,
  };
  const out = walkRoot(walk, value, how);
  // A copy must be written out with JSON.stringify, which cannot go as deep as JSON.parse: a kept deep subtree
  // would make the line unwritable. The rare line with both a secret and absurd nesting loses the deep part.
  if (out === value || !walk.deepKept) return out;
  return walkRoot({ ...walk, dropDeep: true, deepKept: false, hits: undefined, stack: [] }, value, how);
}

function walkRoot(walk: Walk, value: Json, how: { keyed: boolean; paths?: boolean }): Json {
  const { compiled } = walk;
  if (!how.keyed || how.paths === false || compiled.paths.length === 0)
    return node(walk, value, undefined, 0);
  const states = rootStates(compiled.paths);
  const selected = selectedBy(compiled.paths, states);
  const rule = selected >= 0 ? compiled.pathIds[selected] : undefined;
  if (rule !== undefined && hideable(value)) return hide(walk, rule, value);
  return node(walk, value, states, 0);
}
