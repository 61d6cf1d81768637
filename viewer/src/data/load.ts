import {
  memoryTraceFiles,
  type OpenedTrace,
  openTraceWith,
  type TraceFiles,
} from '../../../src/trace/index.js';
import { splitPath } from '../../../src/trace/segments.js';
import type { TraceModel } from './model.js';
import { bytesText } from './raw-text.js';

/** A file the viewer was given: dropped, picked, fetched from `tapedeck view`, or embedded in a report. */
export interface InputFile {
  /** A path in a virtual folder: files of one folder may be rotated segments of one trace and get stitched. */
  path: string;
  bytes: Uint8Array;
}

/** Work this long, then let the page paint (and show progress) before reading on. */
const SLICE_MS = 60;

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The name to show for a file: its own name, without the virtual folder. */
export function displayName(path: string): string {
  return splitPath(path).name;
}

/**
 * Opens files into the model, each trace once: rotated segments given together are stitched into one trace
 * (whichever segment comes first names it), other files become traces of their own, merged by time on the
 * timeline. A file that cannot be read becomes one line in `model.failures`; the rest still open.
 *
 * @example await loadFiles([{ path: 'calls.jsonl', bytes }], model);
 */
export async function loadFiles(files: readonly InputFile[], model: TraceModel): Promise<void> {
  const contents: Record<string, Uint8Array> = {};
  for (const file of files) contents[file.path] = file.bytes;
  const memory = memoryTraceFiles(contents, 1024 * 1024);
  const total = files.reduce((n, f) => n + f.bytes.length, 0) || 1;
  // Bytes handed to the reader so far: progress without a second look at the data.
  let read = 0;
  const store: TraceFiles = {
    ...memory,
    async *read(path) {
      for await (const chunk of memory.read(path)) {
        read += chunk.length;
        yield chunk;
      }
    },
  };
  const taken = new Set<string>();
  for (const file of files) {
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
    await readTrace(trace, contents, model, () => {
      model.loading = { progress: Math.min(1, read / total), text: `Reading ${displayName(file.path)}…` };
    });
  }
  model.loading = undefined;
  model.changed();
}

async function readTrace(
  trace: OpenedTrace,
  contents: Record<string, Uint8Array>,
  model: TraceModel,
  progress: () => void,
): Promise<void> {
  const newest = trace.segments[trace.segments.length - 1]?.file ?? trace.path;
  const source = model.addSource({
    name: displayName(newest),
    format: trace.format,
    meta: trace.meta,
    files: trace.segments.map((s) => bytesText(s.file, contents[s.file] ?? new Uint8Array(0))),
  });
  let segment = trace.segments[0]?.segment ?? 0;
  let slice = performance.now();
  for await (const batch of trace.batches()) {
    for (const entry of batch) {
      if (entry.segment !== segment) {
        segment = entry.segment;
        const meta = trace.segments.find((s) => s.segment === segment)?.meta;
        if (meta) source.pushMeta(meta);
      }
      source.push(entry.line, entry);
    }
    if (performance.now() - slice > SLICE_MS) {
      progress();
      model.changed();
      await tick();
      slice = performance.now();
    }
  }
  source.finish();
  source.diagnostics.push(...trace.diagnostics);
}
