import type { InputFile } from '../data/load.js';
import { noList, openFiles } from './files.js';
import type { TraceSource } from './trace-source.js';

/**
 * The traces a self-contained report carries in its own page (boot.ts reads them out of their data elements).
 * Nothing is fetched: a report opened from disk works with the network shut off, as its content security policy
 * demands.
 *
 * @example const source = reportSource([{ path: 'r0/calls.jsonl', bytes }]); source.open(model);
 */
export function reportSource(files: readonly InputFile[]): TraceSource {
  return {
    kind: 'report',
    capabilities: { own: true, list: false, follow: false, search: false, openFiles: false },
    list: noList,
    open: (model) =>
      openFiles(model, async () => files, {
        fetching: 'Reading…',
        reading: 'Reading…',
        failure: 'Could not read the traces',
      }),
  };
}
