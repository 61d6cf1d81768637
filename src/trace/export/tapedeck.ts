import { PRODUCER } from '../../base/version.js';
import { encodeLine } from '../encode.js';
import type { OpenedTrace } from '../import/opened.js';
import type { MetaLine } from '../types.js';

/**
 * Export to tapedeck JSONL: the meta line, then every record line and the end line as opened. Whatever the source
 * (an import, a rotated trace), the result is one self-contained file, so a stitched trace's meta says segment 0.
 * Lines from mcp-tape sources keep their fields and gain the `seq` the reader assigned; a meta without a producer
 * (mcp-tape writes none) gets tapedeck's, since tapedeck wrote this file.
 *
 * @example
 * const trace = await openTrace('session.ndjson'); // mcporter
 * await writePrivateFile('session.jsonl', toTapedeck(trace));
 */
export async function* toTapedeck(trace: Pick<OpenedTrace, 'meta' | 'lines'>): AsyncGenerator<string> {
  yield encodeLine(singleFileMeta(trace.meta));
  for await (const { line } of trace.lines()) yield encodeLine(line);
}

function singleFileMeta(meta: MetaLine): MetaLine {
  const out: MetaLine = { ...meta };
  if (out.segment !== undefined) out.segment = 0;
  if (out.producer === undefined) out.producer = { ...PRODUCER };
  return out;
}
