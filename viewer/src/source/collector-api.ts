import type { MetaLine } from 'mcp-tapedeck/trace';
import type { ListedSession, TraceListing, TraceQuery, TraceRef } from './trace-source.js';

/**
 * The collector's REST API as the viewer reads it (the reference is at the top of src/collector/routes.ts). Paths
 * are relative to `base`, the folder of the page, which the collector serves at its root. On 127.0.0.1 reads need
 * no token; elsewhere the page must be opened with `?token=…`.
 */

export interface CollectorAccess {
  /** The collector's base URL (the page's folder). */
  base: URL;
  /** The token, when the page was given one. */
  token: string | undefined;
}

/** The collector's summary of a trace (the fields the viewer uses). */
export interface TraceSummary {
  id: string;
  label?: string;
  server?: string | null;
  transport?: string | null;
  state?: string;
  startedAt?: string | null;
  updatedAt?: string;
  ended?: boolean;
  lastSeq?: number;
  messages?: { in?: number };
  errors?: number;
  session?: {
    identity?: { kind: string; key: string } | null;
    user?: { id: string; name?: string; email?: string } | null;
    client?: { name: string; version?: string } | null;
    era?: string | null;
  } | null;
}

function sessionOf(summary: TraceSummary): ListedSession | undefined {
  const session = summary.session;
  if (!session) return undefined;
  const user = session.user;
  const identity = session.identity;
  const who =
    user?.email ??
    user?.name ??
    user?.id ??
    (identity ? `${identity.kind} ${identity.key.slice(0, 8)}` : 'unknown');
  const client = session.client
    ? `${session.client.name}${session.client.version ? ` ${session.client.version}` : ''}`
    : undefined;
  return { who, client, ...(session.era ? { era: session.era } : {}) };
}

export function headers(access: CollectorAccess): Record<string, string> {
  const base = { accept: 'application/json' };
  return access.token ? { ...base, authorization: `Bearer ${access.token}` } : base;
}

async function getJson<T>(access: CollectorAccess, path: string): Promise<T> {
  const response = await fetch(new URL(path, access.base), { headers: headers(access) });
  if (!response.ok) {
    let message = `the collector answered ${response.status} for ${path}`;
    try {
      const body = (await response.json()) as { error?: { message?: string } };
      if (body.error?.message) message = `${message}: ${body.error.message}`;
    } catch {
      // Not JSON: the status says enough.
    }
    throw new Error(message);
  }
  return (await response.json()) as T;
}

/** The search parameters of a trace query, in the collector's names. */
function searchOf(query: TraceQuery): string {
  const params = new URLSearchParams();
  for (const key of ['label', 'server', 'tool', 'method', 'state'] as const) {
    const value = query[key];
    if (value !== undefined && value !== '') params.set(key, value);
  }
  if (query.errors !== undefined) params.set('errors', String(query.errors));
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The traces the collector holds, newest first, narrowed by `query` on the collector's side; undefined when this
 * page has no collector behind it.
 *
 * @example await listTraces(access, { tool: 'echo', errors: true }) // → [{ id: 'Qx…', label: 'calls', … }]
 */
export async function listTraces(
  access: CollectorAccess,
  query: TraceQuery = {},
): Promise<TraceListing[] | undefined> {
  let response: Response;
  try {
    response = await fetch(new URL(`api/v1/traces${searchOf(query)}`, access.base), {
      headers: headers(access),
    });
  } catch {
    // No server behind this page at all (a copy opened from disk).
    return undefined;
  }
  const type = response.headers.get('content-type') ?? '';
  if (response.status === 404 || !type.includes('json')) return undefined;
  if (!response.ok) throw new Error(`the collector answered ${response.status} for its trace list`);
  const body = (await response.json()) as { traces?: TraceSummary[] };
  return (body.traces ?? []).map((t) => ({
    id: t.id,
    label: t.label || undefined,
    startedAt: t.startedAt ?? undefined,
    live: t.state === 'live',
    state: t.state === 'live' ? 'live' : t.ended === false ? 'no end line' : 'complete',
    durationMs: spanOf(t.startedAt, t.updatedAt),
    server: t.server ?? undefined,
    requests: t.messages?.in ?? 0,
    errors: t.errors ?? 0,
    session: sessionOf(t),
  }));
}

/** From the trace's start to the last line the collector stored, in ms; undefined when either is unknown. */
function spanOf(start: string | null | undefined, last: string | undefined): number | undefined {
  const from = start ? Date.parse(start) : Number.NaN;
  const to = last ? Date.parse(last) : Number.NaN;
  return Number.isNaN(from) || Number.isNaN(to) || to < from ? undefined : to - from;
}

/** The API folder of a trace: `api/v1/traces/<id>` or `api/v1/shares/<id>`. */
export function apiBase(ref: TraceRef): string {
  return `api/v1/${ref.kind === 'share' ? 'shares' : 'traces'}/${encodeURIComponent(ref.id)}`;
}

export async function summaryOf(access: CollectorAccess, ref: TraceRef): Promise<TraceSummary> {
  if (ref.kind === 'trace') return getJson<TraceSummary>(access, apiBase(ref));
  return (await getJson<{ trace: TraceSummary }>(access, apiBase(ref))).trace;
}

/** The trace's meta line: the first line of its JSONL, read and then let go of (the rest may be large). */
export async function metaOf(
  access: CollectorAccess,
  ref: TraceRef,
  summary: TraceSummary,
): Promise<MetaLine> {
  const fallback: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: summary.startedAt ?? new Date().toISOString(),
    label: summary.label || summary.id,
    ...(summary.transport ? { transport: summary.transport as MetaLine['transport'] & string } : {}),
    ...(summary.server ? { server: summary.server } : {}),
  };
  const abort = new AbortController();
  try {
    const response = await fetch(new URL(`${apiBase(ref)}/trace.jsonl`, access.base), {
      headers: headers(access),
      signal: abort.signal,
    });
    if (!response.ok || !response.body) return fallback;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\n')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const first = JSON.parse(text.split('\n')[0] ?? '') as MetaLine;
    return first.type === 'meta' ? first : fallback;
  } catch {
    return fallback;
  } finally {
    abort.abort();
  }
}

/**
 * The whole trace as tapedeck JSONL.
 *
 * @example const bytes = await traceBytes(access, { kind: 'trace', id }, 'calls.jsonl');
 */
export async function traceBytes(
  access: CollectorAccess,
  ref: TraceRef,
  name: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const response = await fetch(new URL(`${apiBase(ref)}/trace.jsonl`, access.base), {
    headers: headers(access),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw new Error(`the collector answered ${response.status} for ${name}`);
  return new Uint8Array(await response.arrayBuffer());
}
