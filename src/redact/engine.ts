import type { Redactor } from '../sink/sink.js';
import type {
  EventLine,
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
import { matchHeader } from './key-words.js';
import { formatMarker, isMarker, REDACTION_ERROR_MARKER } from './marker.js';
import type { RedactConfig } from './types.js';
import { type Hits, hideable, hideInText } from './values.js';
import { hideInJson } from './walk.js';

type Headers = HttpLine['headers'];

/**
 * Redacts HTTP headers: a header named by a header rule is replaced whole (each value, for a list), every other
 * value gets the value rules. Returns the same object when nothing changed, otherwise a copy.
 *
 * @example redactHeaders({ Authorization: 'Bearer abc', Accept: '*\/*' }, compiled) // { Authorization: '[REDACTED:authorization-header]', Accept: '*\/*' }
 */
export function redactHeaders(headers: Headers, compiled: CompiledRules): Headers {
  return hideInHeaders(headers, compiled);
}

function hideInHeaders(headers: Headers, compiled: CompiledRules, hits?: Hits): Headers {
  const names = Object.keys(headers);
  let entries: Array<[string, string | string[]]> | undefined;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    const value = headers[name] as string | string[];
    const where = `headers.${name.toLowerCase()}`;
    const rule = matchHeader(compiled.headers, name);
    const one = (text: string): string => {
      if (typeof text !== 'string') return text;
      if (rule === undefined) return hideInText(text, compiled, hits, where);
      if (text === '' || isMarker(text)) return text;
      hits?.hit(rule, where, text);
      return formatMarker(rule, text, compiled.style);
    };
    let next: string | string[];
    if (Array.isArray(value)) {
      const mapped = value.map(one);
      next = mapped.every((item, j) => item === value[j]) ? value : mapped;
    } else {
      next = one(value);
    }
    if (next !== value && entries === undefined) {
      entries = names
        .slice(0, i)
        .map((n): [string, string | string[]] => [n, headers[n] as string | string[]]);
    }
    entries?.push([name, next]);
  }
  return entries === undefined ? headers : Object.fromEntries(entries);
}

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

/**
 * Redacts every field of a line but those in `skip`: the value rules on every string in them, and with `keyed` the
 * key rules too (by the field's own name and the keys inside it). A message's fields beyond the format's own (a
 * newer producer's, another tool's) are keyed; an event's fields, which name what the recorder saw, get the value
 * rules only.
 */
function redactFields<L extends TraceLine>(
  line: L,
  skip: ReadonlySet<string>,
  compiled: CompiledRules,
  hits: Hits | undefined,
  keyed: boolean,
): L {
  let copy: L | undefined;
  for (const key in line) {
    if (skip.has(key)) continue;
    const value = (line as Record<string, unknown>)[key] as Json | undefined;
    if (value === undefined) continue;
    const rule = keyed ? compiled.keys.match(key) : undefined;
    let next: Json;
    if (rule !== undefined && hideable(value)) {
      hits?.hit(rule, key, value);
      next = formatMarker(rule, value, compiled.style);
    } else next = hideInJson(value, compiled, { keyed, paths: false, hits, root: '', at: [key] });
    if (next !== value) {
      copy ??= { ...line };
      Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? line;
}

/**
 * Redacts one trace line by kind: a message's `raw` (key, path and value rules); `text` and `stderr` text (value
 * rules; a changed line loses `b64`, which holds the original bytes, and gets `redacted: true`); `meta` command,
 * label, url and server; `http` headers and url; `event` fields (value rules). `end` lines carry nothing to hide.
 * Returns the same line when nothing changed, otherwise a copy; never mutates. May throw (a failing hasher):
 * callers that store lines use {@link createRedactor}, which never lets a line through unredacted.
 *
 * @example redactLine({ t, type: 'stderr', text: 'using ghp_…' , b64: '…' }, compiled) // { t, type: 'stderr', text: 'using [REDACTED:github-token]', redacted: true }
 */
export function redactLine<L extends TraceLine>(line: L, compiled: CompiledRules, hits?: Hits): L {
  switch (line.type) {
    case undefined: {
      const message = line as MessageLine;
      if (!('raw' in message)) return line;
      const raw = hideInJson(message.raw, compiled, { keyed: true, hits });
      const redacted = raw === message.raw ? message : { ...message, raw };
      return redactFields(redacted, MESSAGE_FIELDS, compiled, hits, true) as L;
    }
    case 'text':
    case 'stderr': {
      const text = hideInText(line.text as string, compiled, hits, 'text');
      if (text === line.text) return line;
      // `b64` holds the exact original bytes: it must go with the text it would restore.
      const { b64: _bytes, ...rest } = line as TextLine | StderrLine;
      return { ...rest, text, redacted: true } as unknown as L;
    }
    case 'meta':
      return redactMeta(line as MetaLine, compiled, hits) as L;
    case 'http': {
      const http = line as HttpLine;
      const headers =
        typeof http.headers === 'object' && http.headers !== null
          ? hideInHeaders(http.headers, compiled, hits)
          : http.headers;
      const url = typeof http.url === 'string' ? hideInText(http.url, compiled, hits, 'url') : http.url;
      if (headers === http.headers && url === http.url) return line;
      return { ...http, headers, ...(url === undefined ? {} : { url }) } as L;
    }
    case 'end':
      return line;
    default:
      return redactFields(line, EVENT_IDENTITY, compiled, hits, false);
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
    const next = hideInText(value, compiled, hits, field);
    if (next !== value) {
      copy ??= { ...meta };
      copy[field] = next;
    }
  }
  return copy ?? meta;
}

/**
 * What a line becomes when redacting it failed: its envelope, with the payload replaced by a marker.
 *
 * @example failedLine({ t, seq: 3, dir: 'in', raw: { … } }) // { t, seq: 3, dir: 'in', raw: '[REDACTED:redaction_error]' }
 */
export function failedLine<L extends TraceLine>(line: L): L {
  const marker = REDACTION_ERROR_MARKER;
  switch (line.type) {
    case undefined:
      return { ...(line as MessageLine), raw: marker } as L;
    case 'text':
    case 'stderr': {
      const { b64: _bytes, ...rest } = line as TextLine | StderrLine;
      return { ...rest, text: marker, redacted: true } as unknown as L;
    }
    case 'meta': {
      const meta = line as MetaLine;
      return {
        ...meta,
        label: marker,
        ...(meta.command === undefined ? {} : { command: [marker] }),
        ...(meta.url === undefined ? {} : { url: marker }),
        ...(meta.server === undefined ? {} : { server: marker }),
      } as L;
    }
    case 'http': {
      const { url, ...rest } = line as HttpLine;
      return {
        ...rest,
        headers: {},
        ...(url === undefined ? {} : { url: marker }),
        redacted: true,
      } as unknown as L;
    }
    case 'end':
      return line;
    default: {
      const { t, seq, type, name } = line as EventLine;
      return { t, ...(seq === undefined ? {} : { seq }), type, name, redacted: marker } as unknown as L;
    }
  }
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
 *
 * @example const compiled = compile(config); const redact = redactorOf(compiled, (err) => console.warn(err));
 */
export function redactorOf(compiled: CompiledRules, onError?: (err: unknown) => void): Redactor {
  return <L extends TraceLine>(line: L): L => {
    try {
      return redactLine(line, compiled);
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
