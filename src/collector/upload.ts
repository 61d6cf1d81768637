import { randomBytes } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { encodeLine } from '../trace/encode.js';
import { detectLineFormat } from '../trace/import/detect.js';
import type { TraceFormat } from '../trace/import/opened.js';
import { openTrace } from '../trace/io.js';
import type { TraceLine } from '../trace/types.js';
import { ApiError } from './api-error.js';
import { BatchWriter, type IngestResult, type IngestTarget, ingestJsonl } from './ingest.js';

/**
 * An upload in any format tapedeck reads. JSONL traces (tapedeck, mcp-tape) stream straight into the store.
 * The other formats need more than one pass (mcporter) or a whole-document parse (shack, HTTP exchanges), so
 * their body is spooled to a private temporary file beside the database and read back with the importers —
 * still never held whole in memory by the collector.
 */

/** How much of the body is looked at to tell the format: enough for any sensible first line. */
const HEAD_BYTES = 1024 * 1024;

export interface UploadOptions {
  /** Where spooled bodies go (the database's folder). */
  spoolDir: string;
  /** Skip detection. */
  format?: TraceFormat | undefined;
  maxLineBytes?: number | undefined;
  /** The largest JSON document of a format read whole (shack, HAR, HTTP exchanges). */
  maxDocumentBytes?: number | undefined;
}

/**
 * Ingests an upload body, detecting its format from the first line.
 *
 * @example const { format, lines } = await ingestUpload(body, target, { spoolDir });
 */
export async function ingestUpload(
  body: AsyncIterable<Uint8Array>,
  target: IngestTarget,
  options: UploadOptions,
): Promise<IngestResult & { format: TraceFormat }> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let done = false;
  while (!done && headBytes < HEAD_BYTES && !hasFirstLine(head)) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      head.push(next.value);
      headBytes += next.value.length;
    }
  }
  const rest = (async function* () {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  const format = options.format ?? detect(head);
  if (format === 'tapedeck' || format === 'mcp-tape') {
    const result = await ingestJsonl(rest, target, options.maxLineBytes);
    return { ...result, format };
  }
  return spooled(rest, target, options, format);
}

/** The format the first line names; undefined when it takes the importers to tell (or nobody can). */
function detect(head: Uint8Array[]): TraceFormat | undefined {
  const text = new TextDecoder().decode(Buffer.concat(head)).trimStart();
  if (text.startsWith('[')) return undefined;
  const nl = text.indexOf('\n');
  let value: unknown;
  try {
    value = JSON.parse(nl === -1 ? text : text.slice(0, nl));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return detectLineFormat(value as Record<string, unknown>)?.format;
}

async function spooled(
  chunks: AsyncIterable<Uint8Array>,
  target: IngestTarget,
  options: UploadOptions,
  format: TraceFormat | undefined,
): Promise<IngestResult & { format: TraceFormat }> {
  const path = join(options.spoolDir, `.upload-${randomBytes(9).toString('base64url')}.tmp`);
  try {
    const file = await open(path, 'wx', 0o600);
    try {
      for await (const chunk of chunks) await file.write(chunk);
    } finally {
      await file.close();
    }
    const writer = new BatchWriter(target);
    const add = (line: TraceLine) => writer.add(line, encodeLine(line).slice(0, -1));
    try {
      const trace = await openTrace(path, {
        mode: 'strict',
        stitch: false,
        ...(format === undefined ? {} : { format }),
        ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
        ...(options.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: options.maxDocumentBytes }),
      });
      add(trace.meta);
      for await (const batch of trace.batches()) {
        for (const { line } of batch) add(line);
        await writer.drain();
      }
      await writer.flush();
      return { ...writer.result, format: trace.format };
    } catch (err) {
      throw importError(err, path);
    }
  } finally {
    await unlink(path).catch(() => {});
  }
}

/** The importers' errors, told in terms of the request body instead of the spool file. */
function importError(err: unknown, path: string): unknown {
  if (!(err instanceof TapedeckError)) return err;
  const message = err.message.split(path).join('body');
  if (err.code === 'corrupt_trace') {
    const match = /^body:(\d+): (.*)$/.exec(message);
    if (match)
      return new ApiError(400, 'malformed_line', `line ${match[1]}: ${match[2]}`, { line: Number(match[1]) });
    return new ApiError(400, 'malformed_line', message);
  }
  if (err.code === 'unknown_format') return new ApiError(400, 'unsupported_format', message);
  if (err.code === 'input') return new ApiError(413, 'payload_too_large', message);
  return new ApiError(400, 'bad_request', message);
}

function hasFirstLine(head: Uint8Array[]): boolean {
  let seenContent = false;
  for (const chunk of head) {
    for (const byte of chunk) {
      if (byte === 10 && seenContent) return true;
      if (byte !== 10 && byte !== 13 && byte !== 32 && byte !== 9) seenContent = true;
    }
  }
  return false;
}
