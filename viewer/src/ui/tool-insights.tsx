import { useMemo, useState } from 'preact/hooks';
import { briefDuration, headlines, percent, type ToolTime } from '../data/insights.js';
import type { SourceModel } from '../data/source-model.js';
import './actions.css';
import { ScrollCue, useScrollCue } from './scroll-cue.js';

/** Tools shown before "Show all": the ones that took the most time. */
const FIRST_ROWS = 8;

export interface ToolInsightsProps {
  source: SourceModel;
  /** The model's version, so the figures follow a trace still loading or recorded live. */
  version: number;
  openTool: (name: string) => void;
}

/**
 * Where the tool time went: the one-line insights worth reading first (`search: 61 % of tool time, p95 2.3 s,
 * 4 errors`), then per tool its share of all tool time as a bar, the total, the mean and the p95 latency.
 */
export function ToolInsights({ source, version, openTool }: ToolInsightsProps) {
  const times = useMemo(() => source.toolTimes(), [source, version]);
  const [all, setAll] = useState(false);
  const scroll = useScrollCue();
  if (times.length === 0) return null;
  const rows = all ? times : times.slice(0, FIRST_ROWS);
  const lines = headlines(times);
  return (
    <section class="insights" aria-label="tool time">
      <h2>Where the tool time went</h2>
      {lines.length > 0 ? (
        <ul class="insight-lines">
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      <div
        class="tool-time-wrap"
        ref={scroll.ref}
        onScroll={scroll.update}
        data-more={scroll.more ? 'right' : undefined}
      >
        <table class="tool-time">
          <thead>
            <tr>
              <th>Tool</th>
              <th class="share-head">Share of tool time</th>
              <th>Total</th>
              <th>Mean</th>
              <th>p95</th>
              <th>Calls</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <ToolTimeRow key={`${t.server ?? ''}\u0000${t.name}`} time={t} open={openTool} />
            ))}
          </tbody>
        </table>
        <ScrollCue more={scroll.more} />
      </div>
      {times.length > rows.length ? (
        <button type="button" class="linkish" onClick={() => setAll(true)}>
          Show all {times.length} tools
        </button>
      ) : null}
    </section>
  );
}

function ToolTimeRow({ time, open }: { time: ToolTime; open: (name: string) => void }) {
  const name = time.server === null ? time.name : `${time.server} · ${time.name}`;
  return (
    <tr data-tool={name}>
      <td class="tool-name" title={name}>
        <button type="button" class="linkish" onClick={() => open(time.name)}>
          {name}
        </button>
      </td>
      <td class="share">
        <span class="share-bar" style={{ width: `${time.share * 100}%` }} />
        <span class="share-text">{percent(time.share)}</span>
      </td>
      <td class="num">{briefDuration(time.totalMs)}</td>
      <td class="num">{time.meanMs === undefined ? '–' : briefDuration(time.meanMs)}</td>
      <td class="num">{time.p95Ms === undefined ? '–' : briefDuration(time.p95Ms)}</td>
      <td class="num">
        {time.calls}
        {time.errors > 0 ? <span class="err"> · {time.errors} failed</span> : null}
      </td>
    </tr>
  );
}
