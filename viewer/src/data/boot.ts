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
 * Fetches the files `tapedeck view` serves, reporting bytes received so far.
 *
 * @example const files = await fetchServedFiles('api/', (got, total) => …);
 */
export async function fetchServedFiles(
  api: string,
  progress: (received: number, total: number) => void,
): Promise<InputFile[]> {
  const listing = await fetch(`${api}files`, { headers: { accept: 'application/json' } });
  if (!listing.ok) throw new Error(`the file list answered ${listing.status}`);
  const { files } = (await listing.json()) as { files: ServedFile[] };
  const total = files.reduce((n, f) => n + f.size, 0);
  let received = 0;
  const out: InputFile[] = [];
  for (const file of files) {
    const response = await fetch(file.url);
    if (!response.ok || !response.body) throw new Error(`${file.path} answered ${response.status}`);
    const bytes = new Uint8Array(file.size);
    let at = 0;
    const parts: Uint8Array[] = [];
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // The file may have grown since it was listed (a trace still being written): keep every byte.
      if (at + value.length <= bytes.length) bytes.set(value, at);
      else parts.push(value);
      at += value.length;
      received += value.length;
      progress(received, total);
    }
    out.push({ path: file.path, bytes: parts.length === 0 ? bytes.subarray(0, at) : join(bytes, parts, at) });
  }
  return out;
}

function join(head: Uint8Array, parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(head);
  let at = head.length;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
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
