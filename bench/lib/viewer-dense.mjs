// The web viewer on a trace of a million small messages (~220 MB: long production sessions and agent runs look
// like this), written to a temp folder at bench time and removed after, opened with `tapedeck view` as a user runs
// it (no flags: the server decides whether to page it). Measures from navigation the first timeline rows, then a
// click on a row to its detail pane, a search to its answer, and the page's JS heap with its ArrayBuffer backing
// stores. With `BENCH_VIEWER_DENSE_BASELINE=<another checkout>` (built), the same steps run on that build's
// `tapedeck view` over the same file in the same run, and each figure is also given as a ratio against it.
// Needs `npm run build` and /usr/bin/chromium.

import { once } from 'node:events';
import {
  closeSync,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, jsMemory, launchChromium, startView } from './viewer.mjs';

export const DENSE_TARGETS = { firstRowsMs: 1000, heapBytes: 150 * 1024 * 1024, clickMs: 300, searchMs: 500 };
const VIEWPORT = { width: 1280, height: 800 };
const ROW = '.timeline .row:not(.pending)';
/** The one call whose arguments hold this word (the search's needle). */
const NEEDLE = 'needle-4242';

/** One small exchange: a tools/call of a dozen tools and its short answer, one in 101 failing. */
function exchange(id, t0, needle) {
  const t = (ms) => new Date(t0 + ms).toISOString();
  const word = id === needle ? NEEDLE : `w${id % 1000}`;
  const request = {
    t: t(id * 20),
    seq: id * 2 - 1,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `tool_${id % 12}`, arguments: { q: word } },
    },
  };
  const response = {
    t: t(id * 20 + 3 + (id % 17)),
    seq: id * 2,
    dir: 'out',
    raw: {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: `ok ${id}` }], isError: id % 101 === 0 },
    },
  };
  return `${JSON.stringify(request)}\n${JSON.stringify(response)}\n`;
}

/** Writes the trace; resolves to its size in bytes. */
export async function writeDenseTrace(path, messages) {
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  // The call that holds the needle: the same one in a million messages, one near the end of a smaller trace.
  const needle = Math.min(424_242, Math.floor(messages / 2) - 1);
  const out = createWriteStream(path);
  const meta = { v: 1, type: 'meta', startedAt: new Date(t0).toISOString(), label: 'dense', kind: 'mcp' };
  out.write(
    `${JSON.stringify({ ...meta, producer: { name: 'tapedeck', version: 'bench' }, transport: 'stdio' })}\n`,
  );
  let chunk = '';
  for (let id = 1; id <= messages / 2; id++) {
    chunk += exchange(id, t0, needle);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.write(chunk);
  const end = { t: new Date(t0 + messages * 10).toISOString(), type: 'end', durationMs: messages * 10 };
  out.end(`${JSON.stringify({ ...end, reason: 'process_exit' })}\n`);
  await once(out, 'finish');
  const handle = openSync(path, 'r');
  fsyncSync(handle);
  closeSync(handle);
  return statSync(path).size;
}

/**
 * Waits for an element, checking every animation frame: a locator's wait checks at growing intervals (up to half
 * a second apart), which would be measured as the view's own time.
 */
async function shown(page, selector, timeout) {
  await page.waitForFunction((s) => document.querySelector(s) !== null, selector, {
    polling: 'raf',
    timeout,
  });
}

/** One build's `tapedeck view` on the file: first rows, paged or not, click to detail, search, heap. */
async function measure(browser, file, bin) {
  const server = await startView(file, [], bin);
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    const started = performance.now();
    await page.goto(server.url);
    await shown(page, ROW, 300_000);
    const firstRowsMs = performance.now() - started;
    const paged = (await page.locator('.top .badge', { hasText: 'paged' }).count()) > 0;
    // A click while the page is still reading (whole) or indexing (paged): what a user does first.
    const clickStarted = performance.now();
    await page.locator(ROW).nth(5).click();
    await shown(page, '.detail h2', 300_000);
    const clickMs = performance.now() - clickStarted;
    await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 900_000 });
    const loadedMs = performance.now() - started;
    await page.keyboard.press('Escape');
    const searchStarted = performance.now();
    await page.locator('input[aria-label="search"]').fill(NEEDLE);
    await shown(page, '.timeline[data-count="2"]', 300_000);
    const searchMs = performance.now() - searchStarted;
    await page.waitForTimeout(300);
    const heapBytes = await jsMemory(page);
    return { paged, firstRowsMs, clickMs, loadedMs, searchMs, heapBytes };
  } finally {
    await page.close();
    await server.close();
  }
}

/**
 * Writes the trace, measures this build (and the baseline build when given), removes the trace.
 *
 * @example const r = await runDenseViewerBench({ log: console.error }); r.current.firstRowsMs
 */
export async function runDenseViewerBench(options = {}) {
  const messages = options.messages ?? Number(process.env.BENCH_VIEWER_DENSE_MESSAGES ?? 1_000_000);
  const baselineDir = options.baseline ?? process.env.BENCH_VIEWER_DENSE_BASELINE;
  const log = options.log ?? (() => {});
  if (!existsSync(CHROMIUM))
    throw new Error(`the viewer benchmark needs Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-dense-'));
  const browser = await launchChromium();
  try {
    const file = join(dir, 'dense.jsonl');
    const bytes = await writeDenseTrace(file, messages);
    log(`viewer dense: wrote ${messages.toLocaleString('en')} messages, ${(bytes / 1e6).toFixed(0)} MB`);
    const current = await measure(browser, file);
    log(`viewer dense, this build: ${JSON.stringify(current)}`);
    let baseline;
    if (baselineDir) {
      baseline = await measure(browser, file, join(baselineDir, 'dist/cli/bin.js'));
      log(`viewer dense, baseline ${baselineDir}: ${JSON.stringify(baseline)}`);
    }
    const ratios = baseline
      ? Object.fromEntries(
          ['firstRowsMs', 'clickMs', 'searchMs', 'heapBytes', 'loadedMs'].map((k) => [
            k,
            current[k] / baseline[k],
          ]),
        )
      : undefined;
    const pass =
      current.paged &&
      current.firstRowsMs <= DENSE_TARGETS.firstRowsMs &&
      current.heapBytes <= DENSE_TARGETS.heapBytes &&
      current.clickMs <= DENSE_TARGETS.clickMs &&
      current.searchMs <= DENSE_TARGETS.searchMs;
    return { messages, bytes, current, baseline, ratios, targets: DENSE_TARGETS, pass };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node bench/lib/viewer-dense.mjs` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runDenseViewerBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
