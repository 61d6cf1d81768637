/**
 * An agent's run as text: model turns in time order with the tool calls they asked for nested under them, each
 * with the MCP call that carried it out; MCP exchanges no model call claimed on rows of their own. Pure.
 */
import type { Exchange } from '../trace/exchange.js';
import type { AgentRun, AgentTurn, LinkedToolCall } from './link.js';

const clock = (t: string | undefined) => (t ?? '').slice(11, 23) || '--:--:--.---';
const cut = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

function mcpLabel(exchange: Exchange): string {
  const name = exchange.method === 'tools/call' ? ` ${String(exchange.request.params?.name ?? '')}` : '';
  const server = exchange.server === undefined ? '' : ` (${exchange.server})`;
  const latency = exchange.latencyMs === undefined ? '' : `  ${exchange.latencyMs} ms`;
  return `${exchange.method}${name} #${String(exchange.id)}${server}${latency}  ${exchange.outcome}`;
}

function turnRows(turn: AgentTurn, number: number, width: number): string[] {
  const { request, answer } = turn.llm;
  const usage = answer?.usage;
  const tokens = usage ? `  in ${usage.input ?? '?'} · out ${usage.output ?? '?'} tokens` : '';
  const timing = answer ? `  ${answer.durationMs} ms (first byte ${answer.firstByteMs} ms)` : '  no answer';
  const stop = answer?.stopReason ? `  ${answer.stopReason}` : '';
  const model = answer?.model ?? request.model ?? '';
  const status = answer !== undefined && answer.status >= 400 ? `  HTTP ${answer.status}` : '';
  const rows = [
    `${clock(request.t)}  model #${number} ${request.api} ${model}${request.stream ? ' (streamed)' : ''}${tokens}${timing}${stop}${status}`,
  ];
  if (answer?.text) rows.push(`              ${cut(JSON.stringify(answer.text), Math.max(20, width - 14))}`);
  turn.tools.forEach((tool, i) => {
    rows.push(...toolRows(tool, i === turn.tools.length - 1, width));
  });
  return rows;
}

function toolRows(tool: LinkedToolCall, last: boolean, width: number): string[] {
  const branch = last ? '└─' : '├─';
  const head = `  ${branch} ${tool.call.name} ${JSON.stringify(tool.call.input)}`;
  const row = cut(head, Math.max(30, width - 4));
  if (tool.mcp === undefined) return [row, `  ${last ? '  ' : '│ '}   → no MCP call carried it out`];
  const basis =
    tool.how === 'id' ? 'by id' : tool.how === 'arguments' ? 'by name and arguments' : 'by name only';
  return [
    row,
    `  ${last ? '  ' : '│ '}   → ${clock(tool.mcp.requestRef.line.t)} ${mcpLabel(tool.mcp)}  [${basis}]`,
  ];
}

/**
 * The rows of `tapedeck show --llm`.
 *
 * @example renderAgentRun(linkRun(calls, exchanges), 100).join('\n')
 */
export function renderAgentRun(run: AgentRun, width = 100): string[] {
  const tools = run.turns.flatMap((turn) => turn.tools);
  const linked = tools.filter((tool) => tool.mcp !== undefined).length;
  const rows = [
    `agent run: ${run.turns.length} model turn${run.turns.length === 1 ? '' : 's'}, ${tools.length} tool call` +
      `${tools.length === 1 ? '' : 's'} asked for, ${linked} linked to MCP calls`,
  ];
  type Item = { at: number; rows: () => string[] };
  const items: Item[] = [
    ...run.turns.map((turn, i) => ({ at: turn.llm.startMs, rows: () => turnRows(turn, i + 1, width) })),
    ...run.unlinked.map((exchange) => ({
      at: exchange.requestRef.time ?? 0,
      rows: () => [`${clock(exchange.requestRef.line.t)}  mcp ${mcpLabel(exchange)}`],
    })),
  ];
  items.sort((a, b) => a.at - b.at);
  for (const item of items) rows.push(...item.rows());
  return rows;
}
