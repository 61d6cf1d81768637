// The web viewer and `tapedeck stats` on traces of small messages (100k and a million messages, ~17 and ~170 MB:
// long production sessions and agent runs look like this), each written to a temp folder at bench time and removed
// after, opened with `tapedeck view` as a user runs it (no flags: the server decides whether to page it). Measures
// from navigation the first timeline rows, then a click on a row to its detail pane, searches to their answers (a
// rare word, one character, two characters: from the first keystroke to the first matching rows shown, and on to
// the count of all matching rows shown, which a paged trace may give after its first page), and the page's JS heap with its ArrayBuffer backing stores; then
// `tapedeck stats --json` on the same file (wall time and peak RSS, medians of rounds alternating with a plain read
// of the file in Node, the floor). With `BENCH_VIEWER_DENSE_BASELINE=<another checkout>` (built), the same steps
// run on that build over the same file in the same run, and each figure is also given as a ratio against it.
// Needs `npm run build` and /usr/bin/chromium (the stats figures are measured without it).

import { spawn } from 'node:child_process';
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
import { track } from './processes.mjs';
import { CHROMIUM, jsMemory, launchChromium, startView } from './viewer.mjs';

export const DENSE_TARGETS = {
  firstRowsMs: 1000,
  heapBytes: 150 * 1024 * 1024,
  clickMs: 300,
  searchMs: 500,
  statsMs: 2000,
  statsRssBytes: 200 * 1024 * 1024,
};
const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
/** Texts too short for the search's trigram filter: every request holds the one, a ninth of them the other. */
const SHORT = ['q', 'w7'];
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

/** Rows a search for `text` leaves in a trace of `messages` messages (see exchange(): ids 1 … messages / 2). */
function expectedRows(text, messages) {
  const needle = Math.min(424_242, Math.floor(messages / 2) - 1);
  if (text === NEEDLE) return 2;
  if (text === 'q') return messages;
  let calls = 0;
  for (let id = 1; id <= messages / 2; id++) if (id !== needle && `w${id % 1000}`.includes('w7')) calls++;
  return 2 * calls;
}

/** The key of the first row a search for `text` leaves (see exchange(): a call's seq is 2 × id − 1). */
function firstKey(text, messages) {
  const needle = Math.min(424_242, Math.floor(messages / 2) - 1);
  if (text === NEEDLE) return `0.${needle * 2 - 1}`;
  for (let id = 1; id <= messages / 2; id++)
    if (id !== needle && `w${id % 1000}`.toLowerCase().includes(text.toLowerCase())) return `0.${id * 2 - 1}`;
  return '0.1';
}

/**
 * Types a search; ms from the first keystroke until the list shows the search's first matching row (the list no
 * longer the whole trace's), and until it holds exactly the rows it should (the count shown).
 */
async function search(page, text, messages) {
  const box = page.locator('input[aria-label="search"]');
  await box.fill('');
  await shown(page, `.timeline[data-count="${messages + 1}"]`, 300_000);
  const started = performance.now();
  await box.fill(text);
  await shown(
    page,
    `.timeline:not([data-count="${messages + 1}"]) .row[data-key="${firstKey(text, messages)}"]`,
    300_000,
  );
  const rowsMs = performance.now() - started;
  await shown(page, `.timeline[data-count="${expectedRows(text, messages)}"]`, 300_000);
  return { rowsMs, countMs: performance.now() - started };
}

/** One build's `tapedeck view` on the file: first rows, paged or not, click to detail, searches, heap. */
async function measure(browser, file, bin, messages) {
  const server = await startView(file, [], bin ?? BIN);
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
    const rare = await search(page, NEEDLE, messages);
    const one = await search(page, SHORT[0], messages);
    const two = await search(page, SHORT[1], messages);
    await page.waitForTimeout(300);
    const heapBytes = await jsMemory(page);
    return {
      paged,
      firstRowsMs,
      clickMs,
      loadedMs,
      searchMs: rare.rowsMs,
      search1Ms: one.rowsMs,
      search2Ms: two.rowsMs,
      searchCountMs: rare.countMs,
      search1CountMs: one.countMs,
      search2CountMs: two.countMs,
      heapBytes,
    };
  } finally {
    await page.close();
    await server.close();
  }
}

/** Runs a process to its end: wall ms, and its peak RSS when it reports one (`maxrss <KiB>` on stderr). */
async function timed(args) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`);
  const kib = /maxrss (\d+)/.exec(stderr)?.[1];
  return { ms, rssBytes: kib === undefined ? undefined : Number(kib) * 1024, stdout };
}

/** Peak RSS, reported on stderr as the process exits. */
const MAXRSS = `--import=data:text/javascript,${encodeURIComponent(
  "process.on('exit',()=>process.stderr.write('maxrss '+process.resourceUsage().maxRSS+'\\n'))",
)}`;
/** The floor: reading the file in Node and counting its lines, nothing parsed. */
const READ_FLOOR = [
  "const fs=require('node:fs');const fd=fs.openSync(process.argv[1],'r');const b=Buffer.allocUnsafe(1<<22);",
  'let n=0,k;while((k=fs.readSync(fd,b,0,b.length,null))>0)for(let i=b.indexOf(10);i!==-1&&i<k;i=b.indexOf(10,i+1))n++;',
  'console.log(n)',
].join('');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `tapedeck stats --json` on the file by each build in `bins` (this build's, and a baseline's when given), rounds
 * alternating with the read floor (floor, this build, baseline, floor, …): per build the medians of wall time and
 * peak RSS, and whether the figures are the trace's.
 */
async function measureStats(file, messages, bins, rounds = 3) {
  const runs = bins.map(() => []);
  const floor = [];
  const counted = bins.map(() => undefined);
  for (let round = 0; round < rounds; round++) {
    floor.push(await timed(['-e', READ_FLOOR, file]));
    for (const [i, bin] of bins.entries()) {
      const run = await timed([MAXRSS, bin, 'stats', file, '--json']);
      runs[i].push(run);
      const parsed = JSON.parse(run.stdout);
      counted[i] = parsed.messages.in.messages + parsed.messages.out.messages;
    }
  }
  const floorMs = median(floor.map((r) => r.ms));
  return bins.map((_, i) => {
    const statsMs = median(runs[i].map((r) => r.ms));
    return {
      statsMs,
      statsRssBytes: median(runs[i].map((r) => r.rssBytes)),
      floorMs,
      overFloor: statsMs / floorMs,
      countedOk: counted[i] === messages,
    };
  });
}

/** One size: write the trace, measure the viewer (this build, and the baseline when given) and stats, remove it. */
async function measureSize(browser, dir, messages, baselineDir, log) {
  const file = join(dir, `dense-${messages}.jsonl`);
  try {
    const bytes = await writeDenseTrace(file, messages);
    const label = `viewer dense ${messages.toLocaleString('en')}`;
    log(`${label}: wrote ${(bytes / 1e6).toFixed(0)} MB`);
    const baseBin = baselineDir ? join(baselineDir, 'dist/cli/bin.js') : undefined;
    const current = browser ? await measure(browser, file, BIN, messages) : {};
    const baseline =
      baseBin && browser ? await measure(browser, file, baseBin, messages) : baseBin ? {} : undefined;
    const [stats, baseStats] = await measureStats(file, messages, baseBin ? [BIN, baseBin] : [BIN]);
    Object.assign(current, stats);
    log(`${label}, this build: ${JSON.stringify(current)}`);
    if (baseline) {
      Object.assign(baseline, baseStats);
      log(`${label}, baseline ${baselineDir}: ${JSON.stringify(baseline)}`);
    }
    const keys = [
      'firstRowsMs',
      'clickMs',
      'searchMs',
      'search1Ms',
      'search2Ms',
      'searchCountMs',
      'search1CountMs',
      'search2CountMs',
      'heapBytes',
      'loadedMs',
      'statsMs',
      'statsRssBytes',
    ];
    const ratios = baseline
      ? Object.fromEntries(
          keys.filter((k) => k in current && k in baseline).map((k) => [k, current[k] / baseline[k]]),
        )
      : undefined;
    return { messages, bytes, current, baseline, ratios };
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Whether one size's figures meet the targets (the viewer's only where Chromium ran; only the largest trace must be
 * paged, a smaller one is shown whole).
 */
function passes(c, viewer, largest) {
  const stats =
    c.statsMs <= DENSE_TARGETS.statsMs && c.statsRssBytes <= DENSE_TARGETS.statsRssBytes && c.countedOk;
  if (!viewer) return stats;
  return (
    stats &&
    (c.paged || !largest) &&
    c.firstRowsMs <= DENSE_TARGETS.firstRowsMs &&
    c.heapBytes <= DENSE_TARGETS.heapBytes &&
    c.clickMs <= DENSE_TARGETS.clickMs &&
    Math.max(c.searchMs, c.search1Ms, c.search2Ms) <= DENSE_TARGETS.searchMs
  );
}

/**
 * Writes each size's trace in turn, measures this build (and the baseline build when given), removes the trace.
 * `sizes` defaults to 100k and the 1M of `messages`.
 *
 * @example const r = await runDenseViewerBench({ log: console.error }); r.sizes[1].current.firstRowsMs
 */
export async function runDenseViewerBench(options = {}) {
  const messages = options.messages ?? Number(process.env.BENCH_VIEWER_DENSE_MESSAGES ?? 1_000_000);
  const small = options.small ?? Number(process.env.BENCH_VIEWER_DENSE_SMALL ?? 100_000);
  const sizes = options.sizes ?? (small > 0 && small < messages ? [small, messages] : [messages]);
  const baselineDir = options.baseline ?? process.env.BENCH_VIEWER_DENSE_BASELINE;
  const log = options.log ?? (() => {});
  const viewer = existsSync(CHROMIUM);
  if (!viewer) log(`viewer dense: no Chromium at ${CHROMIUM}, stats figures only`);
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-dense-'));
  const browser = viewer ? await launchChromium() : undefined;
  try {
    const results = [];
    for (const size of sizes) results.push(await measureSize(browser, dir, size, baselineDir, log));
    const last = results[results.length - 1];
    return {
      // The largest size's figures under the names older readers know.
      messages: last.messages,
      bytes: last.bytes,
      current: last.current,
      baseline: last.baseline,
      ratios: last.ratios,
      sizes: results,
      viewer,
      targets: DENSE_TARGETS,
      pass: results.every((r) => passes(r.current, viewer, r === last)),
    };
  } finally {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node bench/lib/viewer-dense.mjs` runs it alone (a summary table on stderr, the results as JSON on stdout).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { denseTable } = await import('./report.mjs');
  const result = await runDenseViewerBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stderr.write(`\n${denseTable(result)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
