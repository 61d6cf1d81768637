import { type CallStats, type Exchange, percentile, toolName } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { errorShade, formatRate } from '../data/error-rate.js';
import { briefDuration } from '../data/insights.js';
import type { SourceModel } from '../data/source-model.js';
import { formatLatency } from '../data/summary.js';
import { LatencyChart, type LatencySeries } from './latency-chart.js';
import { ScrollCue, useScrollCue } from './scroll-cue.js';
import { ToolInsights } from './tool-insights.js';

export interface ToolsProps {
  source: SourceModel;
  /** The version of the model, so figures follow a live trace. */
  version: number;
  /** Show the calls of one tool (switches to the Calls view filtered by it). */
  openTool: (name: string) => void;
  openMethod: (method: string) => void;
}

interface Group {
  values: number[];
  errors: number[];
}

function groupLatencies(
  exchanges: readonly Exchange[],
  key: (e: Exchange) => string | undefined,
): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const exchange of exchanges) {
    const name = key(exchange);
    if (name === undefined || exchange.latencyMs === undefined) continue;
    let group = groups.get(name);
    if (!group) {
      group = { values: [], errors: [] };
      groups.set(name, group);
    }
    group.values.push(exchange.latencyMs);
    if (exchange.outcome === 'error' || exchange.outcome === 'tool_error')
      group.errors.push(exchange.latencyMs);
  }
  return groups;
}

function series(label: string, group: Group | undefined): LatencySeries {
  const sorted = [...(group?.values ?? [])].sort((a, b) => a - b);
  return {
    label,
    values: sorted,
    p50: sorted.length ? percentile(sorted, 0.5) : undefined,
    p95: sorted.length ? percentile(sorted, 0.95) : undefined,
    errors: group?.errors ?? [],
  };
}

const serverKey = (server: string | null, name: string) => (server === null ? name : `${server} · ${name}`);

/**
 * Per tool and per method: calls, p50 / p95 / max latency, error rate (the figures of `tapedeck stats`), and a
 * chart of every call's latency.
 */
export function Tools({ source, version, openTool, openMethod }: ToolsProps) {
  const { stats, tools, methods } = useMemo(() => {
    const multiServer = source.statistics().servers.length > 1;
    const label = (e: Exchange, name: string) => (multiServer ? serverKey(e.server ?? null, name) : name);
    return {
      stats: source.statistics(),
      tools: groupLatencies(source.exchanges, (e) => {
        const name = e.dir === 'in' ? toolName(e.request) : undefined;
        return name === undefined ? undefined : label(e, name);
      }),
      methods: groupLatencies(source.exchanges, (e) => label(e, `${e.dir === 'out' ? '← ' : ''}${e.method}`)),
    };
  }, [source, version]);
  const multiServer = stats.servers.length > 1;
  const toolRows = stats.tools.map((t) => ({
    name: t.name,
    key: multiServer ? serverKey(t.server, t.name) : t.name,
    stats: t,
  }));
  const methodRows = stats.methods.map((m) => {
    const name = `${m.dir === 'out' ? '← ' : ''}${m.method}`;
    return { name: m.method, key: multiServer ? serverKey(m.server, name) : name, stats: m };
  });
  return (
    <div class="tools">
      <Summary source={source} />
      <ToolInsights source={source} version={version} openTool={openTool} />
      <h2>Tools</h2>
      {toolRows.length === 0 ? (
        <p class="empty">No tools/call in this trace.</p>
      ) : (
        <>
          <StatsTable rows={toolRows} first="Tool" open={openTool} />
          <LatencyChart
            title="Latency per tool"
            series={toolRows.map((r) => series(r.key, tools.get(r.key)))}
          />
        </>
      )}
      <h2>Methods</h2>
      <StatsTable rows={methodRows} first="Method" open={openMethod} />
      <LatencyChart
        title="Latency per method"
        series={methodRows.map((r) => series(r.key, methods.get(r.key)))}
      />
    </div>
  );
}

function StatsTable({
  rows,
  first,
  open,
}: {
  rows: { name: string; key: string; stats: CallStats }[];
  first: string;
  open: (name: string) => void;
}) {
  const scroll = useScrollCue();
  return (
    // Wider than a phone: the table scrolls sideways, its first column stays in view; a cue says there is more.
    <div
      class="table-scroll"
      ref={scroll.ref}
      onScroll={scroll.update}
      data-more={scroll.more ? 'right' : undefined}
    >
      <table class="stats">
        <thead>
          <tr>
            <th>{first}</th>
            <th>Calls</th>
            <th>p50</th>
            <th>p95</th>
            <th>Max</th>
            <th>Errors</th>
            <th>Error rate</th>
            <th>Unanswered</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ name, key, stats }) => {
            const errors = stats.errors + stats.toolErrors;
            const shade = errorShade(errors, stats.calls);
            const lat = stats.latencyMs;
            return (
              <tr key={key} data-errors={errors}>
                <td class="name">
                  <button type="button" class="linkish" onClick={() => open(name)}>
                    {key}
                  </button>
                </td>
                <td class="num">{stats.calls}</td>
                <td class="num">{lat ? formatLatency(lat.p50) : '–'}</td>
                <td class="num">{lat ? formatLatency(lat.p95) : '–'}</td>
                <td class="num">{lat ? formatLatency(lat.max) : '–'}</td>
                <td class={errors > 0 ? 'num err' : 'num'}>{errors}</td>
                {/* Only the rate is coloured, as strong as the rate is high (one in a thousand: a faint tint). */}
                <td
                  class={`num rate${shade >= 0.6 ? ' strong' : ''}`}
                  data-shade={shade}
                  style={shade > 0 ? { '--shade': `${Math.round(shade * 100)}%` } : undefined}
                >
                  {formatRate(errors, stats.calls)}
                </td>
                <td class="num">{stats.unanswered}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ScrollCue more={scroll.more} />
    </div>
  );
}

function Summary({ source }: { source: SourceModel }) {
  const stats = source.statistics();
  const server = stats.servers[0];
  const items: [string, string][] = [
    ['Trace', source.info.name],
    ['Format', source.info.format],
    ['Server', server ? `${server.name ?? '?'} ${server.version ?? ''}`.trim() : '–'],
    ['Protocol', server?.protocolVersion ?? '–'],
    ['Duration', stats.durationMs === null ? '–' : briefDuration(stats.durationMs)],
    ['Messages', `${stats.messages.in.messages} in · ${stats.messages.out.messages} out`],
    ['Ended', stats.ended ? (stats.endReason ?? 'yes') : 'no end line'],
  ];
  return (
    <dl class="summary">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
