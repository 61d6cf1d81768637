import type { LinkedToolCall } from 'mcp-tapedeck/llm/run';
import type { Exchange } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { type AgentView, agentView, tokensOf } from '../data/agent-run.js';
import type { TraceModel } from '../data/model.js';
import { formatLatency } from '../data/summary.js';
import './agent.css';

export interface AgentProps {
  model: TraceModel;
  /** The version of the model, so the tree follows files still being read. */
  version: number;
  /** Shows an MCP exchange's row on the timeline. */
  reveal: (key: string) => void;
}

const BASIS = { id: 'by id', arguments: 'by name and arguments', name: 'by name only' } as const;

const offset = (ms: number, zero: number) => `+${formatLatency(Math.max(0, ms - zero))}`;
const cut = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

/**
 * The agent's run as a tree: each model turn (tokens, latency, stop reason, what it said), the tool calls it asked
 * for under it, and under each the MCP `tools/call` that carried it out; MCP exchanges no model call claimed (the
 * handshake, tools/list) on rows of their own, all in time order. Shown when an LLM trace (`record --llm`) is open
 * beside the MCP traces of the same run.
 */
export function AgentRunView({ model, version, reveal }: AgentProps) {
  const view = useMemo(() => agentView(model), [model, version]);
  if (view === undefined)
    return (
      <p class="empty">
        No LLM trace is open. Open the file <code>tapedeck record --llm</code> wrote beside the MCP traces of
        the same run (drop both, or <code>tapedeck view mcp.jsonl --llm llm.jsonl</code>).
      </p>
    );
  const { run } = view;
  const tools = run.turns.flatMap((turn) => turn.tools);
  const linked = tools.filter((tool) => tool.mcp !== undefined).length;
  const slowest = Math.max(1, ...run.turns.map((turn) => turn.llm.answer?.durationMs ?? 0));
  type Item = { at: number; node: preact.JSX.Element };
  const items: Item[] = [
    ...run.turns.map((turn, i) => ({
      at: turn.llm.startMs,
      node: <Turn key={`t${i}`} view={view} index={i} slowest={slowest} reveal={reveal} />,
    })),
    ...run.unlinked.map((exchange, i) => ({
      at: exchange.requestRef.time ?? 0,
      node: (
        <li key={`m${i}`} class="agent-mcp">
          <span class="agent-at">{offset(exchange.requestRef.time ?? view.zero, view.zero)}</span>
          <McpLink exchange={exchange} view={view} reveal={reveal} />
        </li>
      ),
    })),
  ].sort((a, b) => a.at - b.at);
  return (
    <section class="agent" aria-label="agent run">
      <p class="agent-summary">
        {run.turns.length} model turn{run.turns.length === 1 ? '' : 's'}, {tools.length} tool call
        {tools.length === 1 ? '' : 's'} asked for, {linked} linked to MCP calls
      </p>
      <ul class="agent-tree" aria-label="model turns and their MCP calls">
        {items.map((item) => item.node)}
      </ul>
    </section>
  );
}

function Turn(props: { view: AgentView; index: number; slowest: number; reveal: (key: string) => void }) {
  const { view, index, slowest, reveal } = props;
  const turn = view.run.turns[index]!;
  const { request, answer } = turn.llm;
  const tokens = tokensOf(turn);
  const failed = answer === undefined || answer.status >= 400 || answer.error !== undefined;
  return (
    <li class={`agent-turn${failed ? ' err' : ''}`}>
      <div class="agent-head">
        <span class="agent-at">{offset(turn.llm.startMs, view.zero)}</span>
        <strong>model #{index + 1}</strong>
        <span class="agent-api">{request.api}</span>
        <span class="agent-model">{answer?.model ?? request.model ?? ''}</span>
        {request.stream ? <span class="agent-tag">streamed</span> : null}
        {tokens ? <span class="agent-tokens">{tokens} tokens</span> : null}
        {answer ? (
          <span class="agent-latency" title={`first byte after ${formatLatency(answer.firstByteMs)}`}>
            {formatLatency(answer.durationMs)}
            <span
              class="agent-bar"
              style={{ width: `${Math.max(2, (answer.durationMs / slowest) * 80)}px` }}
            />
          </span>
        ) : (
          <span class="agent-latency">no answer</span>
        )}
        {answer?.stopReason ? <span class="agent-stop">{answer.stopReason}</span> : null}
        {answer !== undefined && answer.status >= 400 ? (
          <span class="agent-stop">HTTP {answer.status}</span>
        ) : null}
      </div>
      {answer?.text ? <p class="agent-text">{cut(answer.text, 400)}</p> : null}
      {turn.tools.length > 0 ? (
        <ul>
          {turn.tools.map((tool, i) => (
            <ToolCall key={tool.call.id ?? i} tool={tool} view={view} reveal={reveal} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ToolCall({
  tool,
  view,
  reveal,
}: {
  tool: LinkedToolCall;
  view: AgentView;
  reveal: (key: string) => void;
}) {
  return (
    <li class="agent-tool">
      <div class="agent-head">
        <span class="agent-name">{tool.call.name}</span>
        <code class="agent-args">{cut(JSON.stringify(tool.call.input), 200)}</code>
      </div>
      <ul>
        <li class={`agent-mcp${tool.mcp ? '' : ' missing'}`}>
          {tool.mcp ? (
            <>
              <span class="agent-at">{offset(tool.mcp.requestRef.time ?? view.zero, view.zero)}</span>
              <McpLink exchange={tool.mcp} view={view} reveal={reveal} />
              <span class="agent-basis">{BASIS[tool.how ?? 'name']}</span>
            </>
          ) : (
            'no MCP call carried it out'
          )}
        </li>
      </ul>
    </li>
  );
}

function McpLink({
  exchange,
  view,
  reveal,
}: {
  exchange: Exchange;
  view: AgentView;
  reveal: (key: string) => void;
}) {
  const at = view.where.get(exchange);
  const name = exchange.method === 'tools/call' ? ` ${String(exchange.request.params?.name ?? '')}` : '';
  const server = exchange.server ?? at?.source;
  const label = `${exchange.method}${name} #${String(exchange.id)}`;
  const key = at?.key;
  return (
    <>
      {key === undefined ? (
        <span class="agent-call">{label}</span>
      ) : (
        <button
          type="button"
          class="agent-call link"
          title="show on the timeline"
          onClick={() => reveal(key)}
        >
          {label}
        </button>
      )}
      {server ? <span class="agent-server">{server}</span> : null}
      {exchange.latencyMs === undefined ? null : (
        <span class="agent-latency">{formatLatency(exchange.latencyMs)}</span>
      )}
      <span class={`agent-outcome ${exchange.outcome}`}>{exchange.outcome}</span>
    </>
  );
}
