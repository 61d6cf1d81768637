import { useState } from 'preact/hooks';
import { type ExportSource, exportHar, exportJsonl } from '../data/export.js';
import type { TraceModel } from '../data/model.js';
import type { Row } from '../data/rows.js';
import { download } from './download.js';
import './actions.css';

/**
 * Export the rows shown (after search and filters) as a file per open trace: tapedeck JSONL, or HAR for an HTTP
 * recording. What happened is said beside the buttons (a stdio trace has no HTTP for a HAR file).
 */
export function ExportMenu({ model, rows }: { model: TraceModel; rows: readonly Row[] }) {
  const [note, setNote] = useState<{ text: string; ok: boolean } | undefined>();
  const sources = (): ExportSource[] =>
    model.sources.map((s) => ({ index: s.index, name: s.info.name, meta: s.info.meta, rows: s.rows }));
  const say = (text: string, ok: boolean) => {
    setNote({ text, ok });
    setTimeout(() => setNote(undefined), 4000);
  };
  const run = async (what: () => Promise<void>) => {
    try {
      await what();
    } catch (err) {
      say(`Export failed: ${err instanceof Error ? err.message : String(err)}`, false);
    }
  };
  const saved = (names: string[]) => `Saved ${names.join(', ')}`;
  return (
    <fieldset class="export" aria-label="export the rows shown">
      <button
        type="button"
        class="button"
        disabled={rows.length === 0}
        title="the rows shown as a tapedeck trace (JSONL)"
        onClick={() =>
          run(async () => {
            const files = await exportJsonl(sources(), rows);
            for (const file of files) download(file);
            say(saved(files.map((f) => f.name)), true);
          })
        }
      >
        Export JSONL
      </button>
      <button
        type="button"
        class="button"
        disabled={rows.length === 0}
        title="the HTTP exchanges of the rows shown, as HAR (HTTP recordings)"
        onClick={() =>
          run(async () => {
            const { files, skipped } = await exportHar(sources(), rows);
            for (const file of files) download(file);
            if (files.length === 0)
              say('HAR is for HTTP recordings: no HTTP exchange among the rows shown', false);
            else
              say(
                `${saved(files.map((f) => f.name))}${skipped.length > 0 ? ` (no HTTP in ${skipped.join(', ')})` : ''}`,
                true,
              );
          })
        }
      >
        Export HAR
      </button>
      {note ? (
        <span class={note.ok ? 'muted export-note' : 'err export-note'} role="status">
          {note.text}
        </span>
      ) : null}
    </fieldset>
  );
}

/** The rows shown of a trace the server holds, downloaded from the server as it reads them. */
export function ExportLink({ href }: { href: string }) {
  return (
    <fieldset class="export" aria-label="export the rows shown">
      <a class="button" href={href} download title="the rows shown as a tapedeck trace (JSONL)">
        Export JSONL
      </a>
    </fieldset>
  );
}
