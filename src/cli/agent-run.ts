import { type AgentRun, linkRun } from '../llm/link.js';
import { readLlmCalls } from '../llm/read.js';
import { loadTrace } from '../trace/io.js';
import { collectExchanges } from '../trace/pairing.js';
import type { TraceLine } from '../trace/types.js';
import { type CliIo, traceFiles, userPath } from './io.js';

/**
 * An agent's run from its MCP trace and the LLM recorder's trace of the same run (`show --llm`, `stats --llm`):
 * the model turns linked to the MCP calls that carried out their tool calls.
 *
 * @example const run = await loadAgentRun('mcp.jsonl', 'agent-llm.jsonl', io);
 */
export async function loadAgentRun(mcpPath: string, llmPath: string, io: CliIo): Promise<AgentRun> {
  const [trace, calls] = await Promise.all([
    loadTrace(mcpPath, {}, traceFiles(io)),
    readLlmCalls(userPath(io, llmPath)),
  ]);
  const lines: TraceLine[] = trace.entries.map((entry) => entry.line);
  return linkRun(calls, collectExchanges(lines).exchanges);
}

/** The `--llm <file>` flag of `show` and `stats`. */
export const LLM_FLAG = [
  '--llm <file>',
  "the LLM recorder's trace of the same run (record --llm): model turns merged by time, their tool calls linked to the MCP calls",
] as const;
