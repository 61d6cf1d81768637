import { TapedeckError } from '../../base/errors.js';
import type { HttpLine } from '../../trace/types.js';

/** Headers as a trace's `http` line keeps them: lower-case names, a list where a header came more than once. */
export type TraceHeaders = HttpLine['headers'];

/**
 * Headers that describe one connection, not the message: a proxy answers for them itself instead of copying
 * them (RFC 9110 §7.6.1). `expect` is answered by our own listener already; forwarding it would make the
 * upstream wait for a `100 Continue` nobody reads. `host` is set to the upstream's.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'host',
]);

/**
 * Whether a header describes one connection or a message's framing (hop-by-hop, or its length): a proxy sets
 * these itself, so they are never taken from elsewhere.
 *
 * @example isConnectionHeader('Host') // → true
 */
export function isConnectionHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP.has(lower) || lower === 'content-length';
}

/**
 * The headers to forward, from a message's raw header list (`rawHeaders`: name, value, name, value …): names
 * keep their case and order, repeats stay repeats; hop-by-hop headers and those the `Connection` header names are
 * left out. Returns a flat list in the same shape, which node:http accepts as is.
 *
 * @example forwardableHeaders(['Host', 'a', 'Connection', 'close', 'Accept', '*\/*']) // ['Accept', '*\/*']
 */
export function forwardableHeaders(raw: readonly string[], extraDrop: readonly string[] = []): string[] {
  const named = connectionTokens(raw);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || extraDrop.includes(lower)) continue;
    out.push(name, raw[i + 1]!);
  }
  return out;
}

/** Header names listed in `Connection` (they are hop-by-hop for this message only). */
function connectionTokens(raw: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const token of raw[i + 1]!.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '' && name !== 'close' && name !== 'keep-alive') names.add(name);
    }
  }
  return names;
}

/**
 * A raw header list as a trace keeps it: lower-case names, repeats as a list. Redaction happens in the sink.
 *
 * @example traceHeaders(['Accept', 'a', 'X-Tag', '1', 'x-tag', '2']) // { accept: 'a', 'x-tag': ['1', '2'] }
 */
export function traceHeaders(raw: readonly string[]): TraceHeaders {
  const out: TraceHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

/** The first value of a header (any case) in trace headers; undefined when absent. */
export function headerValue(headers: TraceHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The media type of a `Content-Type` value, lower-case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** What a body is, for the trace: a JSON document, an event stream, or anything else. */
export type BodyKind = 'json' | 'sse' | 'other';

/**
 * The kind of body a `Content-Type` announces. A missing type counts as JSON: a JSON-RPC body sent without one
 * is still worth reading (and a body that does not parse becomes an event, never a failure).
 */
export function bodyKind(contentType: string | undefined): BodyKind {
  const type = mediaType(contentType);
  if (type === 'text/event-stream') return 'sse';
  if (type === '' || type === 'application/json' || type.endsWith('+json')) return 'json';
  return 'other';
}

/**
 * Whether `name` is a header name HTTP allows (an RFC 9110 token).
 *
 * @example isHeaderName('X-Team') // → true; isHeaderName('Bad Name') // → false
 */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}

/** A character a header value cannot carry: where it is and what it is (never the value around it). */
export interface HeaderValueProblem {
  index: number;
  what: string;
}

/**
 * The first character that makes a header value unsendable, or undefined when it is fine: Node refuses anything
 * but tab, printable ASCII and Latin-1 (fetch refuses a subset of those). Describes the character without quoting
 * the value, which is often a secret.
 *
 * @example headerValueProblem('Bearer a\nb') // → { index: 8, what: 'a line feed (LF)' }
 */
export function headerValueProblem(value: string): HeaderValueProblem | undefined {
  const match = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (match === null) return undefined;
  const code = match[0].codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const what =
    code === 0x0a
      ? 'a line feed (LF)'
      : code === 0x0d
        ? 'a carriage return (CR)'
        : code < 0x20 || code === 0x7f
          ? `a control character (${hex})`
          : 'a character outside Latin-1';
  return { index: match.index, what };
}

/**
 * Checks headers to send with every upstream request, naming the first bad one (never its value): a value Node
 * would refuse would otherwise fail each request on its way out.
 *
 * @example checkAddedHeaders({ Authorization: 'Bearer a\nb' }) // throws "header Authorization: its value holds a line feed (LF) …"
 */
export function checkAddedHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) {
      throw new TapedeckError('usage', `header name '${name}' is not a valid HTTP header name`);
    }
    const problem = headerValueProblem(value);
    if (problem !== undefined) {
      throw new TapedeckError(
        'usage',
        `header ${name}: its value holds ${problem.what}, which an HTTP header cannot carry (the value is not shown)`,
      );
    }
  }
}
