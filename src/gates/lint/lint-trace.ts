import type { TraceFiles } from '../../trace/import/files.js';
import { nodeTraceFiles, openTrace } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { LintFinding } from './finding.js';
import { Linter, type RuleLevels } from './linter.js';
import type { FindingLevel } from './rules.js';

/** What lint found in one trace. */
export interface LintResult {
  trace: string;
  format: string;
  /** Lines read (meta included). */
  lines: number;
  /** Corrupt lines that could not be read, as the reader reported them. */
  diagnostics: TraceDiagnostic[];
  findings: LintFinding[];
}

export interface LintOptions {
  levels?: RuleLevels;
  files?: TraceFiles;
}

/**
 * Lints one trace of any format tapedeck reads (rotated segments stitched), streaming: a trace of any size is read
 * once, in batches.
 *
 * @example const { findings } = await lintTrace('recordings/run.jsonl', { levels: { 'stdio/non-json': 'off' } });
 */
export async function lintTrace(path: string, options: LintOptions = {}): Promise<LintResult> {
  const diagnostics: TraceDiagnostic[] = [];
  const trace = await openTrace(
    path,
    { onDiagnostic: (d) => (d.code === 'missing_end' ? undefined : diagnostics.push(d)) },
    options.files ?? nodeTraceFiles,
  );
  const linter = new Linter(options.levels);
  let lines = 0;
  for (const segment of trace.segments) {
    linter.push(segment.meta, segment.file, 1);
    lines += 1;
  }
  for await (const batch of trace.batches()) {
    for (const { line, file, lineNo } of batch) {
      const pending = linter.push(line, file, lineNo);
      if (pending !== undefined) await pending;
    }
    lines += batch.length;
  }
  return { trace: path, format: trace.format, lines, diagnostics, findings: linter.finish() };
}

const RANK: Readonly<Record<FindingLevel, number>> = { info: 0, warn: 1, error: 2 };

/**
 * True when a finding is loud enough to fail the run under `--fail-on`.
 *
 * @example failsOn({ level: 'warn' }, 'error') // → false
 */
export function failsOn(finding: Pick<LintFinding, 'level'>, failOn: 'warn' | 'error'): boolean {
  return RANK[finding.level] >= RANK[failOn];
}
