import type { EndLine, MetaLine, RecordLine } from 'tapedeck/trace';
import type { Remote } from '../route.js';
import { LiveClient, type LiveStatus } from './live.js';
import { loadFiles } from './load.js';
import type { TraceModel } from './model.js';
import { linesText } from './raw-text.js';

/**
 * The collector as a trace source (its API: src/collector/routes.ts). A finished trace is fetched whole as
 * tapedeck JSONL and read like a file; a trace still being recorded is followed over the live websocket: the
 * snapshot of everything so far, then each append. Paths are relative to the page, which the collector serves
 * at its root. On 127.0.0.1 reads need no token; elsewhere the page must be opened with `?token=…`.
 */

export interface CollectorTrace {
  id: string;
  label: string | undefined;
  startedAt: string | undefined;
  live: boolean;
  server: string | undefined;
  /** Client requests (messages in) and errors, as the collector counted them. */
  requests: number;
  errors: number;
  /** Set for a production session recorded by an instrumented server. */
  session: CollectorSession | undefined;
}

/** Who a production session was, as the collector read it from the trace's meta line. */
export interface CollectorSession {
  /** The user's email, name or id; else the kind of identity and the start of its key. */
  who: string;
  /** Client name and version, e.g. `claude-code 1.2.0`. */
  client: string | undefined;
}

export interface CollectorAccess {
  /** The collector's base URL (the page's folder). */
  base: URL;
  /** The token, when the page was given one. */
  token: string | undefined;
}

/** The collector's summary of a trace (the fields the viewer uses). */
interface TraceSummary {
  id: string;
  label?: string;
  server?: string | null;
  transport?: string | null;
  state?: string;
  startedAt?: string | null;
  messages?: { in?: number };
  errors?: number;
  session?: {
    identity?: { kind: string; key: string } | null;
    user?: { id: string; name?: string; email?: string } | null;
    client?: { name: string; version?: string } | null;
  } | null;
}

function sessionOf(summary: TraceSummary): CollectorSession | undefined {
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
  return { who, client };
}

function headers(access: CollectorAccess): Record<string, string> {
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

/** The traces the collector holds, newest first; undefined when this page has no collector behind it. */
export async function listTraces(access: CollectorAccess): Promise<CollectorTrace[] | undefined> {
  let response: Response;
  try {
    response = await fetch(new URL('api/v1/traces', access.base), { headers: headers(access) });
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
    server: t.server ?? undefined,
    requests: t.messages?.in ?? 0,
    errors: t.errors ?? 0,
    session: sessionOf(t),
  }));
}

/** The API folder of a remote trace: `api/v1/traces/<id>/` or `api/v1/shares/<id>/`. */
function apiBase(remote: Remote): string {
  return `api/v1/${remote.kind === 'share' ? 'shares' : 'traces'}/${encodeURIComponent(remote.id)}`;
}

async function summaryOf(access: CollectorAccess, remote: Remote): Promise<TraceSummary> {
  if (remote.kind === 'trace') return getJson<TraceSummary>(access, apiBase(remote));
  return (await getJson<{ trace: TraceSummary }>(access, apiBase(remote))).trace;
}

/** The trace's meta line: the first line of its JSONL, read and then let go of (the rest may be large). */
async function metaOf(access: CollectorAccess, remote: Remote, summary: TraceSummary): Promise<MetaLine> {
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
    const response = await fetch(new URL(`${apiBase(remote)}/trace.jsonl`, access.base), {
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

export interface LiveState {
  status: LiveStatus;
  detail: string | undefined;
  dropped: number;
  connections: number;
}

/**
 * Opens a collector trace into the model: a finished one is read whole, a live one followed. Resolves to a stop
 * function once the trace is open.
 *
 * @example const stop = await openRemote(access, { kind: 'trace', id }, model, (s) => render(s));
 */
export async function openRemote(
  access: CollectorAccess,
  remote: Remote,
  model: TraceModel,
  onLive: (state: LiveState) => void,
): Promise<() => void> {
  const summary = await summaryOf(access, remote);
  const name = `${summary.label || summary.id}.jsonl`;
  if (summary.state !== 'live') {
    model.loading = { progress: 0, text: `Fetching ${name}…` };
    model.changed();
    const response = await fetch(new URL(`${apiBase(remote)}/trace.jsonl`, access.base), {
      headers: headers(access),
    });
    if (!response.ok) throw new Error(`the collector answered ${response.status} for ${name}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    await loadFiles([{ path: `${remote.id}/${name}`, bytes }], model);
    return () => {};
  }
  return follow(access, remote, model, await metaOf(access, remote, summary), name, onLive);
}

function follow(
  access: CollectorAccess,
  remote: Remote,
  model: TraceModel,
  meta: MetaLine,
  name: string,
  onLive: (state: LiveState) => void,
): () => void {
  const raw = linesText(name);
  raw.append(JSON.stringify(meta));
  const source = model.addSource({ name, format: 'live', meta, files: [raw] });
  const state: LiveState = { status: 'connecting', detail: undefined, dropped: 0, connections: 0 };
  const endpoint = new URL(`${apiBase(remote)}/live`, access.base);
  endpoint.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';
  let pending = false;
  const changed = () => {
    // One repaint per animation frame, however many frames arrive.
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      model.changed();
    });
  };
  const live = new LiveClient({
    url: (since) => {
      const url = new URL(endpoint);
      url.searchParams.set('since', String(since));
      return url.href;
    },
    protocols: access.token ? ['tapedeck', `tapedeck.token.${access.token}`] : ['tapedeck'],
    handlers: {
      lines(lines) {
        for (const line of lines) {
          if (line.type === 'meta') continue;
          raw.append(JSON.stringify(line));
          source.push(line as unknown as RecordLine, { file: raw.path, lineNo: raw.lineCount() });
        }
        changed();
      },
      dropped(count) {
        state.dropped += count;
        source.dropped += count;
        onLive({ ...state });
      },
      end(line) {
        if (line) {
          raw.append(JSON.stringify(line));
          source.push(line as unknown as EndLine, { file: raw.path, lineNo: raw.lineCount() });
        }
        source.finish();
        changed();
      },
      status(status, detail) {
        state.status = status;
        state.detail = detail;
        state.connections = live.connections;
        onLive({ ...state });
      },
    },
  });
  live.start();
  return () => live.stop();
}
