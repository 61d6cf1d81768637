import { PACKAGE_NAME } from '../base/version.js';
import type { RemoteStyle } from './targets.js';

/**
 * What a server entry in a client config is, and the marker tapedeck leaves in the entries it wraps. The marker
 * holds what uninstall needs to give the entry back exactly as it was.
 */

/** The key of the marker in JSON configs (clients ignore keys they do not know). */
export const MARKER_KEY = '_tapedeck';

/** A wrapped stdio entry: tapedeck replaced `command` and put `inserted` arguments in front of the original ones. */
export interface StdioMarker {
  version: 1;
  original: { command: string; args?: unknown[] };
  /** How many arguments tapedeck put before the original ones (JSON configs). */
  inserted?: number;
  /** The source text of the original `command` / `args` values where their values alone would not restore them. */
  commandText?: string;
  argsText?: string;
}

/** A remote entry wrapped through the stdio↔HTTP bridge: the whole entry was replaced, `text` is the original. */
export interface RemoteMarker {
  version: 1;
  remote: true;
  url: string;
  text: string;
}

export type Marker = StdioMarker | RemoteMarker;

/** The marker in a parsed value, or undefined when it is not one tapedeck wrote. */
export function parseMarker(value: unknown): Marker | undefined {
  if (!isRecord(value) || value.version !== 1) return undefined;
  if (value.remote === true)
    return typeof value.text === 'string' && typeof value.url === 'string'
      ? { version: 1, remote: true, url: value.url, text: value.text }
      : undefined;
  const original = value.original;
  if (!isRecord(original) || typeof original.command !== 'string') return undefined;
  const marker: StdioMarker = { version: 1, original: { command: original.command } };
  if (Array.isArray(original.args)) marker.original.args = original.args;
  if (typeof value.inserted === 'number') marker.inserted = value.inserted;
  if (typeof value.commandText === 'string') marker.commandText = value.commandText;
  if (typeof value.argsText === 'string') marker.argsText = value.argsText;
  return marker;
}

export interface RemoteServer {
  url: string;
  transport: 'streamable' | 'sse';
  headers: Record<string, string>;
}

export type EntryKind =
  /** A local server started by a command: wrapped by install. */
  | { kind: 'stdio'; command: string; args: string[] }
  /** A server reached over HTTP: listed, or with --include-remote wrapped through the bridge. */
  | { kind: 'remote'; remote: RemoteServer }
  | { kind: 'wrapped'; marker: Marker }
  /** Already recorded through tapedeck without a marker (written by hand): left alone. */
  | { kind: 'by-hand' }
  | { kind: 'invalid'; why: string };

/** Keys of a remote entry that say where and how to reach it; a wrapped entry drops them. */
export const REMOTE_KEYS: readonly string[] = ['url', 'serverUrl', 'httpUrl', 'type', 'transport', 'headers'];

/**
 * Tells what an entry is. `style` says how the client tells SSE from Streamable HTTP: `type: "sse"` (most
 * clients), or Gemini CLI's `url` (SSE) versus `httpUrl` (Streamable HTTP).
 *
 * @example classifyEntry({ command: 'npx', args: ['-y', 'server'] }, 'type') // → { kind: 'stdio', … }
 */
export function classifyEntry(entry: unknown, style: RemoteStyle, marker: unknown): EntryKind {
  const parsed = marker === undefined ? undefined : parseMarker(marker);
  if (parsed !== undefined) return { kind: 'wrapped', marker: parsed };
  if (!isRecord(entry)) return { kind: 'invalid', why: 'not an object' };
  if (typeof entry.command === 'string' && entry.command !== '') {
    const args = Array.isArray(entry.args) ? entry.args : [];
    if (args.some((arg) => typeof arg !== 'string'))
      return { kind: 'invalid', why: 'its args are not all strings' };
    if (recordedByHand(entry.command, args as string[])) return { kind: 'by-hand' };
    return { kind: 'stdio', command: entry.command, args: args as string[] };
  }
  const url = [entry.httpUrl, entry.serverUrl, entry.url].find((value) => typeof value === 'string');
  if (typeof url === 'string') {
    const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : undefined;
    const sse =
      type === 'sse' ||
      entry.transport === 'sse' ||
      (style === 'gemini' && typeof entry.httpUrl !== 'string') ||
      (type === undefined && /\/sse\/?$/.test(url));
    const headers: Record<string, string> = {};
    if (isRecord(entry.headers))
      for (const [name, value] of Object.entries(entry.headers))
        if (typeof value === 'string') headers[name] = value;
    return { kind: 'remote', remote: { url, transport: sse ? 'sse' : 'streamable', headers } };
  }
  return { kind: 'invalid', why: 'it has neither a command nor a url' };
}

/**
 * `tapedeck record …`, `npx [-y] mcp-tapedeck record …` (or `npx -p mcp-tapedeck tapedeck record …`), or node
 * running tapedeck's executable (tapedeck.cjs, or the program bin.js) with `record`.
 */
function recordedByHand(command: string, args: string[]): boolean {
  const base = command.split(/[\\/]/).pop()?.toLowerCase() ?? '';
  if (/^tapedeck(\.cmd|\.exe)?$/.test(base)) return args[0] === 'record';
  if (/^npx(\.cmd)?$/.test(base)) return npxRecord(args);
  const script = args[0]?.replace(/\\/g, '/') ?? '';
  return /tapedeck\/dist\/cli\/(bin\.js|tapedeck\.cjs)$/.test(script) && args[1] === 'record';
}

/** The arguments of npx start tapedeck's `record`: from this package, by its name or with `-p`/`--package`. */
function npxRecord(args: string[]): boolean {
  const ours = (spec: string | undefined) =>
    spec === PACKAGE_NAME || spec?.startsWith(`${PACKAGE_NAME}@`) === true;
  let fromPackage = false;
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const arg = args[i]!;
    if (arg === '-p' || arg === '--package') fromPackage ||= ours(args[++i]);
    else if (arg.startsWith('--package=')) fromPackage ||= ours(arg.slice('--package='.length));
  }
  const program = args[i];
  return (ours(program) || (fromPackage && program === 'tapedeck')) && args[i + 1] === 'record';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
