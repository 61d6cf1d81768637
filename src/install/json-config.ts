import {
  getNodeValue,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import { isRecord, MARKER_KEY, type RemoteMarker, type StdioMarker } from './entry.js';
import type { MapPath } from './targets.js';
import { type ConfigProblem, positionOf, type TextEdit } from './text.js';

/**
 * JSON and JSONC client configs, edited as text: every change is a small splice at a known place, so comments,
 * formatting and keys tapedeck does not know stay as they were, and uninstall splices the same text back out.
 */

/** One server entry: where it sits and what it holds. */
export interface JsonSlot {
  name: string;
  /** Key path from the root to the entry, e.g. ['projects', '/home/me/app', 'mcpServers', 'everything']. */
  path: string[];
  node: Node;
  value: unknown;
  marker: unknown;
}

/** Parses JSONC (comments and trailing commas allowed); the first syntax error with its line and column. */
export function parseJsonConfig(text: string): { root: Node | undefined; problem?: ConfigProblem } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = positionOf(text, first.offset);
    return { root, problem: { line, column, message: `${printParseErrorCode(first.error)}` } };
  }
  if (root !== undefined && root.type !== 'object')
    return { root, problem: { line: 1, column: 1, message: 'the file is not a JSON object' } };
  return { root };
}

/** Every server entry under the map paths (`*` matches every key at its level). */
export function jsonSlots(root: Node | undefined, maps: readonly MapPath[]): JsonSlot[] {
  const slots: JsonSlot[] = [];
  const walk = (node: Node, rest: readonly string[], path: string[]) => {
    if (node.type !== 'object') return;
    if (rest.length === 0) {
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (key === undefined || value === undefined) continue;
        const entry = getNodeValue(value) as unknown;
        const name = String(key.value);
        slots.push({
          name,
          path: [...path, name],
          node: value,
          value: entry,
          marker: isRecord(entry) ? entry[MARKER_KEY] : undefined,
        });
      }
      return;
    }
    const [head, ...tail] = rest;
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (key === undefined || value === undefined) continue;
      if (head === '*' || key.value === head) walk(value, tail, [...path, String(key.value)]);
    }
  };
  if (root !== undefined) for (const map of maps) walk(root, map, []);
  return slots;
}

function property(entry: Node, key: string): Node | undefined {
  return entry.children?.find((prop) => prop.children?.[0]?.value === key);
}

const end = (node: Node) => node.offset + node.length;

/** The white space new properties of this object start with: a newline and the indent, or one space. */
function gapOf(text: string, node: Node, first: Node | undefined, open = 1): string {
  if (first === undefined) return ' ';
  const gap = text.slice(node.offset + open, first.offset);
  if (!gap.includes('\n')) return ' ';
  // Files written on Windows keep their CRLF line ends.
  return `${gap.includes('\r\n') ? '\r\n' : '\n'}${gap.slice(gap.lastIndexOf('\n') + 1)}`;
}

/**
 * The edits that wrap a stdio entry: `command` replaced, tapedeck's arguments put before the original ones (or an
 * `args` property added), and the marker appended as the last property.
 */
export function wrapStdioEdits(text: string, slot: JsonSlot, command: string, prefix: string[]): TextEdit[] {
  const entry = slot.node;
  const commandValue = property(entry, 'command')?.children?.[1];
  if (commandValue === undefined) throw new Error(`${slot.name}: no command to wrap`);
  const argsValue = property(entry, 'args')?.children?.[1];
  const gap = gapOf(text, entry, entry.children?.[0]);
  const original: StdioMarker['original'] = { command: String(commandValue.value) };
  const edits: TextEdit[] = [
    { offset: commandValue.offset, length: commandValue.length, text: JSON.stringify(command) },
  ];
  if (argsValue !== undefined && argsValue.type === 'array') {
    original.args = getNodeValue(argsValue) as unknown[];
    const first = argsValue.children?.[0];
    const between = gapOf(text, argsValue, first);
    const sep = between === ' ' ? ', ' : `,${between}`;
    const items = prefix.map((arg) => JSON.stringify(arg)).join(sep);
    edits.push({
      offset: first?.offset ?? argsValue.offset + 1,
      length: 0,
      text: first ? items + sep : items,
    });
  } else if (argsValue === undefined) {
    const items = prefix.map((arg) => JSON.stringify(arg)).join(', ');
    edits.push({ offset: end(commandValue), length: 0, text: `,${gap}"args": [${items}]` });
  } else throw new Error(`${slot.name}: its args are not an array`);
  const marker: StdioMarker = { version: 1, original, inserted: prefix.length };
  const commandText = text.slice(commandValue.offset, end(commandValue));
  if (commandText !== JSON.stringify(original.command)) marker.commandText = commandText;
  const last = entry.children?.at(-1);
  if (last === undefined) throw new Error(`${slot.name}: empty entry`);
  edits.push({ offset: end(last), length: 0, text: `,${gap}"${MARKER_KEY}": ${JSON.stringify(marker)}` });
  return edits;
}

/** The edits that give a wrapped stdio entry back: the exact inverse of wrapStdioEdits when nothing else moved. */
export function unwrapStdioEdits(text: string, slot: JsonSlot, marker: StdioMarker): TextEdit[] {
  const entry = slot.node;
  const edits: TextEdit[] = [];
  const commandProp = property(entry, 'command');
  const commandValue = commandProp?.children?.[1];
  const original = marker.original;
  if (commandValue !== undefined)
    edits.push({
      offset: commandValue.offset,
      length: commandValue.length,
      text: marker.commandText ?? JSON.stringify(original.command),
    });
  const argsProp = property(entry, 'args');
  const argsValue = argsProp?.children?.[1];
  if (original.args === undefined) {
    if (argsProp !== undefined) edits.push(...removeProperty(text, slot, argsProp));
  } else if (argsValue !== undefined) {
    const items = argsValue.children ?? [];
    const n = marker.inserted ?? 0;
    const ours = argsValue.type === 'array' && n > 0 && items.length >= n && items[1]?.value === 'record';
    if (ours) {
      const stop = items.length > n ? items[n]!.offset : end(items[n - 1]!);
      edits.push({ offset: items[0]!.offset, length: stop - items[0]!.offset, text: '' });
    } else
      edits.push({ offset: argsValue.offset, length: argsValue.length, text: JSON.stringify(original.args) });
  }
  const markerProp = property(entry, MARKER_KEY);
  if (markerProp !== undefined) edits.push(...removeProperty(text, slot, markerProp));
  return edits;
}

/** Replaces a remote entry with the bridge command; the marker keeps the entry's original text. */
export function wrapRemoteEdits(
  text: string,
  slot: JsonSlot,
  replacement: Record<string, unknown>,
  url: string,
): TextEdit[] {
  const node = slot.node;
  const original = text.slice(node.offset, end(node));
  const marker: RemoteMarker = { version: 1, remote: true, url, text: original };
  const lineStart = text.lastIndexOf('\n', node.offset) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
  const unit = indentUnit(text, node, indent);
  // The marker on one line, as in wrapped stdio entries.
  const body = JSON.stringify(replacement, null, unit);
  const withMarker = `${body.slice(0, -2)},\n${unit}"${MARKER_KEY}": ${JSON.stringify(marker)}\n}`;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const json = withMarker.replace(/\n/g, `${eol}${indent}`);
  return [{ offset: node.offset, length: node.length, text: json }];
}

export function unwrapRemoteEdits(slot: JsonSlot, marker: RemoteMarker): TextEdit[] {
  return [{ offset: slot.node.offset, length: slot.node.length, text: marker.text }];
}

function indentUnit(text: string, node: Node, indent: string): string {
  const gap = gapOf(text, node, node.children?.[0]);
  const inner = gap.startsWith('\n') || gap.startsWith('\r\n') ? gap.replace(/^\r?\n/, '') : '';
  return inner.length > indent.length ? inner.slice(indent.length) : '  ';
}

/** Removes a property and the comma before it (or after it, for the first one). */
function removeProperty(text: string, slot: JsonSlot, prop: Node): TextEdit[] {
  const siblings = slot.node.children ?? [];
  const index = siblings.indexOf(prop);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  if (previous !== undefined && /^\s*,\s*$/.test(text.slice(end(previous), prop.offset)))
    return [{ offset: end(previous), length: end(prop) - end(previous), text: '' }];
  if (previous === undefined && next !== undefined && /^\s*,\s*$/.test(text.slice(end(prop), next.offset)))
    return [{ offset: prop.offset, length: next.offset - prop.offset, text: '' }];
  // Comments around it: let the JSON editor work out the commas.
  const key = String(prop.children?.[0]?.value);
  return modify(text, [...slot.path, key], undefined, {
    formattingOptions: { insertSpaces: true, tabSize: 2 },
  }).map((edit) => ({ offset: edit.offset, length: edit.length, text: edit.content }));
}
