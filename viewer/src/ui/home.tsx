import { briefDuration } from '../data/insights.js';
import type { LocalFile } from '../source/local.js';
import type { TraceListing } from '../source/trace-source.js';

export interface HomeProps {
  open: (files: ArrayLike<LocalFile>) => void;
  /** The page source's list of traces, when it has one. */
  traces: readonly TraceListing[] | undefined;
  /** Why the list could not be read. */
  listError: string | undefined;
}

/** The first screen: open trace files (picker or drag and drop), or pick a trace the collector holds. */
export function Home({ open, traces, listError }: HomeProps) {
  return (
    <div class="home">
      <section class="drop">
        <h2>Open a trace</h2>
        <p>
          Drop trace files anywhere on this page, or{' '}
          <label class="button">
            choose files
            <input
              type="file"
              multiple
              accept=".jsonl,.ndjson,.json,application/json"
              aria-label="open trace files"
              onChange={(e) => {
                const files = (e.currentTarget as HTMLInputElement).files;
                if (files && files.length > 0) open(files);
              }}
            />
          </label>
          .
        </p>
        <p class="muted">
          tapedeck and mcp-tape JSONL, mcporter NDJSON, shack trajectories, HTTP exchange captures. Rotated
          segments dropped together are stitched; several traces are merged by time; two traces can be
          compared.
        </p>
        <p class="muted">Files stay in this browser: nothing is uploaded.</p>
      </section>
      {traces !== undefined || listError ? (
        <section class="collector">
          <h2>Traces on this collector</h2>
          {listError ? <p class="err">{listError}</p> : null}
          {traces && traces.length === 0 ? <p class="muted">None yet.</p> : null}
          {traces?.some((t) => t.session) ? <Sessions traces={traces} /> : null}
          {traces && traces.length > 0 ? (
            <ul>
              {traces.map((t) => (
                <li key={t.id}>
                  <a href={`#/trace/${encodeURIComponent(t.id)}/timeline`} data-trace={t.id}>
                    {t.label || t.id}
                  </a>{' '}
                  {t.live ? <span class="badge live">live</span> : <span class="muted">{t.state}</span>}{' '}
                  <span class={t.errors > 0 ? 'err' : 'muted'} data-errors={t.errors}>
                    {t.errors} {t.errors === 1 ? 'error' : 'errors'}
                  </span>{' '}
                  {t.durationMs === undefined ? null : (
                    <span class="muted" data-duration-ms={t.durationMs}>
                      {briefDuration(t.durationMs)}
                    </span>
                  )}{' '}
                  <span class="muted">{t.startedAt ?? ''}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

/**
 * Production sessions (recorded by an instrumented server), grouped by user and client: requests and errors per
 * session, each opening in the timeline.
 */
function Sessions({ traces }: { traces: readonly TraceListing[] }) {
  const groups = new Map<string, TraceListing[]>();
  for (const t of traces) {
    if (!t.session) continue;
    const key = `${t.session.who} · ${t.session.client ?? 'unknown client'}`;
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  return (
    <div class="sessions">
      <h3>Sessions by user and client</h3>
      <table aria-label="sessions">
        <thead>
          <tr>
            <th>user · client</th>
            <th>session</th>
            <th>server</th>
            <th class="num">requests</th>
            <th class="num">errors</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {[...groups].map(([key, sessions]) =>
            sessions.map((t, i) => (
              <tr key={t.id} data-session={t.id}>
                <td>{i === 0 ? key : ''}</td>
                <td>
                  <a href={`#/trace/${encodeURIComponent(t.id)}/timeline`}>{t.id}</a>
                  {t.live ? <span class="badge live">live</span> : null}
                  {t.session?.era === 'stateless' ? <span class="badge">stateless</span> : null}
                </td>
                <td>{t.server ?? ''}</td>
                <td class="num">{t.requests}</td>
                <td class={t.errors > 0 ? 'num err' : 'num'}>{t.errors}</td>
                <td class="muted">{t.startedAt ?? ''}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
