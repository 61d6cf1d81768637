import {
  type Exchange,
  type MetaLine,
  type PairEvent,
  StatsCollector,
  type TraceStats,
} from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * `tapedeck stats` figures for a trace the viewer holds, computed when a view asks for them rather than while the
 * trace loads (the collector measures every message's size, which is most of its cost): the rows are played back
 * to the same StatsCollector as the pairing events they came from.
 *
 * @example const stats = statsOf([meta], source.rows, source.exchanges, source.ended);
 */
export function statsOf(
  metas: readonly MetaLine[],
  rows: readonly Row[],
  exchanges: readonly Exchange[],
  finished: boolean,
): TraceStats {
  const collector = new StatsCollector();
  for (const meta of metas) collector.add({ kind: 'line', line: meta, index: 0, lineNo: undefined });
  for (const row of rows) {
    const ev = eventOf(row);
    if (ev) collector.add(ev);
  }
  if (finished) {
    for (const exchange of exchanges) {
      if (exchange.outcome === 'unanswered') collector.add({ kind: 'unanswered', exchange });
    }
  }
  return collector.result();
}

function eventOf(row: Row): PairEvent | undefined {
  if (row.line.type !== undefined) return { kind: 'line', line: row.line, index: 0, lineNo: row.lineNo };
  const ref = { line: row.line, index: 0, lineNo: row.lineNo, item: row.item, time: row.time };
  switch (row.kind) {
    case 'request':
    case 'response':
      return { kind: row.kind, exchange: row.exchange!, ref };
    case 'notification':
      return {
        kind: 'notification',
        notification: row.notification!,
        ref,
        parent: row.parent,
        via: row.via,
        guessed: row.via === 'open-request',
        depth: row.depth,
      };
    case 'orphan':
      return { kind: 'orphan', response: row.response!, ref };
    case 'invalid':
      return { kind: 'invalid', reason: row.reason ?? '', ref };
    default:
      return undefined;
  }
}
