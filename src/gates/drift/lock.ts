import { TapedeckError } from '../../base/errors.js';
import { canonicalJson } from '../../trace/canonical-json.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import { type Definitions, KINDS } from './definitions.js';

/** What marks a JSON file as a definitions lock file. */
export const LOCK_MARK = 'mcp-tapedeck/definitions';

/**
 * A lock file's text: the definitions as canonical JSON (keys sorted), each kind sorted by identity, two-space
 * indented so a change reads well in review and each item starts on a line of its own.
 *
 * @example renderLock({ tools: new Map([['echo', { name: 'echo', inputSchema: { type: 'object' } }]]) })
 */
export function renderLock(definitions: Definitions): string {
  const lock: Record<string, Json> = { lock: LOCK_MARK, version: 1 };
  for (const { kind } of KINDS) {
    const map = definitions[kind];
    if (map === undefined) continue;
    lock[kind] = [...map.keys()].sort().map((id) => JSON.parse(canonicalJson(map.get(id))) as Json);
  }
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** True when a parsed JSON value is a lock file. */
export function isLock(value: unknown): value is JsonObject {
  return isObject(value as Json) && (value as JsonObject).lock === LOCK_MARK;
}

/**
 * The definitions of a lock file's parsed JSON.
 *
 * @example parseLock(JSON.parse(text), 'tools.lock.json').tools?.get('echo')
 */
export function parseLock(value: JsonObject, file: string): Definitions {
  if (value.version !== 1)
    throw new TapedeckError(
      'input',
      `${file}: lock file version ${canonicalJson(value.version)} is not one this tapedeck reads (1)`,
    );
  const definitions: Definitions = {};
  for (const { kind, key } of KINDS) {
    const list = value[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new TapedeckError('input', `${file}: "${kind}" must be a list`);
    const map = new Map<string, JsonObject>();
    for (const entry of list) {
      if (!isObject(entry) || typeof entry[key] !== 'string')
        throw new TapedeckError('input', `${file}: every entry of "${kind}" needs a string "${key}"`);
      map.set(entry[key], entry);
    }
    definitions[kind] = map;
  }
  return definitions;
}

/**
 * The 1-based line of each item in a lock file's text, by kind and identity, for reports that point at it.
 *
 * @example lockLines(renderLock(defs)).get('tools\u0000echo') // → 6
 */
export function lockLines(text: string): Map<string, number> {
  const lines = text.split('\n');
  const found = new Map<string, number>();
  let kind: string | undefined;
  let start = 0;
  lines.forEach((line, i) => {
    const section = /^ {2}"(\w+)": \[/.exec(line);
    if (section) kind = section[1];
    if (line === '    {') start = i + 1;
    const id = /^ {6}"(name|uri|uriTemplate)": (".*"),?$/.exec(line);
    if (id && kind !== undefined) {
      const spec = KINDS.find((k) => k.kind === kind);
      if (spec?.key === id[1]) found.set(`${kind}\u0000${JSON.parse(id[2]!) as string}`, start);
    }
  });
  return found;
}
