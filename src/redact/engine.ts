import type {
  HttpLine,
  Json,
  MessageLine,
  MetaLine,
  StderrLine,
  TextLine,
  TraceLine,
} from '../trace/types.js';
import { hideInArgv } from './argv.js';
import { type CompiledRules, type CompileOptions, compile } from './compile.js';
import { failedLine } from './failed.js';
import { hideInHeaders } from './header-values.js';
import { isCounterId } from './headers.js';
import { formatMarker, isMarker } from './marker.js';
import { hashConn, hashSession, hashSessionInUrl, learnSessions } from './session.js';
import { specificRule } from './specific.js';
import { TraceState } from './state.js';
import type { RedactConfig, Redactor } from './types.js';
import { type Hits, hideable } from './values.js';
import { hideInJson, hideInString } from './walk.js';

export { failedLine } from './failed.js';
export { redactHeaders } from './header-values.js';

/** Fields of an event line that say what it is rather than carry data. */
const EVENT_IDENTITY = new Set(['t', 'seq', 'type', 'name']);

/** The fields the trace format gives a message line: `raw` is redacted as a message, the rest identify it. */
const MESSAGE_FIELDS = new Set([
  'type',
  't',
  'seq',
  'dir',
  'raw',
  'server',
  'conn',
  'stream',
  'eventId',
  'producedBy',
]);

/** Fields of an event that hold the MCP session id itself: hashed like the `Mcp-Session-Id` header. */
const SESSION_FIELDS = new Set(['sessionId', 'session_id']);

/**
 * Redacts every field of a line but those in `skip`: the value rules on every string in them, and with `keyed` the
 * key rules too (by the field's own name and the keys inside it). A message's fields beyond the format's own (a
 * newer producer's, another tool's) are keyed; an event's fields, which name what the recorder saw, get the value
 * rules only. Session-id fields are hashed.
 */
function redactFields<L extends TraceLine>(
  line: L,
  skip: ReadonlySet<string>,
  compiled: CompiledRules,
  hits: Hits | undefined,
  keyed: boolean,
  state: TraceState | undefined,
): L {
  let copy: L | undefined;
  learnSessions(line as Record<string, unknown>, state);
  for (const key in line) {
    if (skip.has(key)) continue;
    const value = (line as Record<string, unknown>)[key] as Json | undefined;
    if (value === undefined) continue;
    const rule = keyed ? compiled.keys.matchValue(key, value) : undefined;
    let next: Json;
    if (SESSION_FIELDS.has(key) && typeof value === 'string')
      next = hashSession(value, compiled, hits, key, state);
    else if (key === 'conn' && typeof value === 'string') next = hashConn(value, compiled, hits, state);
    else if (key === 'url' && typeof value === 'string') {
      next = hideInString(hashSessionInUrl(value, compiled, hits, 'url', state), compiled, hits, 'url');
    } else if (rule !== undefined && hideable(value)) {
      const id = specificRule(rule, value, compiled);
      hits?.hit(id, key, value);
      next = formatMarker(id, value, compiled.style);
    } else next = hideInJson(value, compiled, { keyed, paths: false, hits, root: '', at: [key] });
    if (next !== value) {
      copy ??= { ...line };
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? line;
}

/** The line with its `conn` hashed when it is a session id the trace showed. */
function withConn<L extends TraceLine>(
  line: L,
  compiled: CompiledRules,
  hits: Hits | undefined,
  state: TraceState | undefined,
): L {
  const conn = (line as { conn?: unknown }).conn;
  if (typeof conn !== 'string') return line;
  const hashed = hashConn(conn, compiled, hits, state);
  return hashed === conn ? line : { ...line, conn: hashed };
}

/** The message line with its SSE `eventId` as a stable hash, the one its `Last-Event-ID` header gets, when not a counter. */
function withEventId(line: MessageLine, compiled: CompiledRules, hits: Hits | undefined): MessageLine {
  const id = line.eventId;
  const rule = compiled.eventIds;
  if (rule === undefined || typeof id !== 'string' || id === '' || isMarker(id) || isCounterId(id))
    return line;
  hits?.hit(rule, 'eventId', id);
  return { ...line, eventId: formatMarker(rule, id, { mode: 'hash', hasher: compiled.stableHash }) };
}

/** Which stream a text or stderr line belongs to, for blocks that span lines. */
function streamOf(line: TextLine | StderrLine): string {
  const server = typeof line.server === 'string' ? line.server : '';
  return line.type === 'stderr' ? `stderr ${server}` : `text ${line.dir} ${server}`;
}

function redactTextLine<L extends TraceLine>(
  line: TextLine | StderrLine,
  compiled: CompiledRules,
  hits: Hits | undefined,
  state: TraceState | undefined,
): L {
  const blocks = state?.blocks;
  const original = line.text as string;
  const stream = streamOf(line);
  let text: string;
  const block = blocks?.inside(stream, original);
  if (block !== undefined) {
    hits?.hit(block, 'text', original);
    text = formatMarker(block, original, compiled.style);
  } else {
    // The rest of a secret that began on a partial line before this one.
    const partial = (line as { partial?: unknown }).partial === true;
    const seam = state?.seams.line(stream, original, partial, compiled);
    if (seam === undefined) text = hideInString(original, compiled, hits, 'text');
    else {
      const head = original.slice(0, seam.length);
      hits?.hit(seam.rule, 'text', head);
      const rest = original.slice(seam.length);
      text = formatMarker(seam.rule, head, compiled.style) + hideInString(rest, compiled, hits, 'text');
    }
    const opens = blocks?.after(stream, original);
    if (opens !== undefined && text === original) {
      hits?.hit(opens, 'text', original);
      text = formatMarker(opens, original, compiled.style);
    }
  }
  if (text === original) return line as L;
  // `b64` holds the exact original bytes: it must go with the text it would restore.
  const { b64: _bytes, ...rest } = line;
  return { ...rest, text, redacted: true } as unknown as L;
}

/**
 * Redacts one trace line by kind: a message's `raw` (key, path and value rules; JSON inside strings too); `text`
 * and `stderr` text (value rules; with `blocks`, lines of a private key printed line by line are hidden from its
 * first line to its last; a changed line loses `b64`, which holds the original bytes, and gets `redacted: true`);
 * `meta` command, label, url and server; `http` headers and url; `event` fields (value rules). The MCP session id
 * becomes a stable hash wherever it shows up (headers, the `session` event, a legacy `sessionId` parameter, and —
 * given the trace's `state` — the `conn` of lines filed under it).
 * `end` lines carry nothing to hide. Returns the same line when nothing changed, otherwise a copy; never mutates.
 * May throw (a failing hasher): callers that store lines use {@link createRedactor}, which never lets a line through
 * unredacted.
 *
 * @example redactLine({ t, type: 'stderr', text: 'using ghp_…' , b64: '…' }, compiled) // { t, type: 'stderr', text: 'using [REDACTED:github-token]', redacted: true }
 */
export function redactLine<L extends TraceLine>(
  line: L,
  compiled: CompiledRules,
  hits?: Hits,
  state?: TraceState,
): L {
  switch (line.type) {
    case undefined: {
      const message = line as MessageLine;
      if (!('raw' in message)) return line;
      const raw = hideInJson(message.raw, compiled, { keyed: true, hits });
      const redacted = withConn(raw === message.raw ? message : { ...message, raw }, compiled, hits, state);
      return withEventId(
        redactFields(redacted, MESSAGE_FIELDS, compiled, hits, true, state),
        compiled,
        hits,
      ) as L;
    }
    case 'text':
    case 'stderr':
      return redactTextLine(line as TextLine | StderrLine, compiled, hits, state);
    case 'meta': {
      const meta = line as MetaLine;
      if (state !== undefined && (meta.transport === 'http' || meta.transport === 'sse'))
        state.connIsSession = true;
      return redactMeta(meta, compiled, hits) as L;
    }
    case 'http': {
      const http = line as HttpLine;
      // Headers first: the session id a request carries in its header is the line's own `conn`.
      const headers =
        typeof http.headers === 'object' && http.headers !== null
          ? hideInHeaders(http.headers, compiled, hits, state)
          : http.headers;
      const url =
        typeof http.url === 'string'
          ? hideInString(hashSessionInUrl(http.url, compiled, hits, 'url', state), compiled, hits, 'url')
          : http.url;
      const conn = typeof http.conn === 'string' ? hashConn(http.conn, compiled, hits, state) : http.conn;
      if (headers === http.headers && url === http.url && conn === http.conn) return line;
      return { ...http, conn, headers, ...(url === undefined ? {} : { url }) } as L;
    }
    case 'end':
      return line;
    default:
      return redactFields(line, EVENT_IDENTITY, compiled, hits, false, state);
  }
}

/** Free-text fields of a meta line: a label derived from a command can carry a token as much as the command. */
const META_TEXT = ['label', 'url', 'server'] as const;

function redactMeta(meta: MetaLine, compiled: CompiledRules, hits?: Hits): MetaLine {
  let copy: MetaLine | undefined;
  if (Array.isArray(meta.command)) {
    const command = hideInArgv(meta.command, compiled, hits);
    if (command !== meta.command) copy = { ...meta, command: [...command] };
  }
  for (const field of META_TEXT) {
    const value = meta[field];
    if (typeof value !== 'string') continue;
    const next = hideInString(value, compiled, hits, field);
    if (next !== value) {
      copy ??= { ...meta };
      copy[field] = next;
    }
  }
  return copy ?? meta;
}

export interface RedactorOptions extends CompileOptions {
  /** Told about a line whose redaction threw; the line is stored with its payload replaced, never as it was. */
  onError?: (err: unknown) => void;
}

/**
 * The redaction seam for a sink: compiles `config` (throwing on a bad rule, before any traffic) and returns a
 * Redactor. It returns the very line it was given when nothing needed hiding — the sink then reuses the wire text
 * — and a copy otherwise. A failure inside redaction never leaks the line: `onError` hears of it and the line's
 * payload becomes `[REDACTED:redaction_error]`.
 *
 * @example new FileSink({ path, redact: createRedactor({ defaults: true, rules: [], mode: 'marker' }) })
 */
export function createRedactor(config: RedactConfig, options: RedactorOptions = {}): Redactor {
  const compiled = compile(config, options.hasher === undefined ? {} : { hasher: options.hasher });
  return redactorOf(compiled, options.onError);
}

/**
 * {@link createRedactor} for rules already compiled (a caller that also needs the compiled rules compiles once).
 * The redactor keeps its trace's state (line streams, so a private key printed line by line is hidden whole; session
 * ids seen, so `conn` is hashed with them): use one redactor per trace.
 *
 * @example const compiled = compile(config); const redact = redactorOf(compiled, (err) => console.warn(err));
 */
export function redactorOf(compiled: CompiledRules, onError?: (err: unknown) => void): Redactor {
  const state = new TraceState();
  return <L extends TraceLine>(line: L): L => {
    try {
      return redactLine(line, compiled, undefined, state);
    } catch (err) {
      try {
        onError?.(err);
      } catch {
        // A failing error handler must not turn into a leak either.
      }
      return failedLine(line);
    }
  };
}
