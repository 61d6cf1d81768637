import type { TraceFiles } from '../../trace/import/files.js';
import { nodeTraceFiles, openTrace } from '../../trace/io.js';
import { type AgentRun, RunReader } from './runs.js';

/**
 * Reads one recorded run: its tool calls in order, its errors and its duration.
 *
 * @example const run = await readRun('runs/1.jsonl'); run.calls.map((c) => c.tool)
 */
export async function readRun(path: string, files: TraceFiles = nodeTraceFiles): Promise<AgentRun> {
  const trace = await openTrace(path, {}, files);
  const reader = new RunReader(path);
  reader.push(trace.meta, 1);
  for await (const batch of trace.batches()) for (const { line, lineNo } of batch) reader.push(line, lineNo);
  return reader.result();
}
