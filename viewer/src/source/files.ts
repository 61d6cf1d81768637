import { type InputFile, loadFiles } from '../data/load.js';
import type { TraceModel } from '../data/model.js';
import type { Opened } from './trace-source.js';

/** What the status bar says while files are fetched and read, and what a failure to get them is called. */
export interface FilesText {
  /** While the files are being fetched (a served page asks for its list first). */
  fetching: string;
  /** While the reader works through them. */
  reading: string;
  /** Prefix of the line a failure to get the files becomes. */
  failure: string;
}

/**
 * Opens a source's files into a model: `get` fetches or reads them (it may hand back downloads still under way),
 * then the reader takes them in batches. The three sources made of files (report, served, local) open this way.
 *
 * @example openFiles(model, async () => files, { fetching: 'Reading…', reading: 'Reading…', failure: 'Could not read the traces' })
 */
export function openFiles(
  model: TraceModel,
  get: (signal: AbortSignal) => Promise<readonly InputFile[]>,
  text: FilesText,
): Opened {
  const abort = new AbortController();
  const { signal } = abort;
  model.loading = { progress: 0, text: text.fetching };
  model.changed();
  const ready = (async () => {
    let files: readonly InputFile[];
    try {
      files = await get(signal);
    } catch (err) {
      if (!signal.aborted) model.fail(text.failure, err);
      return;
    }
    if (signal.aborted) return;
    model.loading = { progress: 0, text: text.reading };
    model.changed();
    try {
      await loadFiles(files, model, signal);
    } catch (err) {
      if (!signal.aborted) model.fail('Could not read the traces', err);
    }
  })();
  return { ready, close: () => abort.abort() };
}

/** A source with no list to offer. */
export async function noList(): Promise<undefined> {
  return undefined;
}
