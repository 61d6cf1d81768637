import { canonicalJson } from '../../trace/canonical-json.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { ChangeClass } from './classes.js';

/** A change found inside a schema, before the item and kind are named. */
export interface SchemaChange {
  class: ChangeClass;
  path: string;
  before?: Json | undefined;
  after?: Json | undefined;
  message: string;
}

/** Which way data flows through a schema: clients send inputs, servers send outputs. */
export type Flow = 'input' | 'output';

const TEXT = new Set(['description', 'title', '$comment', 'examples']);
const same = (a: Json | undefined, b: Json | undefined) => canonicalJson(a) === canonicalJson(b);
const types = (schema: JsonObject): string[] | undefined =>
  typeof schema.type === 'string'
    ? [schema.type]
    : Array.isArray(schema.type)
      ? (schema.type as string[])
      : undefined;
const requiredOf = (schema: JsonObject): Set<string> =>
  new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
  );

/**
 * The changes between two JSON Schemas, classed for the direction data flows: for an input schema a property made
 * required, a type or enum narrowed or a format added breaks callers; for an output schema a property removed
 * breaks readers. Text (description, title) is cosmetic; other constraints changed are risky.
 *
 * @example schemaChanges({ type: 'object' }, { type: 'object', required: ['a'], properties: { a: {} } }, '$.inputSchema', 'input')
 */
export function schemaChanges(
  before: Json | undefined,
  after: Json | undefined,
  path: string,
  flow: Flow,
): SchemaChange[] {
  if (!isObject(before) || !isObject(after)) {
    if (same(before, after)) return [];
    return [{ class: 'risky', path, before, after, message: `the schema at ${path} changed` }];
  }
  const changes: SchemaChange[] = [];
  changes.push(...typeChanges(before, after, path, flow));
  changes.push(...propertyChanges(before, after, path, flow));
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'type' || key === 'properties' || key === 'required' || same(before[key], after[key]))
      continue;
    const at = `${path}.${key}`;
    if (TEXT.has(key))
      changes.push({
        class: 'cosmetic',
        path: at,
        before: before[key],
        after: after[key],
        message: `the ${key} at ${path} changed`,
      });
    else if (key === 'items' || key === 'additionalProperties')
      changes.push(...schemaChanges(before[key], after[key], at, flow));
    else changes.push(constraintChange(key, before[key], after[key], at, flow));
  }
  return changes;
}

function typeChanges(before: JsonObject, after: JsonObject, path: string, flow: Flow): SchemaChange[] {
  const was = types(before);
  const now = types(after);
  if (same(before.type, after.type)) return [];
  // Accepting fewer types breaks an input; sending other types breaks an output's readers.
  const narrowed = was === undefined || (now !== undefined && was.some((t) => !now.includes(t)));
  const widened = now === undefined || (was !== undefined && now.some((t) => !was.includes(t)));
  const breaks = flow === 'input' ? narrowed : widened || narrowed;
  return [
    {
      class: breaks ? 'breaking' : 'additive',
      path: `${path}.type`,
      before: before.type,
      after: after.type,
      message: `the type at ${path} changed from ${canonicalJson(before.type)} to ${canonicalJson(after.type)}`,
    },
  ];
}

function propertyChanges(before: JsonObject, after: JsonObject, path: string, flow: Flow): SchemaChange[] {
  const was = isObject(before.properties) ? before.properties : {};
  const now = isObject(after.properties) ? after.properties : {};
  const wasRequired = requiredOf(before);
  const nowRequired = requiredOf(after);
  const changes: SchemaChange[] = [];
  for (const name of new Set([...Object.keys(was), ...Object.keys(now), ...wasRequired, ...nowRequired])) {
    const at = `${path}.properties.${name}`;
    if (!(name in now) && name in was) {
      changes.push({
        class: flow === 'output' ? 'breaking' : 'risky',
        path: at,
        before: was[name],
        message: `${flow === 'output' ? 'output' : 'input'} property "${name}" was removed`,
      });
      continue;
    }
    if (!(name in was) && name in now) {
      const required = nowRequired.has(name);
      changes.push({
        class: flow === 'input' && required ? 'breaking' : 'additive',
        path: at,
        after: now[name],
        message: `${required && flow === 'input' ? 'a required' : 'an optional'} ${flow} property "${name}" was added`,
      });
      continue;
    }
    if (flow === 'input' && !wasRequired.has(name) && nowRequired.has(name))
      changes.push({
        class: 'breaking',
        path: `${path}.required`,
        before: false,
        after: true,
        message: `input property "${name}" was made required`,
      });
    else if (flow === 'input' && wasRequired.has(name) && !nowRequired.has(name))
      changes.push({
        class: 'additive',
        path: `${path}.required`,
        before: true,
        after: false,
        message: `input property "${name}" was made optional`,
      });
    else if (flow === 'output' && wasRequired.has(name) && !nowRequired.has(name))
      changes.push({
        class: 'breaking',
        path: `${path}.required`,
        before: true,
        after: false,
        message: `output property "${name}" is no longer always present`,
      });
    changes.push(...schemaChanges(was[name], now[name], at, flow));
  }
  return changes;
}

function constraintChange(
  key: string,
  before: Json | undefined,
  after: Json | undefined,
  path: string,
  flow: Flow,
): SchemaChange {
  const show = (v: Json | undefined) => (v === undefined ? 'none' : canonicalJson(v));
  const of = path.slice(0, path.lastIndexOf('.'));
  if (key === 'enum' && Array.isArray(before) && Array.isArray(after)) {
    const dropped = before.filter((v) => !after.some((w) => same(v, w)));
    const shrunk = dropped.length > 0;
    return {
      class: (flow === 'input' ? shrunk : !shrunk || after.length > before.length) ? 'breaking' : 'additive',
      path,
      before,
      after,
      message: shrunk
        ? `the enum of ${of} lost ${dropped.map((v) => canonicalJson(v)).join(', ')}`
        : `the enum of ${of} gained values`,
    };
  }
  if (key === 'format') {
    const added = before === undefined || (after !== undefined && !same(before, after));
    return {
      class: added && flow === 'input' ? 'breaking' : 'risky',
      path,
      before,
      after,
      message: `the format of ${of} changed from ${show(before)} to ${show(after)}`,
    };
  }
  return {
    class: 'risky',
    path,
    before,
    after,
    message: `${key} of ${of} changed from ${show(before)} to ${show(after)}`,
  };
}
