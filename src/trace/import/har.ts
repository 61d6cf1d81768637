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
  const exchanges: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const entry of doc.log.entries) {
    const exchange = isRecord(entry) ? exchangeOf(entry) : undefined;
    if (exchange === undefined) skipped++;
    else exchanges.push(exchange);
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

/** One HAR entry as an HTTP exchange capture, or undefined when neither body is JSON-RPC. */
function exchangeOf(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  const request = isRecord(entry.request) ? entry.request : {};
  const response = isRecord(entry.response) ? entry.response : {};
  const postData = isRecord(request.postData) ? request.postData : {};
  const content = isRecord(response.content) ? response.content : {};
  const requestBody = typeof postData.text === 'string' ? postData.text : undefined;
  const responseBody = bodyText(content);
  const responseHeaders = headerObject(response.headers);
  const type = String(responseHeaders['content-type'] ?? content.mimeType ?? '');
  const rpc = (text: string | undefined) => text?.includes('"jsonrpc"') === true;
  if (!rpc(requestBody) && !rpc(responseBody) && !type.includes('text/event-stream')) return undefined;
  const time = typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : Number.NaN;
  return {
    method: typeof request.method === 'string' ? request.method : 'GET',
    ...(typeof request.url === 'string' ? { url: request.url } : {}),
    requestHeaders: headerObject(request.headers),
    requestBody,
    ...(typeof response.status === 'number' ? { status: response.status } : {}),
    responseHeaders,
    responseBody,
    ...(Number.isNaN(time) ? {} : { startedAt: new Date(time).toISOString() }),
  };
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
