import { TapedeckError } from '../../base/errors.js';
import { redactDocument } from '../../redact/documents.js';
import { summarize } from '../../redact/index.js';
import type { Redaction } from '../../redact/setup.js';
import { encodeLine } from '../../trace/encode.js';
import type { TraceFiles } from '../../trace/import/files.js';
import type { TraceFormat } from '../../trace/import/opened.js';
import { nodeTraceFiles } from '../../trace/io.js';
import type { Json, MetaLine, TraceLine } from '../../trace/types.js';

/**
 * `tapedeck redact` for files of other tools' formats, written back in their own format: an mcporter recording stays
 * mcporter NDJSON (so mcporter can still replay it), an mcp-tape trace stays mcp-tape JSONL, a HAR stays a HAR, a
 * shack trajectory and an HTTP exchanges capture stay what they were. A line or document with nothing to hide is
 * written back byte for byte.
 */

/** Formats redacted in their own format here (tapedeck's own goes through the trace reader). */
export type KeptFormat = Exclude<TraceFormat, 'tapedeck'>;

/** Told about an input line that is not JSON and was left out: its number and why. */
export type OnCorrupt = (lineNo: number, why: string) => void;

async function* rawLines(path: string, files: TraceFiles): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of files.read(path)) {
    rest += decoder.decode(chunk, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      yield rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest !== '') yield rest;
}

function parseLine(text: string): Record<string, Json> | undefined {
  try {
    const value = JSON.parse(text) as Json;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One mcporter line: the JSON-RPC message is redacted as a message; `_meta` stays as it was, in its place. */
function mcporterLine(record: Record<string, Json>, redaction: Redaction): Record<string, Json> | undefined {
  const { _meta: meta, ...message } = record;
  const dir =
    typeof meta === 'object' && meta !== null && !Array.isArray(meta) && meta.dir === 'recv' ? 'out' : 'in';
  const line = { t: '', dir, raw: message } as TraceLine;
  const out = redaction.redactor(line) as { raw: Json };
  if (out === line) return undefined;
  const raw = out.raw;
  // Redaction failed on the line: its message is gone, only the envelope stays.
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { redacted: raw, _meta: meta ?? null };
  return Object.fromEntries(
    Object.keys(record).map((key): [string, Json] => [
      key,
      (key === '_meta' ? record[key] : raw[key]) ?? null,
    ]),
  );
}

async function* lineFormat(
  path: string,
  format: 'mcporter' | 'mcp-tape',
  redaction: Redaction,
  onCorrupt: OnCorrupt,
  files: TraceFiles,
): AsyncGenerator<string> {
  let lineNo = 0;
  for await (const text of rawLines(path, files)) {
    lineNo += 1;
    if (text.trim() === '') {
      yield `${text}\n`;
      continue;
    }
    const record = parseLine(text.endsWith('\r') ? text.slice(0, -1) : text);
    if (record === undefined) {
      onCorrupt(lineNo, 'not a JSON object; left out (it cannot be redacted)');
      continue;
    }
    if (format === 'mcporter') {
      const out = mcporterLine(record, redaction);
      yield out === undefined ? `${text}\n` : `${JSON.stringify(out)}\n`;
      continue;
    }
    const line = record as unknown as TraceLine;
    if (line.type === 'meta') {
      // The meta line says which redaction was applied (mcp-tape readers ignore fields they do not know).
      yield encodeLine({ ...redaction.redactor(line as MetaLine), redaction: summarize(redaction.config) });
      continue;
    }
    const out = redaction.redactor(line);
    yield out === line ? `${text}\n` : encodeLine(out);
  }
}

/** The text a whole JSON document was written with: indentation and a final line break kept. */
function writeLike(text: string, value: Json): string {
  const indent = /^[[{]\r?\n([ \t]+)/.exec(text.trimStart())?.[1] ?? '';
  const json = indent === '' ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  return text.endsWith('\n') ? `${json}\n` : json;
}

async function* documentFormat(
  path: string,
  redaction: Redaction,
  files: TraceFiles,
): AsyncGenerator<string> {
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of files.read(path)) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  const text = parts.join('');
  let doc: Json;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, '')) as Json;
  } catch (err) {
    throw new TapedeckError('input', `${path} is not valid JSON: ${(err as Error).message}`);
  }
  const out = redactDocument(doc, redaction.compiled);
  yield out === doc ? text : writeLike(text, out);
}

/**
 * The redacted file, in `format` (never tapedeck's own: that one is stitched and read as a trace), as text chunks,
 * read through `files` (the ones it was opened with, so a trace read from stdin is read from what was held).
 *
 * @example await writePrivateFile('shareable.ndjson', redactedInFormat('run.ndjson', 'mcporter', redaction, warn));
 */
export function redactedInFormat(
  path: string,
  format: KeptFormat,
  redaction: Redaction,
  onCorrupt: OnCorrupt,
  files: TraceFiles = nodeTraceFiles,
): AsyncGenerator<string> {
  if (format === 'mcporter' || format === 'mcp-tape')
    return lineFormat(path, format, redaction, onCorrupt, files);
  return documentFormat(path, redaction, files);
}
