import type { EndLine, MetaLine, RecordLine } from '../../../src/trace/index.js';
import { LiveClient, type LiveStatus } from './live.js';
import type { TraceModel } from './model.js';
import { linesText } from './raw-text.js';

/**
 * The collector as a trace source: its list of traces, and one trace read over the live websocket (a snapshot
 * of everything so far, then appends while it is being recorded). Paths are relative to the page, which the
 * collector serves at its root.
 */

export interface CollectorTrace {
  id: string;
  label: string | undefined;
  startedAt: string | undefined;
  live: boolean;
}

export interface CollectorAccess {
  /** The collector's base URL (the page's folder). */
  base: URL;
  /** The read token, when the collector wants one. */
  token: string | undefined;
}

function headers(access: CollectorAccess): Record<string, string> {
  return access.token
    ? { authorization: `Bearer ${access.token}`, accept: 'application/json' }
    : { accept: 'application/json' };
}

function asTrace(value: Record<string, unknown>): CollectorTrace {
  const meta = (typeof value.meta === 'object' && value.meta !== null ? value.meta : {}) as Record<
    string,
    unknown
  >;
  const label = value.label ?? meta.label;
  const startedAt = value.startedAt ?? meta.startedAt;
  return {
    id: String(value.id),
    label: typeof label === 'string' ? label : undefined,
    startedAt: typeof startedAt === 'string' ? startedAt : undefined,
    live: value.live === true || value.ended === false || value.state === 'live',
  };
}

/** The traces the collector holds, newest first as it lists them; undefined when this page has no collector. */
export async function listTraces(access: CollectorAccess): Promise<CollectorTrace[] | undefined> {
  const response = await fetch(new URL('api/v1/traces', access.base), { headers: headers(access) });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`the collector answered ${response.status} for its trace list`);
  const body = (await response.json()) as { traces?: unknown } | unknown[];
  const list = Array.isArray(body) ? body : Array.isArray(body.traces) ? body.traces : [];
  return (list as Record<string, unknown>[]).map(asTrace);
}

/** Facts about one trace, including its meta line. */
async function traceInfo(
  access: CollectorAccess,
  id: string,
): Promise<{ meta: MetaLine; trace: CollectorTrace }> {
  const response = await fetch(new URL(`api/v1/traces/${encodeURIComponent(id)}`, access.base), {
    headers: headers(access),
  });
  if (!response.ok) throw new Error(`the collector answered ${response.status} for trace ${id}`);
  const body = (await response.json()) as Record<string, unknown>;
  const value = (typeof body.trace === 'object' && body.trace !== null ? body.trace : body) as Record<
    string,
    unknown
  >;
  const trace = asTrace(value);
  const meta = (
    typeof value.meta === 'object' && value.meta !== null
      ? value.meta
      : {
          v: 1,
          type: 'meta',
          startedAt: trace.startedAt ?? new Date().toISOString(),
          label: trace.label ?? id,
        }
  ) as MetaLine;
  return { meta, trace };
}

export interface LiveState {
  status: LiveStatus;
  detail: string | undefined;
  dropped: number;
  connections: number;
}

/**
 * Opens a collector trace into the model and follows it. Returns a stop function.
 *
 * @example const stop = await openCollectorTrace(access, 'abc', model, (s) => render(s));
 */
export async function openCollectorTrace(
  access: CollectorAccess,
  id: string,
  model: TraceModel,
  onLive: (state: LiveState) => void,
): Promise<() => void> {
  const { meta, trace } = await traceInfo(access, id);
  const raw = linesText(`${trace.label ?? id}.jsonl`);
  raw.append(JSON.stringify(meta));
  const source = model.addSource({ name: trace.label ?? id, format: 'live', meta, files: [raw] });
  const state: LiveState = { status: 'connecting', detail: undefined, dropped: 0, connections: 0 };
  const wsBase = new URL(`api/v1/traces/${encodeURIComponent(id)}/live`, access.base);
  wsBase.protocol = wsBase.protocol === 'https:' ? 'wss:' : 'ws:';
  let pending = false;
  const changed = () => {
    // One repaint per frame however many frames arrive.
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      model.changed();
    });
  };
  const live = new LiveClient({
    url: (since) => {
      const url = new URL(wsBase);
      url.searchParams.set('since', String(since));
      return url.href;
    },
    protocols: access.token ? ['tapedeck', `tapedeck.token.${access.token}`] : [],
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
