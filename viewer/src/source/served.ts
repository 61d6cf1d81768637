import { GrowingBytes } from '../data/growing.js';
import type { InputFile } from '../data/load.js';
import { noList, openFiles } from './files.js';
import type { TraceSource } from './trace-source.js';

/**
 * The files `tapedeck view` serves beside the page (src/view/server.ts): their list at `<api>files`, each file
 * at the URL the list gives (relative to the page). Every URL sits under the server's token, which the page's own
 * address carries.
 *
 * @example const source = servedSource(new URL('api/', location.href), new URL(location.href));
 */
export function servedSource(api: URL, page: URL): TraceSource {
  return {
    kind: 'served',
    capabilities: { own: true, list: false, follow: false, search: false, openFiles: true },
    list: noList,
    open: (model) =>
      openFiles(model, (signal) => fetchServedFiles(api, page, signal), {
        fetching: 'Fetching traces…',
        reading: 'Reading…',
        failure: 'Could not fetch the traces',
      }),
  };
}

/** One file `tapedeck view` lists. */
export interface ServedFile {
  path: string;
  size: number;
  /** Relative to the page. */
  url: string;
}

/**
 * Starts fetching the served files. Resolves as soon as the list is known: each file's bytes are a download in
 * progress, which the reader starts on right away.
 *
 * @example const files = await fetchServedFiles(new URL('api/', location.href), new URL(location.href));
 */
export async function fetchServedFiles(api: URL, page: URL, signal?: AbortSignal): Promise<InputFile[]> {
  const listing = await fetch(new URL('files', api), {
    headers: { accept: 'application/json' },
    ...(signal ? { signal } : {}),
  });
  if (!listing.ok) throw new Error(`the file list answered ${listing.status}`);
  const { files } = (await listing.json()) as { files: ServedFile[] };
  const out = files.map((file) => ({ path: file.path, size: file.size, bytes: new GrowingBytes() }));
  void (async () => {
    // One after the other: the reader takes them in this order too.
    for (const [i, file] of files.entries()) await download(file.url, page, out[i]!.bytes, signal);
  })();
  return out;
}

async function download(
  url: string,
  page: URL,
  into: GrowingBytes,
  signal: AbortSignal | undefined,
): Promise<void> {
  try {
    const response = await fetch(new URL(url, page), signal ? { signal } : {});
    // The relative URL in the message: the page's own address holds the token.
    if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      into.push(value);
    }
    into.finish();
  } catch (err) {
    into.fail(err);
  }
}
