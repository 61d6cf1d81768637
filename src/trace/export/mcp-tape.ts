import { encodeLine } from '../encode.js';
import type { OpenedTrace, TraceEntry } from '../import/opened.js';
import type { EndLine, MessageLine, MetaLine } from '../types.js';

/**
 * Export to the mcp-tape / mcpreplay.dev open format v1, the subset of tapedeck's format that mcp-tape writes: a
 * meta line (`v`, `type`, `startedAt`, `label`, `command`), message lines (`t`, `dir`, `raw`) and an end line
 * (`t`, `type`, `exitCode`, `durationMs`). tapedeck's own fields (`seq`, `server`, `conn`, producer, redaction …)
 * are left off, so the file is what mcp-tape itself would have written; stderr, text, http and event lines have no
 * place there and are reported through `onDropped`.
 *
 * @example
 * const trace = await openTrace('calls.jsonl');
 * await writePrivateFile('calls.mcp-tape.jsonl', toMcpTape(trace, { onDropped: (e, why) => console.warn(why) }));
 */
export async function* toMcpTape(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  options: { onDropped?: (entry: TraceEntry, reason: string) => void } = {},
): AsyncGenerator<string> {
  yield encodeLine(metaOf(trace.meta));
  for await (const entry of trace.lines()) {
    const { line } = entry;
    if (line.type === 'end') {
      yield encodeLine(endOf(line));
      continue;
    }
    if (line.type !== undefined) {
      options.onDropped?.(entry, `${line.type} lines have no mcp-tape equivalent`);
      continue;
    }
    const message = line as MessageLine;
    yield encodeLine({ t: message.t, dir: message.dir, raw: message.raw });
  }
}

function metaOf(meta: MetaLine): MetaLine {
  const out: MetaLine = { v: 1, type: 'meta', startedAt: meta.startedAt, label: meta.label };
  if (Array.isArray(meta.command)) out.command = meta.command;
  return out;
}

function endOf(end: EndLine): EndLine {
  const out = { t: end.t, type: 'end' } as EndLine;
  if (end.exitCode !== undefined) out.exitCode = end.exitCode;
  out.durationMs = end.durationMs;
  return out;
}
