/**
 * Per tool, over an agent's run: how often the model asked for it and MCP carried it out, latency, errors, and
 * what it cost the model in tokens — its results (read back as input on the next turn) and its schema (sent with
 * every turn). Tokens are estimated from sizes at the run's own rate: the input tokens the provider reported over
 * the characters of the requests that cost them. Pure.
 */
import type { Json } from '../trace/types.js';
import type { AgentRun } from './link.js';

export interface ToolCost {
  name: string;
  /** Times a model asked for it, and times an MCP call was linked to such a request. */
  asked: number;
  linked: number;
  /** MCP `tools/call` latency of the linked calls: median and 95th percentile (nearest rank), ms. */
  latencyMs: { p50: number; p95: number } | undefined;
  errors: number;
  /** Estimated tokens of its results and of its schema (summed over the turns that sent it). */
  resultTokens: number;
  schemaTokens: number;
}

export interface RunCost {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens per character of request body, the rate estimates use (0 when no usage was reported). */
  tokensPerChar: number;
  tools: ToolCost[];
}

const rank = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;

/** Tool definitions a request sent, by name: Anthropic `tools[].name`, OpenAI `tools[].function.name` or `.name`. */
function toolSchemas(body: Json | undefined): Map<string, number> {
  const sizes = new Map<string, number>();
  const tools = (body as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return sizes;
  for (const tool of tools as { name?: unknown; function?: { name?: unknown } }[]) {
    const name = tool?.function?.name ?? tool?.name;
    if (typeof name === 'string') sizes.set(name, JSON.stringify(tool).length);
  }
  return sizes;
}

/**
 * Costs per tool for `tapedeck stats --llm`.
 *
 * @example runCost(linkRun(calls, exchanges)).tools.map((t) => `${t.name}: ${t.resultTokens}`)
 */
export function runCost(run: AgentRun): RunCost {
  let input = 0;
  let output = 0;
  let chars = 0;
  for (const { llm } of run.turns) {
    const usage = llm.answer?.usage;
    if (usage?.input === undefined) continue;
    input += usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    output += usage.output ?? 0;
    chars += JSON.stringify(llm.request.body ?? llm.request.text ?? '').length;
  }
  const rate = chars > 0 ? input / chars : 0;
  const tools = new Map<string, ToolCost & { latencies: number[] }>();
  const entry = (name: string) => {
    let cost = tools.get(name);
    if (cost === undefined) {
      cost = {
        name,
        asked: 0,
        linked: 0,
        latencyMs: undefined,
        errors: 0,
        resultTokens: 0,
        schemaTokens: 0,
        latencies: [],
      };
      tools.set(name, cost);
    }
    return cost;
  };
  for (const turn of run.turns) {
    for (const [name, size] of toolSchemas(turn.llm.request.body)) entry(name).schemaTokens += size * rate;
    for (const tool of turn.tools) {
      const cost = entry(tool.call.name);
      cost.asked += 1;
      if (tool.mcp === undefined) continue;
      cost.linked += 1;
      if (tool.mcp.latencyMs !== undefined) cost.latencies.push(tool.mcp.latencyMs);
      if (tool.mcp.outcome === 'error' || tool.mcp.outcome === 'tool_error') cost.errors += 1;
      const result = tool.mcp.response?.result ?? tool.mcp.response?.error;
      cost.resultTokens += JSON.stringify(result ?? null).length * rate;
    }
  }
  return {
    turns: run.turns.length,
    inputTokens: input,
    outputTokens: output,
    tokensPerChar: rate,
    tools: [...tools.values()].map(({ latencies, ...cost }) => {
      const sorted = latencies.sort((a, b) => a - b);
      return {
        ...cost,
        resultTokens: Math.round(cost.resultTokens),
        schemaTokens: Math.round(cost.schemaTokens),
        latencyMs: sorted.length > 0 ? { p50: rank(sorted, 0.5), p95: rank(sorted, 0.95) } : undefined,
      };
    }),
  };
}

/**
 * The text of `tapedeck stats --llm`.
 *
 * @example renderRunCost(runCost(run)).join('\n')
 */
export function renderRunCost(cost: RunCost): string[] {
  const rows = [
    `model turns: ${cost.turns}, input tokens ${cost.inputTokens}, output tokens ${cost.outputTokens}`,
    '',
    'tool              asked  linked  p50 ms  p95 ms  errors  result tokens  schema tokens',
  ];
  for (const tool of cost.tools) {
    rows.push(
      [
        tool.name.padEnd(16).slice(0, 16),
        String(tool.asked).padStart(6),
        String(tool.linked).padStart(7),
        String(tool.latencyMs?.p50 ?? '-').padStart(7),
        String(tool.latencyMs?.p95 ?? '-').padStart(7),
        String(tool.errors).padStart(7),
        String(tool.resultTokens).padStart(14),
        String(tool.schemaTokens).padStart(14),
      ].join(' '),
    );
  }
  rows.push(
    '',
    'Tokens of results and schemas are estimates: their size at the run’s input tokens per character.',
  );
  return rows;
}
