import { type Exchange, formatId, type Json, type RpcId, requestTarget } from 'tapedeck/trace';
import type { Row } from './rows.js';

/** One-line descriptions of messages for tables and timeline rows. */

type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A value as short JSON, cut at `max` characters.
 *
 * @example compact({ a: 1, b: 'x' }, 10) // → '{"a":1,"b…'
 */
export function compact(value: Json | undefined, max = 80): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return clip(text, max);
}

export function clip(text: string, max: number): string {
  const flat = text.length > max * 4 ? text.slice(0, max * 4) : text;
  const one = flat.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * Tool arguments as `name=value` pairs.
 *
 * @example argumentSummary({ a: 2, b: 'three' }) // → 'a=2, b=three'
 */
export function argumentSummary(args: Json | undefined, max = 80): string {
  if (!isObject(args)) return compact(args, max);
  const parts = Object.entries(args).map(([key, value]) => `${key}=${compact(value, 40)}`);
  return clip(parts.join(', '), max);
}

export function idTag(id: RpcId | null): string {
  return id === null ? '#null' : `#${typeof id === 'number' ? id : formatId(id)}`;
}

/** Size in bytes of a base64 string, for "image/png, 12 KB". */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** One MCP content item (tool results, prompt messages, sampling) in a few words. */
export function contentSummary(item: Json): string {
  if (!isObject(item)) return compact(item, 60);
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? item.text : '';
    case 'image':
    case 'audio':
      return `[${item.type} ${typeof item.mimeType === 'string' ? item.mimeType : ''}${
        typeof item.data === 'string' ? `, ${formatBytes(base64Bytes(item.data))}` : ''
      }]`;
    case 'resource_link':
      return `[link ${typeof item.uri === 'string' ? item.uri : ''}]`;
    case 'resource': {
      const resource = isObject(item.resource) ? item.resource : {};
      return `[resource ${typeof resource.uri === 'string' ? resource.uri : ''}]`;
    }
    default:
      return compact(item, 60);
  }
}

const LIST_RESULTS: Record<string, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
  'roots/list': 'roots',
};

/** What a response said, in one line: the error, the first text content, a list's length … */
export function resultSummary(exchange: Exchange, max = 100): string {
  const response = exchange.response;
  if (!response) return exchange.outcome === 'unanswered' ? 'no response' : 'waiting…';
  if (response.error) {
    const code = response.error.code === undefined ? '' : `${response.error.code} `;
    return clip(`error ${code}${response.error.message}`, max);
  }
  const result = response.result;
  if (!isObject(result)) return compact(result, max);
  const list = LIST_RESULTS[exchange.method];
  if (list && Array.isArray(result[list])) return `${(result[list] as Json[]).length} ${list}`;
  if (exchange.method === 'initialize' && isObject(result.serverInfo)) {
    const info = result.serverInfo;
    return clip(
      `${String(info.name ?? '?')} ${String(info.version ?? '')} · ${String(result.protocolVersion ?? '')}`,
      max,
    );
  }
  if (result.resultType === 'input_required' && isObject(result.inputRequests)) {
    const asks = Object.values(result.inputRequests).map((r) =>
      isObject(r) ? String(r.method ?? '?') : '?',
    );
    return clip(`input required: ${asks.join(', ')}`, max);
  }
  if (exchange.method === 'server/discover' && Array.isArray(result.supportedVersions))
    return clip(`versions ${result.supportedVersions.join(', ')}`, max);
  if (Array.isArray(result.content)) {
    const parts = result.content.map(contentSummary).filter((s) => s !== '');
    const head = result.isError === true ? 'isError: ' : '';
    return clip(head + (parts.length > 0 ? parts.join(' · ') : 'no content'), max);
  }
  if (Array.isArray(result.contents)) return `${result.contents.length} contents`;
  if (Array.isArray(result.messages)) return `${result.messages.length} messages`;
  if (isObject(result.content)) return clip(contentSummary(result.content), max);
  return compact(result, max);
}

/** What a request asked, in one line: tool arguments, a resource URI, a prompt name, else the params. */
export function requestSummary(exchange: Exchange, max = 100): string {
  const params = exchange.request.params;
  if (exchange.method === 'tools/call' && isObject(params)) return argumentSummary(params.arguments, max);
  if (exchange.method === 'initialize' && isObject(params) && isObject(params.clientInfo))
    return clip(`${String(params.clientInfo.name ?? '?')} · ${String(params.protocolVersion ?? '')}`, max);
  if (params === undefined) return '';
  const { _meta: _ignored, ...rest } = params;
  return Object.keys(rest).length === 0 ? '' : compact(rest as Json, max);
}

/** The headline of a row: method and what it is about. */
export function rowTitle(row: Row): string {
  switch (row.kind) {
    case 'request':
    case 'response': {
      const exchange = row.exchange!;
      const target = requestTarget(exchange.request);
      return target === undefined ? exchange.method : `${exchange.method} ${target}`;
    }
    case 'notification':
      return row.notification!.method;
    case 'orphan':
      return `response ${idTag(row.response!.id)} (no request)`;
    case 'invalid':
      return 'invalid message';
    case 'text':
      return 'text';
    case 'stderr':
      return 'stderr';
    case 'http': {
      const l = row.line as { method?: unknown; url?: unknown; status?: unknown };
      return ['http', l.method, l.status, l.url].filter((x) => x !== undefined).join(' ');
    }
    case 'event':
      return `event ${String((row.line as { name?: unknown }).name)}`;
    case 'end':
      return 'end';
  }
}

/** The detail column of a row. */
export function rowDetail(row: Row): string {
  switch (row.kind) {
    case 'request':
      return requestSummary(row.exchange!);
    case 'response':
      return resultSummary(row.exchange!);
    case 'notification': {
      const params = row.notification!.params;
      if (params === undefined) return '';
      const { _meta: _ignored, ...rest } = params;
      return compact(rest as Json, 120);
    }
    case 'orphan':
      return compact((row.response!.result ?? row.response!.error?.message) as Json | undefined, 120);
    case 'invalid':
      return row.reason ?? '';
    case 'text':
    case 'stderr':
      return clip(String((row.line as { text?: unknown }).text ?? ''), 200);
    case 'http': {
      const l = row.line as { conn?: unknown; url?: unknown; headers?: Record<string, unknown> };
      const headers = l.headers ?? {};
      const header = (name: string) => {
        const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
        return key === undefined ? undefined : String(headers[key]);
      };
      const parts = [
        `conn ${String(l.conn ?? '?')}`,
        typeof l.url === 'string' ? l.url : undefined,
        header('content-type'),
        header('mcp-session-id') === undefined ? undefined : `session ${header('mcp-session-id')}`,
      ];
      return clip(parts.filter((p) => p !== undefined).join(' · '), 160);
    }
    case 'event': {
      const { t: _t, seq: _s, type: _y, name: _n, ...rest } = row.line as Record<string, Json>;
      return compact(rest as Json, 120);
    }
    case 'end': {
      const l = row.line as { reason?: unknown; exitCode?: unknown; durationMs?: unknown };
      const parts = [
        l.reason,
        l.exitCode === undefined || l.exitCode === null ? undefined : `exit ${l.exitCode}`,
      ];
      return parts.filter((x) => x !== undefined).join(' · ');
    }
  }
}

/**
 * Latency for people: ms below 10 s, seconds above.
 *
 * @example formatLatency(2005) // → '2005 ms'
 */
export function formatLatency(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** An offset from the start of the trace, `+12.345s`. */
export function formatOffset(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(3)}s`;
}
