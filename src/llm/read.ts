/** An LLM trace read back: its `llm` lines paired by call, in request order. */
import { readFile } from 'node:fs/promises';
import { type LlmCall, llmCalls, parseLines } from './calls.js';

export { type LlmCall, llmCalls, parseLines } from './calls.js';

/**
 * Reads a trace file's LLM calls (JSONL; unreadable lines skipped: the trace reader reports them elsewhere).
 *
 * @example const calls = await readLlmCalls('agent-llm.jsonl');
 */
export async function readLlmCalls(path: string): Promise<LlmCall[]> {
  const text = await readFile(path, 'utf8');
  return llmCalls(parseLines(text));
}
