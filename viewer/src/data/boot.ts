import { GrowingBytes } from './growing.js';
import type { InputFile } from './load.js';

/**
 * Where the page gets its traces, read once from the page itself:
 * - `report`: a self-contained report; each trace is embedded as a `<script type="application/x-tapedeck-trace">`
 *   element (JSONL text, `<` written as `\u003c` so no line can close the element);
 * - `files`: served by `tapedeck view`, which lists the files at `api/files` (relative to the page);
 * - `standalone`: anything else (the collector's copy, a plain static copy): open files by hand, or a collector
 *   trace by its `#/trace/<id>` link.
 */
export type Boot =
  | { kind: 'report'; title: string | undefined; files: InputFile[] }
  | { kind: 'files'; api: string }
  | { kind: 'standalone' };

export const TRACE_SCRIPT_TYPE = 'application/x-tapedeck-trace';

export function readBoot(doc: Document): Boot {
  const embedded = [...doc.querySelectorAll(`script[type="${TRACE_SCRIPT_TYPE}"]`)];
  if (embedded.length > 0) {
    const encoder = new TextEncoder();
    const files = embedded.map((el, i) => ({
      path: el.getAttribute('data-path') ?? `report/${i}.jsonl`,
      bytes: encoder.encode(el.textContent ?? ''),
    }));
    return {
      kind: 'report',
      title: doc.querySelector('meta[name="tapedeck-title"]')?.getAttribute('content') ?? undefined,
      files,
    };
  }
  const config = doc.getElementById('tapedeck-config');
  if (config?.textContent) {
    try {
      const parsed = JSON.parse(config.textContent) as { mode?: unknown; api?: unknown };
      if (parsed.mode === 'files')
        return { kind: 'files', api: typeof parsed.api === 'string' ? parsed.api : 'api/' };
    } catch {
      // A broken config is the same as none.
    }
  }
  return { kind: 'standalone' };
}

/** One file `tapedeck view` serves. */
export interface ServedFile {
  path: string;
  size: number;
  url: string;
}

/**
 * Starts fetching the files `tapedeck view` serves. Resolves as soon as the list is known: each file's bytes are a
 * download in progress, which the reader starts on right away.
 *
 * @example const files = await fetchServedFiles('api/');
 */
export async function fetchServedFiles(api: string): Promise<InputFile[]> {
  const listing = await fetch(`${api}files`, { headers: { accept: 'application/json' } });
  if (!listing.ok) throw new Error(`the file list answered ${listing.status}`);
  const { files } = (await listing.json()) as { files: ServedFile[] };
  const out = files.map((file) => ({ path: file.path, size: file.size, bytes: new GrowingBytes() }));
  void (async () => {
    // One after the other: the reader takes them in this order too.
    for (const [i, file] of files.entries()) await download(file.url, out[i]!.bytes);
  })();
  return out;
}

async function download(url: string, into: GrowingBytes): Promise<void> {
  try {
    const response = await fetch(url);
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

/** Files the user dropped or picked, read into memory in one virtual folder (so rotated segments stitch). */
export async function readLocalFiles(list: FileList | readonly File[]): Promise<InputFile[]> {
  const files = [...list];
  return Promise.all(
    files.map(async (file) => ({
      path: `local/${file.name}`,
      bytes: new Uint8Array(await file.arrayBuffer()),
    })),
  );
}
