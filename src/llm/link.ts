/**
 * One timeline of an agent's run: each tool call a model asked for, linked to the MCP `tools/call` that carried it
 * out — by a tool-call id the client put in `_meta`, else by tool name and arguments in order, else by name alone
 * (marked as such). Pure.
 */
import { canonicalJson } from '../trace/canonical-json.js';
import type { Exchange } from '../trace/exchange.js';
import { parseTime } from '../trace/time.js';
import type { Json } from '../trace/types.js';
import type { LlmCall } from './calls.js';
import type { LlmToolCall } from './types.js';

/** How a model tool call found its MCP call. */
export type LinkBasis = 'id' | 'arguments' | 'name';

export interface LinkedToolCall {
  call: LlmToolCall;
  mcp: Exchange | undefined;
  how: LinkBasis | undefined;
}

export interface AgentTurn {
  llm: LlmCall;
  tools: LinkedToolCall[];
}

export interface AgentRun {
  turns: AgentTurn[];
  /** MCP exchanges no model tool call claimed (the handshake, tools/list, calls made by the agent itself). */
  unlinked: Exchange[];
}

/** `_meta` keys a client may name the model's tool call by. */
const ID_KEYS = ['toolCallId', 'tool_call_id', 'io.modelcontextprotocol/toolCallId'];

function metaOf(exchange: Exchange): Record<string, Json> | undefined {
  const meta = exchange.request.params?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : undefined;
}

function callIdOf(exchange: Exchange): string | undefined {
  const meta = metaOf(exchange);
  for (const key of ID_KEYS) if (typeof meta?.[key] === 'string') return meta[key] as string;
  return undefined;
}

/** The trace id of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`). */
function traceIdOf(traceparent: unknown): string | undefined {
  return typeof traceparent === 'string' ? traceparent.split('-')[1] : undefined;
}

/**
 * Links a run's model calls to its MCP exchanges (all servers of the run together).
 *
 * @example linkRun(readLlmCalls(f), collectExchanges(lines).exchanges).turns[0].tools[0].mcp?.method // 'tools/call'
 */
export function linkRun(calls: readonly LlmCall[], exchanges: readonly Exchange[]): AgentRun {
  const toolCalls = exchanges
    .filter((exchange) => exchange.method === 'tools/call' && exchange.dir === 'in')
    .sort((a, b) => (a.requestRef.time ?? 0) - (b.requestRef.time ?? 0));
  const taken = new Set<Exchange>();
  const turns: AgentTurn[] = calls.map((llm) => ({
    llm,
    tools: (llm.answer?.toolCalls ?? []).map((call) => ({ call, mcp: undefined, how: undefined })),
  }));
  const byId = new Map<string, Exchange>();
  for (const exchange of toolCalls) {
    const id = callIdOf(exchange);
    if (id !== undefined) byId.set(id, exchange);
  }
  const pending: { turn: AgentTurn; tool: LinkedToolCall }[] = [];
  for (const turn of turns) {
    for (const tool of turn.tools) {
      const exchange = tool.call.id === undefined ? undefined : byId.get(tool.call.id);
      if (exchange !== undefined && !taken.has(exchange)) {
        taken.add(exchange);
        tool.mcp = exchange;
        tool.how = 'id';
      } else pending.push({ turn, tool });
    }
  }
  for (const how of ['arguments', 'name'] as const) {
    for (const { turn, tool } of pending) {
      if (tool.mcp !== undefined) continue;
      const match = toolCalls.find(
        (exchange) => !taken.has(exchange) && fits(turn, tool.call, exchange, how),
      );
      if (match === undefined) continue;
      taken.add(match);
      tool.mcp = match;
      tool.how = how;
    }
  }
  const unlinked = exchanges.filter((exchange) => !taken.has(exchange) && exchange.parent === undefined);
  return { turns, unlinked };
}

/** Whether an MCP call may carry out a model's tool call: after the model asked, same name (and arguments). */
function fits(turn: AgentTurn, call: LlmToolCall, exchange: Exchange, how: 'arguments' | 'name'): boolean {
  const params = exchange.request.params;
  if (params?.name !== call.name) return false;
  // A client's clock and the proxy's may differ by a hair; the model's answer must have begun before the call.
  const at = exchange.requestRef.time ?? parseTime(exchange.requestRef.line.t) ?? 0;
  if (at + 5 < turn.llm.startMs + (turn.llm.answer?.firstByteMs ?? 0)) return false;
  const modelTrace = traceIdOf(turn.llm.request.headers.traceparent);
  const mcpTrace = traceIdOf(metaOf(exchange)?.traceparent);
  if (modelTrace !== undefined && mcpTrace !== undefined && modelTrace !== mcpTrace) return false;
  return how === 'name' || canonicalJson(params.arguments ?? {}) === canonicalJson(call.input ?? {});
}
