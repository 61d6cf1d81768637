import { formatBytes, formatLatency } from '../../base/units.js';
import { formatId } from '../../trace/jsonrpc.js';
import type { CallStats, DirectionStats, TraceStats } from '../../trace/stats.js';
import { type Palette, palette } from './color.js';
import { type Column, formatDuration, renderTable } from './table.js';
import { fitLine } from './wrap.js';

/**
 * The human report of `tapedeck stats`: session facts, then tables per method, per tool and per notification,
 * then the requests that were never answered.
 */

export interface StatsReportOptions {
  color: boolean;
  /** Columns to fit (tables narrow their name columns and wrap names, long lines wrap); unlimited when absent. */
  width?: number | undefined;
}

const ARROW = { in: '→', out: '←' } as const;

function latencyCells(stats: CallStats): string[] {
  const l = stats.latencyMs;
  return l ? [formatLatency(l.p50), formatLatency(l.p95), formatLatency(l.max)] : ['-', '-', '-'];
}

/** JSON-RPC errors plus in-band tool errors (`isError` results); --json keeps them apart. */
function errorCell(stats: CallStats, c: Palette): string {
  const total = stats.errors + stats.toolErrors;
  if (total === 0) return '0';
  return c.red(String(total));
}

function unansweredCell(stats: CallStats, c: Palette): string {
  if (stats.unanswered === 0) return '0';
  return c.yellow(String(stats.unanswered));
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function directionLine(label: string, d: DirectionStats): string {
  const parts = [
    plural(d.requests, 'request'),
    plural(d.responses, 'response'),
    plural(d.notifications, 'notification'),
  ];
  if (d.invalid > 0) parts.push(`${d.invalid} invalid`);
  const messages = plural(d.messages, 'message').padStart(13);
  return `${label}${messages}  ${formatBytes(d.bytes).padStart(10)}   ${parts.join(', ')}`;
}

/**
 * Renders statistics as a terminal report.
 *
 * @example renderStats(await computeStats(lines), { color: false })
 */
export function renderStats(stats: TraceStats, options: StatsReportOptions): string {
  const c = palette(options.color);
  const width = options.width ?? Number.POSITIVE_INFINITY;
  const table = { indent: '  ', width };
  const lines: string[] = [];
  // Every line is made to fit as it is added (hanging under its label); tables fit themselves.
  const out = {
    push: (...added: string[]) => {
      for (const line of added) lines.push(...(line.includes('\n') ? [line] : fitLine(line, width, 10)));
    },
  };
  const multiServer =
    new Set([...stats.methods.map((m) => m.server), ...stats.servers.map((s) => s.server)]).size > 1;

  const title = [stats.label, stats.startedAt && `started ${stats.startedAt}`].filter(Boolean).join(' · ');
  if (title) out.push(c.bold(title), '');
  const ended = stats.ended
    ? ['ended', stats.exitCode === null ? undefined : `exit ${stats.exitCode}`, stats.endReason ?? undefined]
        .filter(Boolean)
        .join(', ')
    : c.yellow('no end line (still recording, or the recorder died)');
  const duration = stats.durationMs === null ? '-' : formatDuration(stats.durationMs);
  out.push(`  duration  ${duration}  (${ended})`);
  if (stats.servers.length === 0)
    out.push(`  server    ${c.dim('unknown (no initialize or server/discover result)')}`);
  for (const s of stats.servers) {
    const who = [s.name ?? 'unnamed', s.version].filter(Boolean).join(' ');
    const title = s.title ? ` "${s.title}"` : '';
    const scope = multiServer ? `${c.magenta(`[${s.server ?? '-'}]`)} ` : '';
    const era = s.era === 'discover' ? ', stateless (server/discover)' : '';
    const protocol = s.protocolVersion ? ` · protocol ${s.protocolVersion}${era}` : '';
    out.push(`  server    ${scope}${c.bold(who)}${title}${protocol}`);
  }
  out.push(directionLine(`  ${c.green('→')} in   `, stats.messages.in));
  out.push(directionLine(`  ${c.blue('←')} out  `, stats.messages.out));
  const extra = Object.entries(stats.lines).filter(([, n]) => n > 0);
  if (extra.length > 0) out.push(`  other     ${extra.map(([kind, n]) => `${n} ${kind}`).join(', ')}`);
  if (stats.orphanResponses > 0) {
    out.push(c.yellow(`  orphans   ${stats.orphanResponses} responses matched no request`));
  }

  const scopeCol: Column[] = multiServer ? [{ header: 'server', wrap: true }] : [];
  const scopeCell = (server: string | null) => (multiServer ? [server ?? '-'] : []);
  const numbers: Column[] = [
    { header: 'calls', align: 'right' },
    { header: 'errors', align: 'right' },
    { header: 'unanswered', align: 'right' },
    { header: 'p50', align: 'right' },
    { header: 'p95', align: 'right' },
    { header: 'max', align: 'right' },
  ];
  const callCells = (s: CallStats) => [
    String(s.calls),
    errorCell(s, c),
    unansweredCell(s, c),
    ...latencyCells(s),
  ];

  if (stats.methods.length > 0) {
    out.push('', c.bold('requests'));
    const rows = stats.methods.map((m) => [
      ...scopeCell(m.server),
      `${ARROW[m.dir]} ${m.method}`,
      ...callCells(m),
    ]);
    out.push(renderTable([...scopeCol, { header: 'method', wrap: true }, ...numbers], rows, table).trimEnd());
  }
  if (stats.tools.length > 0) {
    out.push('', c.bold('tools'));
    const rows = stats.tools.map((t) => [...scopeCell(t.server), t.name, ...callCells(t)]);
    out.push(renderTable([...scopeCol, { header: 'tool', wrap: true }, ...numbers], rows, table).trimEnd());
  }
  if (stats.notifications.length > 0) {
    out.push('', c.bold('notifications'));
    const rows = stats.notifications.map((n) => [
      ...scopeCell(n.server),
      `${ARROW[n.dir]} ${n.method}`,
      String(n.count),
    ]);
    const columns: Column[] = [
      ...scopeCol,
      { header: 'method', wrap: true },
      { header: 'count', align: 'right' },
    ];
    out.push(renderTable(columns, rows, table).trimEnd());
  }
  if (stats.unanswered.length > 0) {
    out.push('', c.bold(c.yellow('unanswered')));
    for (const u of stats.unanswered) {
      const scope = multiServer ? `[${u.server ?? '-'}] ` : '';
      const tool = u.tool ? ` ${u.tool}` : '';
      const note = u.cancelled ? ' (cancelled)' : '';
      const at = u.t ? c.dim(` sent ${u.t}`) : '';
      out.push(`  ${ARROW[u.dir]} ${scope}${u.method}${tool} #${formatId(u.id)}${note}${at}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
