import {
  type OpenedTrace,
  openTraceWith,
  splitPath,
  TapedeckError,
  type TraceFiles,
} from 'mcp-tapedeck/trace';
import type { GrowingBytes } from './growing.js';
import type { TraceModel } from './model.js';
import { bytesText } from './raw-text.js';

/** A file the viewer was given: dropped, picked, fetched from `tapedeck view`, or embedded in a report. */
export interface InputFile {
  /** A path in a virtual folder: files of one folder may be rotated segments of one trace and get stitched. */
  path: string;
  /** The whole file, or a download still coming in. */
  bytes: Uint8Array | GrowingBytes;
  /** The size expected, for progress (defaults to the bytes' length). */
  size?: number;
}

const CHUNK = 1024 * 1024;

/**
 * Work this long, then give the event loop a turn: a download still coming in is read on the same thread, and the
 * browser stops receiving while its buffer is full, so long slices would slow the download down.
 */
const SLICE_MS = 12;
/** Repaint the views this often while reading (each repaint costs more than a slice). */
const PAINT_MS = 250;

/** A turn of the event loop without setTimeout's clamping to 4 ms. */
function tick(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    // Browsers and Node both deliver to `onmessage`; Node's type declarations only know its `on('message')`.
    const port = channel.port1 as unknown as { onmessage: (() => void) | null; close(): void };
    port.onmessage = () => {
      port.close();
      resolve();
    };
    channel.port2.postMessage(undefined);
  });
}

/** The name to show for a file: its own name, without the virtual folder. */
export function displayName(path: string): string {
  return splitPath(path).name;
}

/**
 * Opens files into the model, each trace once: rotated segments given together are stitched into one trace
 * (whichever segment comes first names it), other files become traces of their own, merged by time on the
 * timeline. A file that cannot be read becomes one line in `model.failures`; the rest still open. Once `signal`
 * aborts (the page opened something else), reading stops at the next batch and the model is left alone; a trace
 * the user closes while it is read stops being read, and the next file is. `keep` marks the traces as ones the
 * user cannot close (SourceInfo.keep says why).
 *
 * @example await loadFiles([{ path: 'calls.jsonl', bytes }], model);
 */
export async function loadFiles(
  files: readonly InputFile[],
  model: TraceModel,
  signal?: AbortSignal,
  keep?: string,
): Promise<void> {
  const byPath = new Map(files.map((f) => [f.path, f.bytes]));
  const total =
    files.reduce((n, f) => n + (f.size ?? (f.bytes instanceof Uint8Array ? f.bytes.length : 0)), 0) || 1;
  // Bytes handed to the reader so far: progress without a second look at the data.
  let read = 0;
  const store: TraceFiles = {
    async check(path) {
      if (!byPath.has(path)) throw new TapedeckError('not_found', `no such trace file: ${path}`);
    },
    async *read(path) {
      const bytes = byPath.get(path);
      if (bytes === undefined) throw new TapedeckError('not_found', `no such trace file: ${path}`);
      if (bytes instanceof Uint8Array) {
        for (let at = 0; at < bytes.length; at += CHUNK) {
          const chunk = bytes.subarray(at, at + CHUNK);
          read += chunk.length;
          yield chunk;
        }
        return;
      }
      for await (const chunk of bytes.read(CHUNK)) {
        read += chunk.length;
        yield chunk;
      }
    },
    async siblings(path) {
      const dir = splitPath(path).dir;
      return files.map((f) => f.path).filter((other) => other !== path && splitPath(other).dir === dir);
    },
  };
  const taken = new Set<string>();
  for (const file of files) {
    if (signal?.aborted) return;
    if (taken.has(file.path)) continue;
    let trace: OpenedTrace;
    try {
      trace = await openTraceWith(store, file.path);
    } catch (err) {
      model.failures.push(`${displayName(file.path)}: ${err instanceof Error ? err.message : String(err)}`);
      model.changed();
      continue;
    }
    for (const segment of trace.segments) taken.add(segment.file);
    await readTrace(trace, byPath, model, signal, keep, () => {
      model.loading = { progress: Math.min(1, read / total), text: `Reading ${displayName(file.path)}…` };
    });
  }
  if (signal?.aborted) return;
  model.loading = undefined;
  model.changed();
}

async function readTrace(
  trace: OpenedTrace,
  byPath: ReadonlyMap<string, Uint8Array | GrowingBytes>,
  model: TraceModel,
  signal: AbortSignal | undefined,
  keep: string | undefined,
  progress: () => void,
): Promise<void> {
  const newest = trace.segments[trace.segments.length - 1]?.file ?? trace.path;
  const source = model.addSource({
    name: displayName(newest),
    format: trace.format,
    meta: trace.meta,
    files: trace.segments.map((s) => {
      const bytes = byPath.get(s.file);
      return bytesText(s.file, () =>
        bytes === undefined ? new Uint8Array(0) : bytes instanceof Uint8Array ? bytes : bytes.bytes(),
      );
    }),
    ...(keep === undefined ? {} : { keep }),
  });
  let segment = trace.segments[0]?.segment ?? 0;
  let slice = performance.now();
  // The first rows show as soon as there are some, later ones at most PAINT_MS after they were read: a download
  // that stalls must not leave the rows read before it unseen until more bytes come.
  let painted = Number.NEGATIVE_INFINITY;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const paint = () => {
    clearTimeout(trailing);
    trailing = undefined;
    progress();
    model.changed();
    painted = performance.now();
  };
  try {
    for await (const batch of trace.batches()) {
      // Leaving the loop releases the files.
      if (signal?.aborted || source.closed) return;
      for (const entry of batch) {
        if (entry.segment !== segment) {
          segment = entry.segment;
          const meta = trace.segments.find((s) => s.segment === segment)?.meta;
          if (meta) source.pushMeta(meta);
        }
        source.push(entry.line, entry);
      }
      const now = performance.now();
      if (now - painted > PAINT_MS) paint();
      else trailing ??= setTimeout(paint, PAINT_MS - (now - painted));
      if (now - slice > SLICE_MS) {
        await tick();
        slice = performance.now();
      }
    }
  } finally {
    // Read to the end (the caller paints), or the page moved on (the model is left alone).
    clearTimeout(trailing);
  }
  source.finish();
  source.diagnostics.push(...trace.diagnostics);
}
