import { parse, TomlError } from 'smol-toml';
import { isRecord, type RemoteMarker, type StdioMarker } from './entry.js';
import type { ConfigProblem, TextEdit } from './text.js';

/**
 * Codex's `config.toml`: servers are `[mcp_servers.<name>]` tables. The file is parsed to check it and read values;
 * changes are splices of the table's own lines, so comments and layout elsewhere stay byte for byte. The marker is a
 * comment line right under the table header — Codex never sees it as configuration.
 */

export const TOML_MARKER = '# _tapedeck: ';

/** One `key = value` statement of a table body (the value may span lines). */
interface Statement {
  key: string;
  lineStart: number;
  valueStart: number;
  valueEnd: number;
  /** After the statement's line break. */
  lineEnd: number;
}

export interface TomlSlot {
  name: string;
  value: unknown;
  /** Where the table body starts (after the header line) and ends (the next header, or the end of the file). */
  bodyStart: number;
  bodyEnd: number;
  statements: Statement[];
  marker: unknown;
  /** The marker comment line, when there is one. */
  markerLine?: { start: number; end: number };
  /** The table is not written as a `[mcp_servers.<name>]` header (inline or dotted keys): left alone. */
  unsupported?: true;
}

export function parseTomlConfig(text: string): { doc: Record<string, unknown>; problem?: ConfigProblem } {
  try {
    return { doc: parse(text) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof TomlError) {
      const message = err.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML';
      return { doc: {}, problem: { line: err.line, column: err.column, message } };
    }
    throw err;
  }
}

const HEADER =
  /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)[ \t]*\][ \t]*(#.*)?$/;

/** Every server table, found by its header line. */
export function tomlSlots(text: string, doc: Record<string, unknown>): TomlSlot[] {
  const servers = isRecord(doc.mcp_servers) ? doc.mcp_servers : {};
  const headers = new Map<string, { bodyStart: number; bodyEnd: number }>();
  const lines = lineStarts(text);
  for (let i = 0; i < lines.length; i++) {
    const start = lines[i]!;
    const stop = i + 1 < lines.length ? lines[i + 1]! : text.length;
    const match = HEADER.exec(text.slice(start, stop).replace(/\r?\n$/, ''));
    if (!match) continue;
    const name = keyName(match[1]!);
    let bodyEnd = text.length;
    for (let j = i + 1; j < lines.length; j++) {
      if (/^[ \t]*\[/.test(text.slice(lines[j]!, lines[j]! + 200)) && !insideValue(text, start, lines[j]!)) {
        bodyEnd = lines[j]!;
        break;
      }
    }
    headers.set(name, { bodyStart: stop, bodyEnd });
  }
  return Object.entries(servers).map(([name, value]) => {
    const found = headers.get(name);
    if (found === undefined)
      return { name, value, bodyStart: 0, bodyEnd: 0, statements: [], marker: undefined, unsupported: true };
    const slot: TomlSlot = {
      name,
      value,
      ...found,
      statements: statements(text, found.bodyStart, found.bodyEnd),
      marker: undefined,
    };
    for (let at = found.bodyStart; at < found.bodyEnd; ) {
      const lineEnd = text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at) + 1;
      const line = text.slice(at, lineEnd).trim();
      if (line.startsWith(TOML_MARKER.trim())) {
        try {
          slot.marker = JSON.parse(line.slice(TOML_MARKER.trim().length)) as unknown;
          slot.markerLine = { start: at, end: lineEnd };
        } catch {
          // Not ours after all.
        }
        break;
      }
      at = lineEnd;
    }
    return slot;
  });
}

/** A value TOML reads from a quoted or bare key. */
function keyName(key: string): string {
  if (key.startsWith('"')) return JSON.parse(key) as string;
  if (key.startsWith("'")) return key.slice(1, -1);
  return key;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) === 10 && i + 1 < text.length) starts.push(i + 1);
  return starts;
}

/** True when `offset` falls inside a multi-line value that started after `from` (a `[` line inside an array). */
function insideValue(text: string, from: number, offset: number): boolean {
  return statements(text, text.indexOf('\n', from) + 1, text.length).some(
    (s) => s.valueStart < offset && s.valueEnd > offset,
  );
}

/** The `key = value` statements between `start` and `stop`. */
function statements(text: string, start: number, stop: number): Statement[] {
  const out: Statement[] = [];
  let at = start;
  while (at < stop) {
    const lineEnd = nextLine(text, at);
    const line = text.slice(at, lineEnd);
    const match = /^[ \t]*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.-]+)[ \t]*=[ \t]*/.exec(line);
    if (!match || line.trimStart().startsWith('[')) {
      if (line.trimStart().startsWith('[')) break;
      at = lineEnd;
      continue;
    }
    const valueStart = at + match[0].length;
    const valueEnd = scanValue(text, valueStart);
    const end = nextLine(text, valueEnd);
    out.push({ key: keyName(match[1]!), lineStart: at, valueStart, valueEnd, lineEnd: end });
    at = end;
  }
  return out;
}

function nextLine(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline < 0 ? text.length : newline + 1;
}

/** Where the TOML value starting at `i` ends: strings, arrays and inline tables over several lines included. */
export function scanValue(text: string, i: number): number {
  if (text.startsWith('"""', i)) {
    let j = i + 3;
    while (j < text.length) {
      if (text[j] === '\\') j += 2;
      else if (text.startsWith('"""', j)) {
        j += 3;
        while (text[j] === '"') j++;
        return j;
      } else j++;
    }
    return j;
  }
  if (text.startsWith("'''", i)) {
    const close = text.indexOf("'''", i + 3);
    let j = close < 0 ? text.length : close + 3;
    while (text[j] === "'") j++;
    return j;
  }
  const c = text[i];
  if (c === '"') {
    let j = i + 1;
    while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (c === "'") {
    const close = text.indexOf("'", i + 1);
    return close < 0 ? text.length : close + 1;
  }
  if (c === '[' || c === '{') {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const ch = text[j]!;
      if (ch === '"' || ch === "'") j = scanValue(text, j);
      else if (ch === '#') j = text.indexOf('\n', j) < 0 ? text.length : text.indexOf('\n', j);
      else {
        if (ch === '[' || ch === '{') depth++;
        if (ch === ']' || ch === '}') depth--;
        j++;
        if (depth === 0) return j;
      }
    }
    return j;
  }
  let j = i;
  while (j < text.length && text[j] !== '\n' && text[j] !== '#') j++;
  while (j > i && /[ \t\r]/.test(text[j - 1]!)) j--;
  return j;
}

const find = (slot: TomlSlot, key: string) => slot.statements.find((s) => s.key === key);

const markerLine = (marker: StdioMarker | RemoteMarker, eol: string) =>
  `${TOML_MARKER}${JSON.stringify(marker)}${eol}`;

/** The line end the file uses (CRLF for files written on Windows). */
const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/** A TOML array of strings on one line. */
const tomlArray = (items: readonly string[]) => `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;

/** Replaces `command` and `args` in place and puts the marker (with their original text) under the header. */
export function wrapStdioToml(text: string, slot: TomlSlot, command: string, args: string[]): TextEdit[] {
  const commandStmt = find(slot, 'command');
  if (commandStmt === undefined || !isRecord(slot.value)) throw new Error(`${slot.name}: no command to wrap`);
  const argsStmt = find(slot, 'args');
  const original: StdioMarker['original'] = { command: String(slot.value.command) };
  if (Array.isArray(slot.value.args)) original.args = slot.value.args;
  const marker: StdioMarker = {
    version: 1,
    original,
    commandText: text.slice(commandStmt.valueStart, commandStmt.valueEnd),
  };
  if (argsStmt !== undefined) marker.argsText = text.slice(argsStmt.valueStart, argsStmt.valueEnd);
  const eol = eolOf(text);
  const lead = text.slice(slot.bodyStart - 1, slot.bodyStart) === '\n' || slot.bodyStart === 0 ? '' : eol;
  const edits: TextEdit[] = [
    { offset: slot.bodyStart, length: 0, text: lead + markerLine(marker, eol) },
    {
      offset: commandStmt.valueStart,
      length: commandStmt.valueEnd - commandStmt.valueStart,
      text: JSON.stringify(command),
    },
  ];
  if (argsStmt !== undefined)
    edits.push({
      offset: argsStmt.valueStart,
      length: argsStmt.valueEnd - argsStmt.valueStart,
      text: tomlArray(args),
    });
  else {
    const indent = /^[ \t]*/.exec(text.slice(commandStmt.lineStart))?.[0] ?? '';
    const newline = text.slice(commandStmt.lineEnd - 1, commandStmt.lineEnd) === '\n' ? '' : eol;
    edits.push({
      offset: commandStmt.lineEnd,
      length: 0,
      text: `${newline}${indent}args = ${tomlArray(args)}${eol}`,
    });
  }
  return edits;
}

export function unwrapStdioToml(slot: TomlSlot, marker: StdioMarker): TextEdit[] {
  const edits: TextEdit[] = [];
  if (slot.markerLine)
    edits.push({
      offset: slot.markerLine.start,
      length: slot.markerLine.end - slot.markerLine.start,
      text: '',
    });
  const commandStmt = find(slot, 'command');
  if (commandStmt !== undefined)
    edits.push({
      offset: commandStmt.valueStart,
      length: commandStmt.valueEnd - commandStmt.valueStart,
      text: marker.commandText ?? JSON.stringify(marker.original.command),
    });
  const argsStmt = find(slot, 'args');
  if (argsStmt !== undefined) {
    if (marker.argsText !== undefined || marker.original.args !== undefined)
      edits.push({
        offset: argsStmt.valueStart,
        length: argsStmt.valueEnd - argsStmt.valueStart,
        text: marker.argsText ?? tomlArray(marker.original.args as string[]),
      });
    else edits.push({ offset: argsStmt.lineStart, length: argsStmt.lineEnd - argsStmt.lineStart, text: '' });
  }
  return edits;
}

/** Keys of a Codex remote server that the bridge's command line replaces. */
const TOML_REMOTE_KEYS = new Set(['url', 'bearer_token_env_var', 'http_headers', 'env_http_headers']);

/** Replaces a remote server's body with the bridge command; the marker keeps the body as it was. */
export function wrapRemoteToml(
  text: string,
  slot: TomlSlot,
  command: string,
  args: string[],
  url: string,
): TextEdit[] {
  const body = text.slice(slot.bodyStart, slot.bodyEnd);
  const marker: RemoteMarker = { version: 1, remote: true, url, text: body };
  // Cut from the end backwards, so the offsets of the statements still to cut hold.
  const kept = [...slot.statements]
    .filter((s) => TOML_REMOTE_KEYS.has(s.key))
    .sort((a, b) => b.lineStart - a.lineStart)
    .reduce(
      (rest, s) => rest.slice(0, s.lineStart - slot.bodyStart) + rest.slice(s.lineEnd - slot.bodyStart),
      body,
    );
  const eol = eolOf(text);
  const lead = text.slice(slot.bodyStart - 1, slot.bodyStart) === '\n' || slot.bodyStart === 0 ? '' : eol;
  const head = `${lead}${markerLine(marker, eol)}command = ${JSON.stringify(command)}${eol}args = ${tomlArray(args)}${eol}`;
  return [{ offset: slot.bodyStart, length: slot.bodyEnd - slot.bodyStart, text: head + kept }];
}

export function unwrapRemoteToml(slot: TomlSlot, marker: RemoteMarker): TextEdit[] {
  const start = slot.markerLine?.start ?? slot.bodyStart;
  return [{ offset: start, length: slot.bodyEnd - start, text: marker.text }];
}

/** A Codex remote entry in the shape classifyEntry reads: url and headers (the bearer token from its variable). */
export function codexRemoteView(value: Record<string, unknown>): Record<string, unknown> {
  const headers: Record<string, string> = {};
  if (isRecord(value.http_headers))
    for (const [k, v] of Object.entries(value.http_headers)) if (typeof v === 'string') headers[k] = v;
  if (typeof value.bearer_token_env_var === 'string')
    headers.Authorization = `Bearer \${${value.bearer_token_env_var}}`;
  return { ...value, headers };
}
