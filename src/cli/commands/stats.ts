import type { Command } from 'commander';
import { renderStats } from '../../report/text/stats-report.js';
import type { TraceFiles } from '../../trace/import/files.js';
import { openTrace } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import { openedTraceStats, type TraceStats } from '../../trace/stats.js';
import { scanTimedSpan } from '../../trace/time.js';
import type { Json } from '../../trace/types.js';
import { LLM_FLAG } from '../agent-run.js';
import type { Cli } from '../context.js';
import { EXIT } from '../errors.js';
import { addLastFlag, type LastFlag, traceArgument } from '../flags/last.js';
import { redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { terminalWidth, useColor } from '../terminal.js';

export interface StatsOptions {
  /** Print the statistics as JSON (shape: TraceStats, version 1) instead of a report. */
  json?: boolean;
  /** The LLM recorder's trace of the same run: per tool, what the model asked for and what it cost in tokens. */
  llm?: string;
}

/**
 * Reads a trace of any importable format and computes its statistics in one streaming pass.
 *
 * @example const stats = await traceStats('traces/everything.jsonl'); stats.tools.map((t) => t.name)
 */
export async function traceStats(
  path: string,
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void,
  files?: TraceFiles,
): Promise<TraceStats> {
  // Message lines are read from their bytes where they can be: tool arguments and result content are measured,
  // never parsed (a million-message trace is mostly those), and their times are read as numbers.
  const trace = await openTrace(
    path,
    { ...(onDiagnostic ? { onDiagnostic } : {}), scanSpan: scanTimedSpan },
    files,
  );
  return openedTraceStats(trace);
}

/**
 * The output of `tapedeck stats`: a report, or with `json` the TraceStats object as pretty JSON.
 *
 * @example renderStatsOutput(stats, { json: true }, false)
 */
export function renderStatsOutput(
  stats: TraceStats,
  options: StatsOptions,
  color: boolean,
  width?: number,
): string {
  return options.json ? `${JSON.stringify(stats, null, 2)}\n` : renderStats(stats, { color, width });
}

/**
 * Runs `tapedeck stats` against the given streams; resolves to the number of corrupt lines skipped.
 *
 * @example await statsCommand('trace.jsonl', { json: true }, processIo());
 */
export async function statsCommand(path: string, options: StatsOptions, io: CliIo): Promise<number> {
  // Names and labels come from the trace: printed through the trace's redaction.
  const out = redactedIo(io, redactionFrom({}, io));
  if (options.llm !== undefined) {
    const { loadAgentRun } = await import('../agent-run.js');
    const { renderRunCost, runCost } = await import('../../llm/tool-stats.js');
    const cost = runCost(await loadAgentRun(path, options.llm, io));
    await print(
      out,
      options.json ? `${JSON.stringify(cost, null, 2)}\n` : `${renderRunCost(cost).join('\n')}\n`,
    );
    return 0;
  }
  let errors = 0;
  const stats = await traceStats(
    path,
    (d) => {
      if (d.severity === 'error') errors += 1;
      // A live or crashed recording has no end line; the report says so itself, no need to warn twice.
      if (d.code !== 'missing_end') say(out, `${d.severity}: ${d.message}`);
    },
    traceFiles(io),
  );
  const width = terminalWidth(io.stdout, io.env);
  // Redacted before the report is laid out: a name wrapped over two rows would hide a secret from a redaction of
  // the printed text.
  const shown = out.redaction.json(stats as unknown as Json) as unknown as TraceStats;
  await print(out, renderStatsOutput(shown, options, useColor(io.stdout, io.env), width));
  return errors;
}

/** Registers `tapedeck stats <trace> | --last [--json]`. */
export function registerStats(program: Command, { io, action }: Cli): void {
  const command = program
    .command('stats')
    .description(
      'Summarize a trace: duration, server, message and byte counts, latency per method and per tool.',
    )
    .argument(
      '[trace]',
      'trace file: tapedeck / mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON or HAR',
    )
    .option('--json', 'print the statistics as JSON (a stable shape, "version": 1)')
    .option(...LLM_FLAG);
  addLastFlag(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck stats ~/.tapedeck/traces/everything-20261129.jsonl',
        "  tapedeck stats calls.jsonl --json | jq '.tools[] | {name, p95: .latencyMs.p95}'",
        '  tapedeck stats --last',
        '  tapedeck stats mcp.jsonl --llm agent-llm.jsonl   per tool: calls, latency, tokens of results and schema',
        '',
        'Latency is response time minus request time, from the trace timestamps; p50/p95 are nearest-rank.',
        'errors counts JSON-RPC errors plus tool results with isError (--json keeps them apart).',
      ].join('\n'),
    )
    .action(
      action(async (trace: string | undefined, options: StatsOptions & LastFlag) => {
        const path = userPath(io, traceArgument(trace, options, 'stats', io));
        return (await statsCommand(path, options, io)) > 0 ? EXIT.input : EXIT.ok;
      }),
    );
}
