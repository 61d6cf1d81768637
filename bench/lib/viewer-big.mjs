// The web viewer on a 1M-message trace (~1 GB), written to a temp folder at bench time and removed after: served
// by `tapedeck view` as a user runs it (a trace that big is paged: the server indexes it and the browser asks
// for what it shows), against the same file handed to the browser whole (`--no-paged`) in the same run. Measures
// the first screen from navigation (wall clock, and in the page from navigation start), the index finished, a
// jump to the middle, and the browser's memory for the page: the V8 heap with its ArrayBuffer backing stores
// (CDP Runtime.getHeapUsage) and the renderer processes' resident memory (CDP SystemInfo + /proc), each against
// the file's size. Needs `npm run build` and /usr/bin/chromium; checks free disk and memory first.

import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, jsMemory, launchChromium, startView, writeTrace } from './viewer.mjs';

export const BIG_TARGETS = { firstScreenMs: 2000, memoryRatio: 1.5 };
const VIEWPORT = { width: 1360, height: 820 };
/** A real row (not one still on its way from the server). */
const ROW = '.timeline .row:not(.pending)';

/** Records in the page when the first real row appeared, in ms from navigation start. */
const FIRST_ROW_PROBE = `(() => {
  const look = () => {
    if (window.__firstRowMs === undefined && document.querySelector(${JSON.stringify(ROW)})) {
      window.__firstRowMs = performance.now();
      return true;
    }
    return false;
  };
  new MutationObserver((_, observer) => { if (look()) observer.disconnect(); })
    .observe(document, { childList: true, subtree: true });
})();`;

/** Resident memory of the browser's renderer processes, summed (bytes). */
async function rendererRss(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  let bytes = 0;
  for (const p of processInfo.filter((x) => x.type === 'renderer')) {
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'))?.[1];
      bytes += Number(kb ?? 0) * 1024;
    } catch {
      // The process ended between the two looks.
    }
  }
  return bytes;
}

/** Opens the viewer and waits for the first real row: wall-clock ms from navigation, and the page's own figure. */
async function firstScreen(browser, url) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.addInitScript(FIRST_ROW_PROBE);
  const started = performance.now();
  await page.goto(url);
  await page.locator(ROW).first().waitFor({ timeout: 120_000 });
  const firstScreenMs = performance.now() - started;
  const inPageMs = await page.evaluate(() => window.__firstRowMs ?? null);
  return { page, firstScreenMs, inPageMs, started };
}

/** Waits for everything to be read (whole) or indexed (paged), then jumps to the middle and measures memory. */
async function settle(browser, page, started, messages, baseline) {
  await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 900_000 });
  const loadedMs = performance.now() - started;
  const rows = Number(await page.locator('.timeline').getAttribute('data-count'));
  const jumpStarted = performance.now();
  await page.locator('.timeline').evaluate((el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  // Row i holds seq i + 1 in this trace; the row at the middle is drawn once the list caught up.
  await page.locator(`.timeline .row[data-key="0.${Math.floor(rows / 2) + 1}"]`).waitFor({ timeout: 60_000 });
  const jumpMs = performance.now() - jumpStarted;
  await page.waitForTimeout(500);
  const heapBytes = await jsMemory(page);
  const rssBytes = (await rendererRss(browser)) - baseline;
  return { loadedMs, rows, rowsOk: rows === messages + 1, jumpMs, heapBytes, rssBytes };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs the 1M-message case: paged first screen over `rounds` fresh `tapedeck view` processes, one paged round
 * followed to the end (index, jump, memory), and the whole-file baseline unless `whole` is false or the machine
 * lacks the memory for it.
 *
 * @example const r = await runBigViewerBench({ log: console.error }); r.paged.firstScreenMs
 */
export async function runBigViewerBench(options = {}) {
  const messages = options.messages ?? Number(process.env.BENCH_VIEWER_BIG_MESSAGES ?? 1_000_000);
  const rounds = options.rounds ?? Number(process.env.BENCH_VIEWER_BIG_ROUNDS ?? 3);
  const whole = options.whole ?? process.env.BENCH_VIEWER_BIG_WHOLE !== '0';
  const log = options.log ?? (() => {});
  if (!existsSync(CHROMIUM))
    throw new Error(`the viewer benchmark needs Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  // ~1 KB per message: the file, and room for the system beside it.
  const need = messages * 1100;
  const disk = statfsSync(tmpdir());
  const free = disk.bavail * disk.bsize;
  if (free < need * 2)
    return {
      skipped: `needs ${Math.round((need * 2) / 1e9)} GB free in ${tmpdir()}, has ${(free / 1e9).toFixed(1)} GB`,
    };
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-big-'));
  const browser = await launchChromium();
  const servers = [];
  try {
    const file = join(dir, 'big.jsonl');
    const writing = performance.now();
    const bytes = await writeTrace(file, messages);
    log(
      `viewer 1M: wrote ${(bytes / 1e9).toFixed(2)} GB in ${((performance.now() - writing) / 1000).toFixed(0)} s`,
    );
    const blank = await browser.newPage();
    await blank.goto('about:blank');
    const baseline = await rendererRss(browser);

    const firsts = [];
    for (let round = 1; round <= rounds; round++) {
      const server = await startView(file);
      servers.push(server);
      const { page, firstScreenMs, inPageMs } = await firstScreen(browser, server.url);
      firsts.push({ firstScreenMs, inPageMs });
      log(
        `viewer 1M paged round ${round}: first screen ${firstScreenMs.toFixed(0)} ms (in page ${inPageMs?.toFixed(0)} ms)`,
      );
      await page.close();
      await server.close();
    }
    const server = await startView(file);
    servers.push(server);
    const full = await firstScreen(browser, server.url);
    const settled = await settle(browser, full.page, full.started, messages, baseline);
    log(
      `viewer 1M paged: indexed in ${(settled.loadedMs / 1000).toFixed(1)} s, jump ${settled.jumpMs.toFixed(0)} ms, ` +
        `heap ${(settled.heapBytes / 1e6).toFixed(0)} MB, renderer RSS +${(settled.rssBytes / 1e6).toFixed(0)} MB`,
    );
    await full.page.close();
    await server.close();
    const paged = {
      firstScreenMs: median([...firsts.map((f) => f.firstScreenMs), full.firstScreenMs]),
      firstScreenRange: [
        Math.min(...firsts.map((f) => f.firstScreenMs)),
        Math.max(...firsts.map((f) => f.firstScreenMs)),
      ],
      inPageMs: median(firsts.map((f) => f.inPageMs ?? Number.NaN)),
      ...settled,
      memoryRatio: Math.max(settled.heapBytes, settled.rssBytes) / bytes,
    };

    let baselineWhole;
    if (!whole) baselineWhole = { skipped: 'BENCH_VIEWER_BIG_WHOLE=0' };
    else if (freemem() < 8e9)
      baselineWhole = { skipped: `needs 8 GB of free memory, has ${(freemem() / 1e9).toFixed(1)} GB` };
    else {
      const wholeServer = await startView(file, ['--no-paged']);
      servers.push(wholeServer);
      const w = await firstScreen(browser, wholeServer.url);
      const s = await settle(browser, w.page, w.started, messages, baseline);
      baselineWhole = {
        firstScreenMs: w.firstScreenMs,
        inPageMs: w.inPageMs,
        ...s,
        memoryRatio: Math.max(s.heapBytes, s.rssBytes) / bytes,
      };
      log(
        `viewer 1M whole (--no-paged): first screen ${w.firstScreenMs.toFixed(0)} ms, read in ${(s.loadedMs / 1000).toFixed(1)} s, ` +
          `heap ${(s.heapBytes / 1e6).toFixed(0)} MB, renderer RSS +${(s.rssBytes / 1e6).toFixed(0)} MB`,
      );
      await w.page.close();
      await wholeServer.close();
    }
    return {
      messages,
      bytes,
      paged,
      whole: baselineWhole,
      targets: BIG_TARGETS,
      pass:
        paged.firstScreenMs <= BIG_TARGETS.firstScreenMs &&
        paged.memoryRatio <= BIG_TARGETS.memoryRatio &&
        paged.rowsOk,
    };
  } finally {
    for (const server of servers) await server.close();
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node bench/lib/viewer-big.mjs` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runBigViewerBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
