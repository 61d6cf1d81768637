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
