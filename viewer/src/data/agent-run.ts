import { type AgentRun, type AgentTurn, type LlmCall, linkRun, llmCalls } from 'mcp-tapedeck/llm/run';
import type { Exchange } from 'mcp-tapedeck/trace';
import type { TraceModel } from './model.js';
import type { SourceModel } from './source-model.js';

/**
 * An agent's run as the viewer draws it: the model calls of the open LLM traces (what `record --llm` writes, opened
 * beside the MCP traces of the same run), each tool call the model asked for linked to the MCP `tools/call` that
 * carried it out, with the timeline row to go to. The LLM lines are read from the trace's own text: the trace
 * reader skips line types it does not know, so the rows of an LLM trace stay empty.
 */
export interface AgentView {
  run: AgentRun;
  /** Where each MCP exchange is: its source's name and its request row's key (for a link to the timeline). */
  where: Map<Exchange, { source: string; key: string | undefined }>;
  /** Epoch ms of the first model call or MCP request, the tree's zero. */
  zero: number;
}

/** Whether a source holds LLM exchanges: its meta line says so (`kind: "llm"`). */
export function isLlmSource(source: SourceModel): boolean {
  return source.info.meta.kind === 'llm';
}

/** The LLM calls of one source, parsed from its files' text (oldest segment first). */
function callsOf(source: SourceModel): LlmCall[] {
  const lines: unknown[] = [];
  for (const file of source.info.files) {
    const count = file.lineCount();
    for (let n = 1; n <= count; n++) {
      const text = file.line(n);
      // Only the LLM lines are parsed; the rest of the file is the meta line and the end line.
      if (!text.includes('"llm"')) continue;
      try {
        lines.push(JSON.parse(text));
      } catch {
        // A cut-off last line of a trace still being written.
      }
    }
  }
  return llmCalls(lines);
}

const cache = new WeakMap<TraceModel, { version: number; view: AgentView | undefined }>();

/**
 * The run of the open traces, or undefined when no LLM trace is open (recomputed only when the model changed).
 *
 * @example agentView(model)?.run.turns[0]?.tools[0]?.mcp?.method // 'tools/call'
 */
export function agentView(model: TraceModel): AgentView | undefined {
  const hit = cache.get(model);
  if (hit && hit.version === model.version) return hit.view;
  const view = computeAgentView(model);
  cache.set(model, { version: model.version, view });
  return view;
}

function computeAgentView(model: TraceModel): AgentView | undefined {
  const llmSources = model.sources.filter(isLlmSource);
  if (llmSources.length === 0) return undefined;
  const calls = llmSources.flatMap(callsOf).sort((a, b) => a.startMs - b.startMs);
  const where = new Map<Exchange, { source: string; key: string | undefined }>();
  const exchanges: Exchange[] = [];
  for (const source of model.sources) {
    if (isLlmSource(source)) continue;
    for (const exchange of source.exchanges) {
      exchanges.push(exchange);
      where.set(exchange, { source: source.info.name, key: source.requestRow(exchange)?.key });
    }
  }
  const run = linkRun(calls, exchanges);
  const starts = [
    ...calls.map((call) => call.startMs),
    ...exchanges.map((exchange) => exchange.requestRef.time ?? Number.POSITIVE_INFINITY),
  ];
  const zero = Math.min(...starts);
  return { run, where, zero: Number.isFinite(zero) ? zero : 0 };
}

/** Token usage of a turn as short text: `in 21 · out 8`, with cache reads when reported. */
export function tokensOf(turn: AgentTurn): string | undefined {
  const usage = turn.llm.answer?.usage;
  if (usage === undefined) return undefined;
  const parts = [`in ${usage.input ?? '?'}`, `out ${usage.output ?? '?'}`];
  if (usage.cacheRead) parts.push(`cache ${usage.cacheRead}`);
  return parts.join(' · ');
}
