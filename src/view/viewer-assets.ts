import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { readViewerPage, viewerDir } from '../collector/viewer-files.js';

/**
 * The built web viewer (`vite build` → dist/viewer/: index.html, one script, one stylesheet; found and read by
 * src/collector/viewer-files.ts) made into pages: with `tapedeck view`'s config element, or whole, inlined, for
 * `tapedeck report`.
 */

/** Where index.html references its script and stylesheet (relative URLs, `./assets/…`). */
function assetRefs(page: string): { script: string | undefined; styles: string[] } {
  const script = /<script type="module"[^>]*\ssrc="\.\/([^"]+)"[^>]*><\/script>/.exec(page)?.[1];
  const styles = [...page.matchAll(/<link rel="stylesheet"[^>]*\shref="\.\/([^"]+)"[^>]*>/g)].map(
    (m) => m[1]!,
  );
  return { script, styles };
}

/**
 * Puts a JSON config element into the page's head (`tapedeck view` tells the viewer where its files are).
 * `<` is escaped so no value can end the element.
 *
 * @example withConfig(page, { mode: 'files', api: 'api/' })
 */
export function withConfig(page: string, config: Record<string, unknown>): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return page.replace(
    '</head>',
    `<script type="application/json" id="tapedeck-config">${json}</script>\n</head>`,
  );
}

/** One trace embedded in a report: JSONL text, written into the page as a data element. */
export interface EmbeddedTrace {
  /** The name the viewer shows (a virtual path: one folder per trace, so traces are never stitched together). */
  path: string;
  text: string;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Text that is safe inside a `<script>` or `<style>` element: `</script` becomes `<\/script`, same meaning in JS. */
function inlineSafe(code: string): string {
  return code.replace(/<\/(script|style)/gi, '<\\/$1');
}

/**
 * The viewer as one self-contained page: script and stylesheet inlined, traces embedded as inert data elements
 * (`<` written as `\u003c`, a JSON string escape, so trace text cannot end its element), and a content security
 * policy that allows exactly the inlined script and style and no network at all — a report opened from disk
 * neither loads nor sends anything.
 *
 * @example await writeFile('report.html', await inlinedPage([{ path: 'r0/calls.jsonl', text }], 'calls'));
 */
export async function inlinedPage(
  traces: readonly EmbeddedTrace[],
  title: string,
  dir = viewerDir(),
): Promise<string> {
  let page = await readViewerPage(dir);
  const { script, styles } = assetRefs(page);
  if (script === undefined)
    throw new TapedeckError('io', `${join(dir, 'index.html')} names no module script; rebuild the viewer`);
  const code = inlineSafe(await readFile(join(dir, script), 'utf8'));
  const css = inlineSafe((await Promise.all(styles.map((s) => readFile(join(dir, s), 'utf8')))).join('\n'));
  page = page.replace(/\s*<script type="module"[^>]*><\/script>/, '');
  page = page.replace(/\s*<link rel="stylesheet"[^>]*>/g, '');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(code)}`,
    `style-src ${sha256(css)}`,
    'img-src data:',
    'media-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const data = traces
    .map(
      (t) =>
        `<script type="application/x-tapedeck-trace" data-path="${escapeAttribute(t.path)}">${t.text.replace(/</g, '\\u003c')}</script>`,
    )
    .join('\n');
  const head =
    `<meta http-equiv="Content-Security-Policy" content="${csp}" />\n` +
    `<meta name="tapedeck-title" content="${escapeAttribute(title)}" />\n` +
    `<style>${css}</style>\n`;
  // Replacement functions, not strings: the inlined code is full of `$&`-like sequences.
  page = page.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeText(title)} · tapedeck report</title>`);
  page = page.replace('</head>', () => `${head}</head>`);
  // The script goes last: the data elements it reads are in the document by the time it runs.
  return page.replace('</body>', () => `${data}\n<script type="module">${code}</script>\n</body>`);
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
