import { TapedeckError } from '../base/errors.js';

/**
 * The JSONPath subset path rules use: `$`, `.name`, `['any name']` / `["any name"]` (backslash escapes the quote and
 * itself), `[n]`, `[*]`, `.*`, and `..` before any of them (`..name`, `..*`, `..['a b']`). Paths are matched while
 * the engine walks a message — no node lists are built.
 */

export type PathSelector =
  | { kind: 'name'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' };

/** One step of a path: what it selects, and whether it looks at all descendants (`..`) or only children. */
export interface PathSegment {
  descendant: boolean;
  selector: PathSelector;
}

const SUPPORTED = "supported: $, .name, ['name'], [n], [*], .*, ..name, ..*";

function malformed(path: string, position: number, problem: string): TapedeckError {
  return new TapedeckError(
    'input',
    `JSONPath ${JSON.stringify(path)} is malformed at position ${position}: ${problem} (${SUPPORTED})`,
  );
}

// RFC 9535 member-name shorthand, plus `-` and `$` which keys often hold; anything else goes in ['…'].
function isNameChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45 ||
    code === 36 ||
    code > 127
  );
}

/**
 * Parses a path of the supported subset; a malformed one throws a TapedeckError naming the path, the position
 * and what was expected there.
 *
 * @example parsePath("$..['api key']") // [{ descendant: true, selector: { kind: 'name', name: 'api key' } }]
 */
export function parsePath(path: string): PathSegment[] {
  if (!path.startsWith('$')) throw malformed(path, 0, 'expected `$` to start the path');
  const segments: PathSegment[] = [];
  let at = 1;
  while (at < path.length) {
    let descendant = false;
    const ch = path[at];
    if (ch === '.') {
      descendant = path[at + 1] === '.';
      at += descendant ? 2 : 1;
      if (path[at] === '[' && descendant) {
        const [selector, next] = parseBracket(path, at);
        segments.push({ descendant, selector });
        at = next;
        continue;
      }
      if (path[at] === '*') {
        segments.push({ descendant, selector: { kind: 'wildcard' } });
        at += 1;
        continue;
      }
      const start = at;
      while (at < path.length && isNameChar(path.charCodeAt(at))) at += 1;
      if (at === start) {
        throw malformed(path, at, `expected a name or \`*\` after \`${descendant ? '..' : '.'}\``);
      }
      segments.push({ descendant, selector: { kind: 'name', name: path.slice(start, at) } });
      continue;
    }
    if (ch === '[') {
      const [selector, next] = parseBracket(path, at);
      segments.push({ descendant, selector });
      at = next;
      continue;
    }
    throw malformed(path, at, `unexpected ${JSON.stringify(ch)}; expected \`.\` or \`[\``);
  }
  return segments;
}

/** Parses `[…]` starting at `open`; returns the selector and the position after `]`. */
function parseBracket(path: string, open: number): [PathSelector, number] {
  let at = open + 1;
  const ch = path[at];
  let selector: PathSelector;
  if (ch === '*') {
    selector = { kind: 'wildcard' };
    at += 1;
  } else if (ch === "'" || ch === '"') {
    let name = '';
    at += 1;
    for (;;) {
      const c = path[at];
      if (c === undefined) throw malformed(path, at, `unterminated quoted name; expected a closing ${ch}`);
      if (c === ch) break;
      if (c === '\\') {
        const escaped = path[at + 1];
        if (escaped === undefined) throw malformed(path, at, 'a backslash ends the path');
        name += escaped;
        at += 2;
        continue;
      }
      name += c;
      at += 1;
    }
    at += 1;
    selector = { kind: 'name', name };
  } else {
    const start = at;
    while (at < path.length && path.charCodeAt(at) >= 48 && path.charCodeAt(at) <= 57) at += 1;
    if (at === start) {
      throw malformed(
        path,
        at,
        "expected a quoted name, an index or `*` inside `[ ]` (e.g. ['name'], [0], [*])",
      );
    }
    selector = { kind: 'index', index: Number(path.slice(start, at)) };
  }
  if (path[at] !== ']') throw malformed(path, at, 'expected `]`');
  return [selector, at + 1];
}

/**
 * Where each path rule stands at one node of the walk, flattened as pairs [rule, segment, rule, segment, …]:
 * rule `r` has matched its first `segment` steps on the way here. A pair whose segment equals the path's length
 * means the node itself is selected.
 */
export type PathStates = readonly number[];

/** The states at the root: every path at its first step. */
export function rootStates(paths: readonly (readonly PathSegment[])[]): number[] {
  const states: number[] = [];
  for (let rule = 0; rule < paths.length; rule += 1) states.push(rule, 0);
  return states;
}

/** The index of the first path rule that selects the node these states belong to, or -1. */
export function selectedBy(paths: readonly (readonly PathSegment[])[], states: PathStates): number {
  let first = -1;
  for (let i = 0; i < states.length; i += 2) {
    const rule = states[i] as number;
    if (states[i + 1] === paths[rule]?.length && (first < 0 || rule < first)) first = rule;
  }
  return first;
}

function selects(selector: PathSelector, key: string | number): boolean {
  if (selector.kind === 'wildcard') return true;
  return selector.kind === 'name' ? key === selector.name : key === selector.index;
}

/** The states at the child `key` (an object key, or an array index) of a node in `states`. */
export function childStates(
  paths: readonly (readonly PathSegment[])[],
  states: PathStates,
  key: string | number,
): number[] {
  const next: number[] = [];
  const add = (rule: number, segment: number) => {
    for (let i = 0; i < next.length; i += 2) if (next[i] === rule && next[i + 1] === segment) return;
    next.push(rule, segment);
  };
  for (let i = 0; i < states.length; i += 2) {
    const rule = states[i] as number;
    const at = states[i + 1] as number;
    const segment = paths[rule]?.[at];
    if (segment === undefined) continue;
    if (selects(segment.selector, key)) add(rule, at + 1);
    // `..` looks at every level below, so the step stays pending for the child's children too.
    if (segment.descendant) add(rule, at);
  }
  return next;
}
