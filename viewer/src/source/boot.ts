import type { InputFile } from '../data/load.js';
import { collectorSource } from './collector.js';
import { reportSource } from './report.js';
import { servedSource } from './served.js';
import type { TraceSource } from './trace-source.js';

/**
 * The page's source, chosen once as it loads, from the page itself:
 * - a report: each trace embedded as a `<script type="application/x-tapedeck-trace">` element (JSONL text, `<`
 *   written as `\u003c` so no line can close the element), written by `tapedeck report`;
 * - served files: a `tapedeck-config` element `{"mode":"files","api":"api/"}`, put there by `tapedeck view`;
 * - else the collector, which serves the viewer at its root (its list, `#/trace/<id>` links). A copy with no
 *   collector behind it (opened from disk) finds no list and offers local files only.
 */

export const TRACE_SCRIPT_TYPE = 'application/x-tapedeck-trace';

/** The part of the page boot reads: the document, or a stand-in in tests. */
export interface BootPage {
  querySelectorAll(selector: string): ArrayLike<BootElement>;
  getElementById(id: string): BootElement | null;
}

interface BootElement {
  getAttribute(name: string): string | null;
  readonly textContent: string | null;
}

/**
 * @example render(<App page={chooseSource(document, location.href)} />, root);
 */
export function chooseSource(page: BootPage, href: string): TraceSource {
  const embedded = Array.from(page.querySelectorAll(`script[type="${TRACE_SCRIPT_TYPE}"]`));
  if (embedded.length > 0) {
    const encoder = new TextEncoder();
    const files: InputFile[] = embedded.map((el, i) => ({
      path: el.getAttribute('data-path') ?? `report/${i}.jsonl`,
      bytes: encoder.encode(el.textContent ?? ''),
    }));
    return reportSource(files);
  }
  const url = new URL(href);
  const config = page.getElementById('tapedeck-config');
  if (config?.textContent) {
    try {
      const parsed = JSON.parse(config.textContent) as { mode?: unknown; api?: unknown };
      if (parsed.mode === 'files')
        return servedSource(new URL(typeof parsed.api === 'string' ? parsed.api : 'api/', url), url);
    } catch {
      // A broken config is the same as none.
    }
  }
  return collectorSource(collectorAccess(url));
}

/** The collector serving this page, and the token the page was opened with (`?token=` or `#…?token=`). */
function collectorAccess(url: URL): { base: URL; token: string | undefined } {
  const token =
    url.searchParams.get('token') ??
    new URLSearchParams(url.hash.split('?')[1] ?? '').get('token') ??
    undefined;
  return { base: new URL('./', url), token: token ?? undefined };
}
