import type { InputFile } from '../data/load.js';
import { noList, openFiles } from './files.js';
import type { TraceSource } from './trace-source.js';

/** The part of a browser File the viewer reads (a File, or any Blob with a name). */
export interface LocalFile {
  readonly name: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * Files the user dropped on the page or picked, read in this browser (nothing is uploaded). They share one
 * virtual folder, so rotated segments given together stitch into one trace. `add` puts them beside the traces
 * already open (a second trace to merge or compare) instead of in a fresh model; a file that is not a trace then
 * becomes a line in the model's failures and what is open stays.
 *
 * @example const source = localSource(input.files); source.open(new TraceModel());
 */
export function localSource(list: ArrayLike<LocalFile>, how: 'open' | 'add' = 'open'): TraceSource {
  // Copied now: a drop event's file list is emptied once the event is handled.
  const files = Array.from(list);
  const reading = how === 'add' ? 'Adding…' : 'Reading…';
  return {
    kind: 'local',
    capabilities: { own: true, list: false, follow: false, search: false, openFiles: true },
    list: noList,
    open: (model) =>
      openFiles(model, () => readLocalFiles(files), {
        fetching: reading,
        reading,
        failure: 'Could not read the traces',
      }),
  };
}

/**
 * The files' bytes, each under `local/<name>`.
 *
 * @example await readLocalFiles([new File(['…'], 'calls.jsonl')]) // → [{ path: 'local/calls.jsonl', bytes }]
 */
export async function readLocalFiles(files: readonly LocalFile[]): Promise<InputFile[]> {
  return Promise.all(
    files.map(async (file) => ({
      path: `local/${file.name}`,
      bytes: new Uint8Array(await file.arrayBuffer()),
    })),
  );
}
