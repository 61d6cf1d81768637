import { PRODUCER } from '../../base/version.js';
import { summarize } from '../../redact/index.js';
import type { Redaction } from '../../redact/setup.js';
import { deriveLabel } from '../../sink/naming.js';
import { encodeLine } from '../../trace/encode.js';
import type { OpenedTrace } from '../../trace/import/opened.js';
import type { MetaLine } from '../../trace/types.js';

// A tapedeck trace redacted after the fact, as `redact` writes it and `report` embeds it.

/**
 * The meta line of a redacted trace: the redactor's copy (command, label, url) with the redaction summary. A label
 * that was derived from the command is derived again from the redacted command, as `record` derives it.
 *
 * @example redactedMeta(trace.meta, redactionFrom(options, io))
 */
export function redactedMeta(meta: MetaLine, { config, redactor }: Redaction): MetaLine {
  const out: MetaLine = { ...redactor({ ...meta, redaction: summarize(config) }) };
  const derived = Array.isArray(meta.command) && meta.label === deriveLabel(meta.command);
  if (derived && Array.isArray(out.command)) out.label = deriveLabel(out.command);
  return out;
}

/**
 * The trace as redacted tapedeck JSONL lines. As one self-contained file (`single`) the meta says segment 0 and
 * names tapedeck as producer where the source named none, as `convert --to tapedeck` writes it.
 *
 * @example for await (const line of redactedLines(trace, redaction, true)) out.push(line);
 */
export async function* redactedLines(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  redaction: Redaction,
  single: boolean,
): AsyncGenerator<string> {
  const { redactor } = redaction;
  const meta = redactedMeta(trace.meta, redaction);
  if (single && meta.segment !== undefined) meta.segment = 0;
  if (meta.producer === undefined) meta.producer = { ...PRODUCER };
  yield encodeLine(meta);
  for await (const { line } of trace.lines()) yield encodeLine(redactor(line));
}
