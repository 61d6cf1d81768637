import { canonicalJson } from '../trace/canonical-json.js';
import { nodeTraceFiles, openTrace } from '../trace/io.js';
import type { Json, TraceLine } from '../trace/types.js';
import { isSubset } from './check/evaluate.js';
import { RunReader } from './check/runs.js';
import type { LintFinding } from './lint/finding.js';
import { Linter, type RuleLevels } from './lint/linter.js';

/**
 * What the matchers look at: a trace file's path (a recording in progress too: its lines so far), anything with a
 * `path` (the session `useCassette` returns), or trace lines in memory (a memory sink's).
 */
export type TraceSubject = string | URL | { path: string } | readonly TraceLine[];

/** A matcher's answer, in the shape vitest's and Jest's `expect.extend` take. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

async function* linesOf(
  subject: TraceSubject,
): AsyncGenerator<{ line: TraceLine; file: string; lineNo: number }> {
  if (Array.isArray(subject)) {
    let n = 0;
    for (const line of subject as readonly TraceLine[]) yield { line, file: '(memory)', lineNo: ++n };
    return;
  }
  const path =
    subject instanceof URL
      ? (await import('node:url')).fileURLToPath(subject)
      : typeof subject === 'string'
        ? subject
        : (subject as { path: string }).path;
  const trace = await openTrace(path, {}, nodeTraceFiles);
  yield { line: trace.meta, file: path, lineNo: 1 };
  for await (const batch of trace.batches()) for (const entry of batch) yield entry;
}

async function callsOf(subject: TraceSubject) {
  const reader = new RunReader('');
  for await (const { line, lineNo } of linesOf(subject)) reader.push(line, lineNo);
  return reader.result().calls;
}

/**
 * Passes when the trace holds a tools/call of `name` (whose arguments hold `args`, when given).
 *
 * @example expect.extend({ toHaveCalledTool: calledTool }); await expect('run.jsonl').toHaveCalledTool('search', { query: 'x' });
 */
export async function calledTool(subject: TraceSubject, name: string, args?: Json): Promise<MatcherResult> {
  const calls = await callsOf(subject);
  const named = calls.filter((c) => c.tool === name);
  const pass = named.some((c) => args === undefined || isSubset(c.args, args));
  const wanted = args === undefined ? `"${name}"` : `"${name}" with arguments holding ${canonicalJson(args)}`;
  return {
    pass,
    message: () =>
      pass
        ? `expected no call of ${wanted}, but there was one`
        : named.length > 0
          ? `expected a call of ${wanted}; its calls had ${named.map((c) => canonicalJson(c.args)).join(', ')}`
          : `expected a call of ${wanted}; the tools called were ${calls.map((c) => c.tool).join(', ') || 'none'}`,
  };
}

/**
 * Passes when the trace calls these tools in this order (other calls may come between).
 *
 * @example await expect(session).toHaveCalledToolsInOrder(['search', 'summarize']);
 */
export async function calledToolsInOrder(
  subject: TraceSubject,
  names: readonly string[],
): Promise<MatcherResult> {
  const calls = await callsOf(subject);
  let next = 0;
  for (const call of calls) if (call.tool === names[next]) next += 1;
  const pass = next === names.length;
  const seen = calls.map((c) => c.tool).join(' → ') || 'none';
  return {
    pass,
    message: () =>
      pass
        ? `expected the tools not to be called in the order ${names.join(' → ')}, but they were (${seen})`
        : `expected calls in the order ${names.join(' → ')}; stopped before "${names[next]}" in ${seen}`,
  };
}

/**
 * Passes when `tapedeck lint` finds no error in the trace (warnings and info pass; `levels` sets rules as
 * `--rule` does).
 *
 * @example await expect('run.jsonl').toHaveNoProtocolErrors();
 */
export async function noProtocolErrors(
  subject: TraceSubject,
  levels: RuleLevels = {},
): Promise<MatcherResult> {
  const linter = new Linter(levels);
  for await (const { line, file, lineNo } of linesOf(subject)) {
    const pending = linter.push(line, file, lineNo);
    if (pending !== undefined) await pending;
  }
  const errors: LintFinding[] = linter.finish().filter((f) => f.level === 'error');
  return {
    pass: errors.length === 0,
    message: () =>
      errors.length === 0
        ? 'expected protocol errors, but lint found none'
        : `expected no protocol errors; lint found ${errors.length}:\n${errors.map((f) => `  line ${f.line} ${f.rule}: ${f.message}`).join('\n')}`,
  };
}
