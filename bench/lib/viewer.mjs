// The web viewer on a big trace: 100k messages (~100 MB) served whole by `tapedeck view --no-paged` to headless Chromium.
// Measures, from navigation: the first screen of timeline rows (rows are shown while the rest is still read), the
// whole trace read and paired, and a jump to the middle of the list. Needs `npm run build` and /usr/bin/chromium.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { track } from './processes.mjs';

export const VIEWER_TARGET_MS = 3000;
const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
export const CHROMIUM = process.env.TAPEDECK_CHROMIUM ?? '/usr/bin/chromium';

/** About 1 KB of tool arguments and of result text, varied per call. */
function exchange(id, t0) {
  const t = (ms) => new Date(t0 + ms).toISOString();
  const text =
    `Quarterly summary ${id}: revenue by region with variance against plan, the notes from the finance review and ` +
    'a short explanation of the largest deviation, in a table with the figures in EUR. '.repeat(8);
  const request = {
    t: t(id * 20),
    seq: id * 2 - 1,
    dir: 'in',
    raw: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: `tool_${id % 12}`,
        arguments: {
          query: `report ${id} for the EMEA region, including the notes from the finance review`,
          path: `/srv/data/reports/2026/q3/emea-${id}.md`,
          context: text,
          limit: id % 50,
        },
      },
    },
  };
  const response = {
    t: t(id * 20 + 3 + (id % 17)),
    seq: id * 2,
    dir: 'out',
    raw: {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: `${text} (answer ${id})` }], isError: id % 97 === 0 },
    },
  };
  return `${JSON.stringify(request)}\n${JSON.stringify(response)}\n`;
}

/**
 * `tapedeck view <file> --no-open [flags]`, as a user runs it (this build's, or another's `bin`); resolves once it
 * says where it serves.
 */
export async function startView(file, flags = [], bin = BIN) {
  const child = spawn(process.execPath, [bin, 'view', file, '--no-open', ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child.pid);
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const found = / at (http\S+)/.exec(text);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`tapedeck view exited with ${code} before serving`)));
  });
  return {
    url,
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGINT');
      await once(child, 'exit');
    },
  };
}

/** The V8 heap a page uses, ArrayBuffer backing stores (a whole file's bytes) and embedder heap included. */
export async function jsMemory(page) {
  const cdp = await page.context().newCDPSession(page);
  const heap = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return heap.usedSize + (heap.embedderHeapUsedSize ?? 0) + (heap.backingStorageSize ?? 0);
}

/** Headless Debian Chromium as the tests drive it (never a downloaded browser). */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/** Writes the trace; resolves to its size in bytes. */
export async function writeTrace(path, messages) {
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  const out = createWriteStream(path);
  const meta = {
    v: 1,
    type: 'meta',
    startedAt: new Date(t0).toISOString(),
    label: 'bench',
    kind: 'mcp',
    producer: { name: 'tapedeck', version: 'bench' },
    transport: 'stdio',
  };
  out.write(`${JSON.stringify(meta)}\n`);
  let chunk = '';
  for (let id = 1; id <= messages / 2; id++) {
    chunk += exchange(id, t0);
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.write(chunk);
  out.end(
    `${JSON.stringify({ t: new Date(t0 + messages * 10).toISOString(), type: 'end', durationMs: messages * 10, reason: 'process_exit' })}\n`,
  );
  await once(out, 'finish');
  return statSync(path).size;
}

/**
 * Runs the viewer benchmark once per round and reports medians.
 *
 * @example const r = await runViewerBench({ messages: 100_000, rounds: 3 }); r.firstScreenMs.median
 */
export async function runViewerBench(options = {}) {
  const messages = options.messages ?? Number(process.env.BENCH_VIEWER_MESSAGES ?? 100_000);
  const rounds = options.rounds ?? Number(process.env.BENCH_VIEWER_ROUNDS ?? 3);
  const log = options.log ?? (() => {});
  if (!existsSync(CHROMIUM))
    throw new Error(`the viewer benchmark needs Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-bench-'));
  const browser = await launchChromium();
  let server;
  try {
    const file = join(dir, 'bench.jsonl');
    const bytes = await writeTrace(file, messages);
    // Read whole, as `--no-paged` does: this part measures the browser reading a trace; paging has its own parts.
    server = await startView(file, ['--no-paged']);
    const results = [];
    for (let round = 1; round <= rounds; round++) {
      const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
      const started = performance.now();
      await page.goto(server.url);
      await page.locator('.timeline .row').first().waitFor({ timeout: 60_000 });
      const firstScreenMs = performance.now() - started;
      await page.locator('.status .loaded').waitFor({ timeout: 120_000 });
      const loadedMs = performance.now() - started;
      const rows = Number(await page.locator('.timeline').getAttribute('data-count'));
      // Jump to the middle of the list: the rows there must be on screen.
      const jumpStarted = performance.now();
      await page.locator('.timeline').evaluate((el) => {
        el.scrollTop = el.scrollHeight / 2;
      });
      // Row i holds seq i + 1 in this trace; the row at the middle is drawn once the list caught up.
      await page
        .locator(`.timeline .row[data-key="0.${Math.floor(rows / 2) + 1}"]`)
        .waitFor({ timeout: 10_000 });
      const jumpMs = performance.now() - jumpStarted;
      const heapMb = (await jsMemory(page)) / 1e6;
      await page.close();
      results.push({ firstScreenMs, loadedMs, jumpMs, rows, heapMb });
      log(
        `viewer round ${round}: first screen ${firstScreenMs.toFixed(0)} ms, all ${rows} rows ${loadedMs.toFixed(0)} ms, ` +
          `jump ${jumpMs.toFixed(0)} ms, heap with buffers ${heapMb.toFixed(0)} MB`,
      );
    }
    const median = (key) => {
      const sorted = results.map((r) => r[key]).sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)];
    };
    const firstScreenMs = median('firstScreenMs');
    return {
      messages,
      bytes,
      rounds: results,
      firstScreenMs,
      loadedMs: median('loadedMs'),
      jumpMs: median('jumpMs'),
      target: VIEWER_TARGET_MS,
      pass: firstScreenMs <= VIEWER_TARGET_MS && results.every((r) => r.rows === messages + 1),
    };
  } finally {
    await server?.close();
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node bench/lib/viewer.mjs` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runViewerBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify({ ...result, rounds: undefined }, null, 2)}\n`);
}
