import type { EndLine, MetaLine, RecordLine } from 'mcp-tapedeck/trace';
import { FollowState } from '../data/follow.js';
import { loadFiles } from '../data/load.js';
import type { TraceModel } from '../data/model.js';
import { linesText } from '../data/raw-text.js';
import { apiBase, type CollectorAccess, listTraces, metaOf, summaryOf, traceBytes } from './collector-api.js';
import { LiveClient, type SocketFactory } from './live-client.js';
import type { Opened, TraceRef, TraceSource } from './trace-source.js';

/**
 * The collector as a trace source: its list (searched on its side), a finished trace fetched whole as tapedeck
 * JSONL and read like a file, and a trace still being recorded followed over the live websocket: the snapshot of
 * everything so far, then each line as it is recorded, resumed after a dropped connection where it stopped.
 */

export interface CollectorSourceOptions extends CollectorAccess {
  /** How websockets are made (default: the page's WebSocket). */
  socket?: SocketFactory;
  /** When to repaint after lines arrive (default: the next animation frame, so one repaint per frame). */
  frame?: (paint: () => void) => void;
  /** First reconnect delay (default 250 ms; doubles up to a few seconds). */
  reconnectMs?: number;
}

/**
 * @example const source = collectorSource({ base: new URL('./', location.href), token: undefined });
 * source.open(model, { kind: 'trace', id: 'Qx3…' });
 */
export function collectorSource(options: CollectorSourceOptions): TraceSource {
  const access: CollectorAccess = { base: options.base, token: options.token };
  return {
    kind: 'collector',
    capabilities: { own: false, list: true, follow: true, search: true, openFiles: true },
    list: (query) => listTraces(access, query),
    open: (model, ref) => openRemote(options, model, ref),
  };
}

function openRemote(options: CollectorSourceOptions, model: TraceModel, ref: TraceRef | undefined): Opened {
  const abort = new AbortController();
  const { signal } = abort;
  let stop: (() => void) | undefined;
  const ready = (async () => {
    try {
      if (ref === undefined) throw new Error('no trace was named (open a #/trace/<id> link)');
      const summary = await summaryOf(options, ref);
      if (signal.aborted) return;
      const name = `${summary.label || summary.id}.jsonl`;
      if (summary.state !== 'live') {
        model.loading = { progress: 0, text: `Fetching ${name}…` };
        model.changed();
        const bytes = await traceBytes(options, ref, name, signal);
        if (signal.aborted) return;
        await loadFiles([{ path: `${ref.id}/${name}`, bytes }], model, signal, LINKED);
        return;
      }
      const meta = await metaOf(options, ref, summary);
      if (signal.aborted) return;
      stop = follow(options, ref, model, meta, name, summary.lastSeq ?? 0);
    } catch (err) {
      if (!signal.aborted) model.fail('Could not open the trace', err);
    }
  })();
  return {
    ready,
    close() {
      abort.abort();
      stop?.();
      stop = undefined;
    },
  };
}

/*
 * The trace the page's link names stays open while files are added beside it (those can be closed): closing it
 * would leave a link that names a trace the page no longer shows; another one is opened from the list instead. A
 * trace followed live stays for the same reason, and because its connection belongs to the page's link.
 */
const LINKED = 'the trace this link opens stays open (open another from the list instead)';
const FOLLOWED = 'a trace followed live stays open (open another from the list instead)';

const nextFrame = (paint: () => void) =>
  (globalThis as unknown as { requestAnimationFrame?: (fn: () => void) => void }).requestAnimationFrame?.(
    paint,
  ) ?? setTimeout(paint, 16);

/** Follows a live trace into the model; returns the function that stops following. */
function follow(
  options: CollectorSourceOptions,
  ref: TraceRef,
  model: TraceModel,
  meta: MetaLine,
  name: string,
  snapshotSeq: number,
): () => void {
  const raw = linesText(name);
  raw.append(JSON.stringify(meta));
  const source = model.addSource({ name, format: 'live', meta, files: [raw], keep: FOLLOWED });
  const state = new FollowState(snapshotSeq);
  source.follow = state;
  const endpoint = new URL(`${apiBase(ref)}/live`, options.base);
  endpoint.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';
  const frame = options.frame ?? nextFrame;
  let pending = false;
  const changed = () => {
    // One repaint per frame, however many websocket frames arrive.
    if (pending) return;
    pending = true;
    frame(() => {
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
    protocols: options.token ? ['tapedeck', `tapedeck.token.${options.token}`] : ['tapedeck'],
    ...(options.socket ? { socket: options.socket } : {}),
    ...(options.reconnectMs === undefined ? {} : { delayMs: options.reconnectMs }),
    handlers: {
      lines(lines) {
        for (const line of lines) {
          if (line.type === 'meta') continue;
          raw.append(JSON.stringify(line));
          source.push(line as unknown as RecordLine, { file: raw.path, lineNo: raw.lineCount() });
        }
        state.received(lines.flatMap((line) => (typeof line.seq === 'number' ? [line.seq] : [])));
        changed();
      },
      dropped(count) {
        state.dropped += count;
        model.changed();
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
        state.moved(status, detail, live.connections);
        model.changed();
      },
    },
  });
  live.start();
  return () => live.stop();
}
