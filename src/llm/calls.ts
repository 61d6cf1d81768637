/** LLM calls paired from trace lines, and JSON lines of a text. Pure (the viewer reads LLM traces with it). */
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
