/** An LLM trace read back: its `llm` lines paired by call, in request order. */
import { readFile } from 'node:fs/promises';
import { parseTime } from '../trace/time.js';
import { isLlmLine, type LlmRequestLine, type LlmResponseLine } from './types.js';

/** One model call: what the client asked, what came back (absent when the recording stopped first). */
export interface LlmCall {
  request: LlmRequestLine;
  answer: LlmResponseLine | undefined;
  /** Epoch ms the request was recorded and the answer ended. */
  startMs: number;
  endMs: number;
}

/**
 * Pairs `llm` lines (any other lines are skipped) into calls, in the order their requests were recorded.
 *
 * @example llmCalls(lines).map((c) => c.answer?.toolCalls)
 */
export function llmCalls(lines: Iterable<unknown>): LlmCall[] {
  const calls = new Map<string, LlmCall>();
  for (const line of lines) {
    if (!isLlmLine(line)) continue;
    if (line.dir === 'in') {
      const at = parseTime(line.t) ?? 0;
      calls.set(line.call, { request: line, answer: undefined, startMs: at, endMs: at });
    } else {
      const call = calls.get(line.call);
      if (call === undefined) continue;
      call.answer = line;
      call.endMs = parseTime(line.t) ?? call.startMs;
      // The request line is written once its body is read; the answer knows when the request began.
      call.startMs = Math.min(call.startMs, call.endMs - line.durationMs);
    }
  }
  return [...calls.values()];
}

/**
 * Reads a trace file's LLM calls (JSONL; unreadable lines skipped: the trace reader reports them elsewhere).
 *
 * @example const calls = await readLlmCalls('agent-llm.jsonl');
 */
export async function readLlmCalls(path: string): Promise<LlmCall[]> {
  const text = await readFile(path, 'utf8');
  return llmCalls(parseLines(text));
}

/** JSON lines of a text; lines that are not JSON are left out. */
export function* parseLines(text: string): Generator<unknown> {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line);
    } catch {
      // Not a trace line: a cut-off last line of a live recording, say.
    }
  }
}
