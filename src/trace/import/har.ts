import { isRecord } from '../decode.js';
import type { DiagnosticLog } from '../reader.js';
import type { MetaLine } from '../types.js';
import { httpExchangesToTrace } from './http-exchanges.js';
import type { TraceEntry } from './opened.js';

/**
 * HAR 1.2, the HTTP Archive browsers' developer tools save (and `convert --to har` writes): the MCP traffic of a
 * browser-based client, say. Entries whose bodies carry JSON-RPC (or an event stream) become HTTP exchanges, read
 * as the HTTP exchange captures are, each at its own `startedDateTime`; everything else a page loaded (scripts,
 * images, OAuth pages) is left out and counted in one warning.
 */

/** True for a parsed HAR document: `{log: {entries: [...]}}`. */
export function isHar(doc: unknown): doc is { log: { entries: unknown[] } } {
  return isRecord(doc) && isRecord(doc.log) && Array.isArray(doc.log.entries);
}

/**
 * Converts a HAR document into trace lines (transport `http`), one connection per kept entry.
 *
 * @example harToTrace(JSON.parse(readFileSync('session.har', 'utf8')), 'session.har', log).entries.length
 */
export function harToTrace(
  doc: { log: { entries: unknown[] } },
  file: string,
  log: DiagnosticLog,
): { meta: MetaLine; entries: TraceEntry[] } {
  const all = doc.log.entries.map((entry) => (isRecord(entry) ? exchangeOf(entry) : undefined));
  // An MCP endpoint's other requests (the session's DELETE, a GET stream) carry no JSON-RPC but belong too.
  const endpoints = new Set(all.flatMap((x) => (x?.rpc ? [endpointOf(x.exchange.url)] : [])));
  const exchanges: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const x of all) {
    if (x !== undefined && (x.rpc || endpoints.has(endpointOf(x.exchange.url)))) exchanges.push(x.exchange);
    else skipped++;
  }
  if (skipped > 0) {
    log.report(
      'corrupt_line',
      'warning',
      file,
      undefined,
      `${skipped} HAR entr${skipped === 1 ? 'y carries' : 'ies carry'} no JSON-RPC; left out`,
    );
  }
  const { meta, entries } = httpExchangesToTrace(exchanges, file, log);
  return { meta: { ...meta, importedFrom: 'har' }, entries };
}

/** The URL without its query, or '' for none. */
function endpointOf(url: unknown): string {
  return typeof url === 'string' ? url.split('?', 1)[0]! : '';
}

/** One HAR entry as an HTTP exchange capture, and whether it carries JSON-RPC (or an event stream). */
function exchangeOf(entry: Record<string, unknown>): { exchange: Record<string, unknown>; rpc: boolean } {
  const request = isRecord(entry.request) ? entry.request : {};
  const response = isRecord(entry.response) ? entry.response : {};
  const postData = isRecord(request.postData) ? request.postData : {};
  const content = isRecord(response.content) ? response.content : {};
  const requestBody = typeof postData.text === 'string' ? postData.text : undefined;
  const responseBody = bodyText(content);
  const responseHeaders = headerObject(response.headers);
  const type = String(responseHeaders['content-type'] ?? content.mimeType ?? '');
  const carries = (text: string | undefined) => text?.includes('"jsonrpc"') === true;
  const rpc = carries(requestBody) || carries(responseBody) || type.includes('text/event-stream');
  const started = typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : Number.NaN;
  const times = Number.isNaN(started) ? {} : timesOf(started, entry);
  const exchange = {
    method: typeof request.method === 'string' ? request.method : 'GET',
    ...(typeof request.url === 'string' && request.url !== '' ? { url: request.url } : {}),
    requestHeaders: headerObject(request.headers),
    requestBody,
    ...(typeof response.status === 'number' ? { status: response.status } : {}),
    responseHeaders,
    responseBody,
    ...times,
  };
  return { exchange, rpc };
}

/**
 * When the entry's request was sent, its answer's head came and its body ended, by HAR's timings: each phase
 * starts where the one before ended, and -1 (or nothing) means the phase took no time. Without a wait the answer
 * came at the end of the entry's whole `time`.
 */
function timesOf(started: number, entry: Record<string, unknown>): Record<string, string> {
  const timings = isRecord(entry.timings) ? entry.timings : {};
  const phase = (name: string) => {
    const ms = timings[name];
    return typeof ms === 'number' && ms > 0 ? ms : 0;
  };
  const total = typeof entry.time === 'number' && entry.time > 0 ? entry.time : 0;
  const waited = typeof timings.wait === 'number' && timings.wait >= 0;
  // `ssl` is part of `connect` in HAR 1.2, so it is not counted again.
  const sent = started + phase('blocked') + phase('dns') + phase('connect') + phase('send');
  const answered = waited ? sent + phase('wait') : started + total;
  const ended = Math.max(answered + phase('receive'), started + total);
  const iso = (ms: number) => new Date(ms).toISOString();
  return { startedAt: iso(started), sentAt: iso(sent), answeredAt: iso(answered), endedAt: iso(ended) };
}

/** A response body as text: HAR may hold it base64-encoded. */
function bodyText(content: Record<string, unknown>): string | undefined {
  if (typeof content.text !== 'string') return undefined;
  if (content.encoding !== 'base64') return content.text;
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(content.text), (c) => c.charCodeAt(0)));
  } catch {
    // Not base64 after all (a body the browser cut short): nothing to read in it.
    return undefined;
  }
}

/** HAR's `[{name, value}]` as a trace keeps headers: lower-case names, repeats as a list. */
function headerObject(list: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!Array.isArray(list)) return out;
  for (const header of list) {
    if (!isRecord(header) || typeof header.name !== 'string' || typeof header.value !== 'string') continue;
    const name = header.name.toLowerCase();
    const seen = out[name];
    out[name] = seen === undefined ? header.value : [...(Array.isArray(seen) ? seen : [seen]), header.value];
  }
  return out;
}
