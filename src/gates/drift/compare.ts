import { canonicalJson } from '../../trace/canonical-json.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { ChangeClass, DriftChange } from './classes.js';
import { type DefinitionKind, type Definitions, KINDS } from './definitions.js';
import { type SchemaChange, schemaChanges } from './schema-changes.js';

/** Each hint's value when the server leaves it out (MCP's defaults), and which way is the safer one. */
const HINTS: readonly { hint: string; fallback: boolean; safe: boolean }[] = [
  { hint: 'readOnlyHint', fallback: false, safe: true },
  { hint: 'destructiveHint', fallback: true, safe: false },
  { hint: 'idempotentHint', fallback: false, safe: true },
  { hint: 'openWorldHint', fallback: true, safe: false },
];

const TEXT = new Set(['description', 'title']);
const same = (a: Json | undefined, b: Json | undefined) => canonicalJson(a) === canonicalJson(b);

/**
 * Every change between two sets of definitions, classed: breaking, risky, additive or cosmetic. Kinds the new side
 * never listed are not compared (a recording that never asked prompts/list says nothing about prompts).
 *
 * @example compareDefinitions(base, next).filter((c) => c.class === 'breaking')
 */
export function compareDefinitions(base: Definitions, next: Definitions): DriftChange[] {
  const changes: DriftChange[] = [];
  for (const { kind, label } of KINDS) {
    const was = base[kind];
    const now = next[kind];
    if (was === undefined || now === undefined) continue;
    for (const [item, before] of was) {
      const after = now.get(item);
      if (after === undefined) {
        changes.push({
          class: 'breaking',
          kind,
          item,
          path: '$',
          before,
          message: `${label} "${item}" was removed`,
        });
        continue;
      }
      for (const change of itemChanges(kind, before, after))
        changes.push({ ...change, kind, item, message: `${label} "${item}": ${change.message}` });
    }
    for (const [item, after] of now)
      if (!was.has(item))
        changes.push({
          class: 'additive',
          kind,
          item,
          path: '$',
          after,
          message: `${label} "${item}" was added`,
        });
  }
  return changes;
}

function itemChanges(kind: DefinitionKind, before: JsonObject, after: JsonObject): SchemaChange[] {
  const changes: SchemaChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (same(before[key], after[key])) continue;
    const path = `$.${key}`;
    if (TEXT.has(key))
      changes.push({
        class: 'cosmetic',
        path,
        before: before[key],
        after: after[key],
        message: `the ${key} changed`,
      });
    else if (kind === 'tools' && key === 'inputSchema')
      changes.push(...schemaChanges(before[key], after[key], path, 'input'));
    else if (kind === 'tools' && key === 'outputSchema')
      changes.push(...outputChanges(before[key], after[key]));
    else if (kind === 'tools' && key === 'annotations')
      changes.push(...annotationChanges(before[key], after[key]));
    else if (kind === 'prompts' && key === 'arguments')
      changes.push(...argumentChanges(before[key], after[key]));
    else changes.push(otherChange(key, before[key], after[key]));
  }
  return changes;
}

function outputChanges(before: Json | undefined, after: Json | undefined): SchemaChange[] {
  if (before === undefined)
    return [{ class: 'additive', path: '$.outputSchema', after, message: 'an outputSchema was added' }];
  if (after === undefined)
    return [{ class: 'breaking', path: '$.outputSchema', before, message: 'the outputSchema was removed' }];
  return schemaChanges(before, after, '$.outputSchema', 'output');
}

function annotationChanges(before: Json | undefined, after: Json | undefined): SchemaChange[] {
  const was = isObject(before) ? before : {};
  const now = isObject(after) ? after : {};
  const changes: SchemaChange[] = [];
  for (const { hint, fallback, safe } of HINTS) {
    const from = typeof was[hint] === 'boolean' ? was[hint] : fallback;
    const to = typeof now[hint] === 'boolean' ? now[hint] : fallback;
    if (from === to) continue;
    const lessSafe = from === safe;
    changes.push({
      class: lessSafe ? 'risky' : 'cosmetic',
      path: `$.annotations.${hint}`,
      before: from,
      after: to,
      message: `${hint} went from ${from} to ${to}${lessSafe ? ' (less safe)' : ''}`,
    });
  }
  for (const key of new Set([...Object.keys(was), ...Object.keys(now)]))
    if (!HINTS.some((h) => h.hint === key) && !same(was[key], now[key]))
      changes.push({
        class: 'cosmetic',
        path: `$.annotations.${key}`,
        before: was[key],
        after: now[key],
        message: `annotation ${key} changed`,
      });
  return changes;
}

function argumentChanges(before: Json | undefined, after: Json | undefined): SchemaChange[] {
  const byName = (list: Json | undefined) =>
    new Map((Array.isArray(list) ? list : []).filter(isObject).map((a) => [String(a.name), a] as const));
  const was = byName(before);
  const now = byName(after);
  const changes: SchemaChange[] = [];
  for (const [name, arg] of was) {
    const next = now.get(name);
    const path = `$.arguments.${name}`;
    if (next === undefined)
      changes.push({ class: 'breaking', path, before: arg, message: `argument "${name}" was removed` });
    else if (arg.required !== true && next.required === true)
      changes.push({
        class: 'breaking',
        path: `${path}.required`,
        before: false,
        after: true,
        message: `argument "${name}" was made required`,
      });
    else if (!same(arg, next)) {
      const onlyText = Object.keys({ ...arg, ...next }).every((k) => TEXT.has(k) || same(arg[k], next[k]));
      const cls: ChangeClass = onlyText
        ? 'cosmetic'
        : arg.required === true && next.required !== true
          ? 'additive'
          : 'risky';
      changes.push({ class: cls, path, before: arg, after: next, message: `argument "${name}" changed` });
    }
  }
  for (const [name, arg] of now)
    if (!was.has(name))
      changes.push({
        class: arg.required === true ? 'breaking' : 'additive',
        path: `$.arguments.${name}`,
        after: arg,
        message: `${arg.required === true ? 'a required' : 'an optional'} argument "${name}" was added`,
      });
  return changes;
}

function otherChange(key: string, before: Json | undefined, after: Json | undefined): SchemaChange {
  // Icons, meta and the like change what a client shows, not what it can call.
  const cosmetic = key === 'icons' || key === '_meta' || key === 'name';
  return {
    class: cosmetic ? 'cosmetic' : 'risky',
    path: `$.${key}`,
    before,
    after,
    message: `${key} changed`,
  };
}
