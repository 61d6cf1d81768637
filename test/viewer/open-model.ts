import { readFileSync } from 'node:fs';
import { type InputFile, loadFiles } from '../../viewer/src/data/load.js';
import { TraceModel } from '../../viewer/src/data/model.js';

/** The viewer's data modules in node: files read into a TraceModel the way every source reads them. */

const encoder = new TextEncoder();

/**
 * A model holding `files` (path → JSONL text or bytes), read to the end.
 *
 * @example const model = await openModel({ 'd0/calls.jsonl': text }); model.rows().length
 */
export async function openModel(files: Record<string, string | Uint8Array>): Promise<TraceModel> {
  const model = new TraceModel();
  await loadFiles(inputs(files), model);
  return model;
}

export function inputs(files: Record<string, string | Uint8Array>): InputFile[] {
  return Object.entries(files).map(([path, text]) => ({
    path,
    bytes: typeof text === 'string' ? encoder.encode(text) : text,
  }));
}

/** A fixture file's text. */
export const text = (path: string) => readFileSync(path, 'utf8');

/** JSONL text of trace lines. */
export const jsonl = (lines: readonly object[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
