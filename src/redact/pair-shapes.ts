import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { matchHeaderRule } from './key-words.js';
import { headerRuleFor } from './pairs.js';

/**
 * Names and values that JSON keeps apart: the secret's name is a value of one field and the secret the value of
 * another, so no key says "password". Header lists (`{"name": "Authorization", "value": …}`, HAR, fetch's
 * `[["Authorization", …]]`, Node's flat `rawHeaders`), environment lists (`{"name": "DB_PASSWORD", "value": …}`,
 * AWS's `{"Name": …, "Value": …}`, CloudFormation's `ParameterKey` / `ParameterValue`), form fields
 * (`{"type": "password", "value": …}`, `{"label": "Password", "value": …}`) — and JSON Schema descriptors, whose
 * key is a secret's name while the object only describes it (`"password": {"type": "string", "minLength": 12}`).
 */

/** Fields of an object that hold the value a name field names, as the common shapes spell them. */
const VALUE_FIELDS: ReadonlySet<string> = new Set([
  'value',
  'Value',
  'VALUE',
  'values',
  'Values',
  'val',
  'Val',
  'v',
  'ParameterValue',
  'parameterValue',
  'defaultValue',
  'DefaultValue',
]);

/** The first characters of the value fields, as a table by character code. */
const VALUE_STARTS = new Uint8Array(128);
for (const field of VALUE_FIELDS) VALUE_STARTS[field.charCodeAt(0)] = 1;

/** Fields that name what the value field holds, in the order they are asked. */
const NAME_FIELDS = [
  'name',
  'Name',
  'key',
  'Key',
  'header',
  'Header',
  'field',
  'Field',
  'label',
  'Label',
  'variable',
  'Variable',
  'var',
  'param',
  'parameter',
  'Parameter',
  'ParameterKey',
  'parameterKey',
  'ParameterName',
  'parameterName',
  'k',
  'n',
  'type',
  'inputType',
  'id',
] as const;

/** Names longer than this are data, not a name. */
const MAX_NAME = 128;

/** The value fields of a `{name, value}` object and the rule its name falls under. */
export interface NamedPair {
  rule: string;
  fields: ReadonlySet<string>;
}

/**
 * The value fields of `record` to hide and the rule that names them, when one of its name fields names a secret:
 * `{"name": "DB_PASSWORD", "value": "…"}` → `password`. Header names go by the header rules, others by the key rules
 * (which step aside for plain values: `{"name": "PWD", "value": "/home/me"}` stays). Only the record's own fields count.
 *
 * @example namedPair(compiled, { key: 'Authorization', value: 'Basic …' }) // { rule: 'authorization-header', fields: Set {'value'} }
 */
export function namedPair(compiled: CompiledRules, record: Record<string, Json>): NamedPair | undefined {
  // Most objects have no value field: they cost a character test per key (a set lookup for the few keys starting
  // like one) and no allocation.
  let listed: string[] | undefined;
  for (const key in record) {
    if (VALUE_STARTS[key.charCodeAt(0)] !== 1 || !VALUE_FIELDS.has(key) || !hasOwn.call(record, key))
      continue;
    listed ??= [];
    listed.push(key);
  }
  if (listed === undefined) return undefined;
  const fields = new Set(listed);
  const value = record[listed[0]!];
  for (const field of NAME_FIELDS) {
    const name = record[field];
    if (typeof name !== 'string' || name.length > MAX_NAME || fields.has(field)) continue;
    const rule = headerRuleFor(compiled, name)?.[0] ?? compiled.keys.matchValue(name, value);
    if (rule !== undefined) return { rule, fields };
  }
  return undefined;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** `[name, value]`: a two-item list whose first item is a short string. */
function isTuple(item: Json | undefined): item is [string, Json] {
  return (
    Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && item[0].length <= MAX_NAME
  );
}

/** The rule a header or variable name falls under, for a value of a list of pairs. */
function nameRule(compiled: CompiledRules, name: string, value: Json): string | undefined {
  return matchHeaderRule(compiled.headers, name)?.id ?? compiled.keys.matchValue(name, value);
}

/**
 * For a list of `[name, value]` pairs (fetch's header entries, `Object.entries` of an environment), the rule for
 * each pair whose name names a secret, by index; undefined for any other list. Only a list whose items are all
 * pairs counts: `["password", "username"]` (a schema's `required`) is a list of names, not a pair.
 *
 * @example tupleRules(compiled, [['Authorization', 'Bearer …'], ['Accept', '*\/*']]) // Map { 0 → 'authorization-header' }
 */
export function tupleRules(compiled: CompiledRules, list: readonly Json[]): Map<number, string> | undefined {
  if (!isTuple(list[0]) || !list.every(isTuple)) return undefined;
  const rules = new Map<number, string>();
  list.forEach((item, i) => {
    const [name, value] = item as [string, Json];
    const rule = nameRule(compiled, name, value);
    if (rule !== undefined) rules.set(i, rule);
  });
  return rules.size > 0 ? rules : undefined;
}

/** `headers`, `rawHeaders`, `REQUEST_HEADERS`: a key that names a list of headers. */
function endsWithHeaders(key: string): boolean {
  return key.length >= 7 && key.slice(-7).toLowerCase() === 'headers';
}

/** A header field name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

/**
 * For a flat list of header names and values under a key ending in `headers` (Node's `rawHeaders`:
 * `["Host", "a", "Authorization", "Bearer …"]`), the rule for each value whose header is a credential's, by the
 * value's index; undefined when the list is not such a list.
 *
 * @example flatHeaderRules(compiled, 'rawHeaders', ['Cookie', 'sid=…']) // Map { 1 → 'cookie-header' }
 */
export function flatHeaderRules(
  compiled: CompiledRules,
  key: string,
  list: readonly Json[],
): Map<number, string> | undefined {
  if (list.length < 2 || list.length % 2 !== 0 || !endsWithHeaders(key)) return undefined;
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i];
    if (typeof name !== 'string' || !HEADER_NAME.test(name) || typeof list[i + 1] !== 'string')
      return undefined;
  }
  const rules = new Map<number, string>();
  for (let i = 0; i < list.length; i += 2) {
    const rule = matchHeaderRule(compiled.headers, list[i] as string)?.id;
    if (rule !== undefined) rules.set(i + 1, rule);
  }
  return rules.size > 0 ? rules : undefined;
}

/** The JSON types a schema's `type` names. */
const SCHEMA_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
  'password',
]);

/** Keywords a JSON Schema (or a form's field descriptor) is made of. */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'title',
  'description',
  'format',
  'default',
  'examples',
  'example',
  'const',
  'enum',
  'enumNames',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'readOnly',
  'writeOnly',
  'deprecated',
  'nullable',
  'contentEncoding',
  'contentMediaType',
  '$ref',
  '$id',
  '$schema',
  '$comment',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'label',
  'placeholder',
  'hint',
]);

/** The keywords of a descriptor that hold a value of the thing described: hidden under its name's rule. */
export const DESCRIBED_VALUES: ReadonlySet<string> = new Set([
  'default',
  'examples',
  'example',
  'const',
  'enum',
]);

/**
 * True when `value` describes a field rather than holds it: an object of JSON Schema keywords only, with a `type`
 * (or `$ref`, `anyOf`, `oneOf`) — `"password": {"type": "string", "format": "password"}` in a tool's input schema or
 * an elicitation's requested schema.
 *
 * @example isDescriptor({ type: 'string', minLength: 12 }) // true; isDescriptor({ type: 'rich_text', rich_text: [] }) // false
 */
export function isDescriptor(value: Json): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let typed = false;
  for (const key of Object.keys(value)) {
    if (!SCHEMA_KEYWORDS.has(key)) return false;
    const entry = value[key];
    if (key === 'type') {
      const types = Array.isArray(entry) ? entry : [entry];
      if (!types.every((t) => typeof t === 'string' && SCHEMA_TYPES.has(t))) return false;
      typed = true;
    } else if (key === '$ref' || key === 'anyOf' || key === 'oneOf') typed = true;
  }
  return typed;
}
