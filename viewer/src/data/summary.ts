import {
  BYTE_STYLES,
  clip,
  compact,
  idTag,
  type Json,
  requestLabel,
  requestSummary,
  resultSummary,
  formatBytes as scaleBytes,
  formatLatency as writeLatency,
} from 'mcp-tapedeck/trace';
import { briefDuration } from './insights.js';
import type { Row } from './rows.js';

/**
 * The timeline's rows in words: a title and a detail per row. Messages are phrased by mcp-tapedeck/trace (the same
 * phrases the command line and the viewer's tables use); what is the viewer's own is which phrase a row shows,
 * and the viewer's style of latencies and sizes.
 */

/**
 * Latency in the viewer: `2005 ms` below 10 s, `12.3 s` below two minutes, then as people say it: `4.5 min`,
 * `5 h 02 min` (a call left open for hours is not `18120.0 s`).
 *
 * @example formatLatency(2005) // → '2005 ms'
 * @example formatLatency(18_120_000) // → '5 h 02 min'
 */
export function formatLatency(ms: number): string {
  return ms < 120_000 ? writeLatency(ms, { spaced: true }) : briefDuration(ms);
}

/**
 * A byte count in the viewer: `512 B`, `1.5 KB`, `10 KB`, `3.5 MB`.
 *
 * @example formatBytes(1536) // → '1.5 KB'
 */
export function formatBytes(bytes: number): string {
  return scaleBytes(bytes, BYTE_STYLES.viewer);
}

/** The headline of a row: method and what it is about. */
export function rowTitle(row: Row): string {
  switch (row.kind) {
    case 'request':
    case 'response': {
      return requestLabel(row.exchange!.request);
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

/**
 * A progress notification as a person reads it: how far (`3/5`, or `3` without a total), then its message and
 * anything else it carries (its token left out: the row sits under its call).
 *
 * @example progressSummary({ progressToken: 7, progress: 3, total: 5, message: 'copying' }) // → '3/5 · copying'
 */
export function progressSummary(params: Record<string, unknown>): string {
  const { progress, total, message, progressToken: _token, ...more } = params;
  const parts = [typeof total === 'number' ? `${String(progress)}/${total}` : String(progress)];
  if (typeof message === 'string' && message !== '') parts.push(message);
  if (Object.keys(more).length > 0) parts.push(compact(more as Json, 80));
  return clip(parts.join(' · '), 120);
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
      if (row.notification!.method === 'notifications/progress' && typeof rest.progress === 'number')
        return progressSummary(rest);
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
