// Collector ingest: a ~100 MB tapedeck trace (BENCH_COLLECTOR_MB) uploaded over HTTP to a collector in this
// process (its own temporary database), timed from the first byte sent to the 201. The body is built before the
// clock starts so the figure is the collector's: HTTP, line splitting, decoding, search columns, SQLite commits.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCollector } from '../../dist/collector/index.js';

/** Target: lines ingested per second. */
export const COLLECTOR_TARGET_LINES_PER_SEC = 20_000;

const TOKEN = 'be'.repeat(32);
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** The trace as one buffer: meta, tools/call request/response pairs of about `lineBytes` each, end. */
function buildTrace(targetBytes, lineBytes) {
  const meta = {
    v: 1,
    type: 'meta',
    startedAt: new Date(T0).toISOString(),
    label: 'bench',
    kind: 'mcp',
    producer: { name: 'tapedeck', version: 'bench' },
    traceId: randomUUID(),
    segment: 0,
    transport: 'stdio',
  };
  const parts = [`${JSON.stringify(meta)}\n`];
  let bytes = parts[0].length;
  let seq = 0;
  const tools = ['echo', 'add', 'get-env', 'long-op', 'search'];
  for (let id = 1; bytes < targetBytes; id += 1) {
    const t = new Date(T0 + id).toISOString();
    const tool = tools[id % tools.length];
    const request = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: tool, arguments: { text: '' } },
    };
    const failed = id % 50 === 0;
    const response = {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: '' }], isError: failed },
    };
    const pad = (line, set) => {
      const overhead = JSON.stringify(line).length + 1;
      set('x'.repeat(Math.max(0, lineBytes - overhead)));
      return `${JSON.stringify(line)}\n`;
    };
    const inLine = pad({ t, seq: ++seq, dir: 'in', raw: request }, (v) => {
      request.params.arguments.text = v;
    });
    const outLine = pad({ t, seq: ++seq, dir: 'out', raw: response }, (v) => {
      response.result.content[0].text = v;
    });
    parts.push(inLine, outLine);
    bytes += inLine.length + outLine.length;
  }
  parts.push(
    `${JSON.stringify({ t: new Date(T0 + seq).toISOString(), type: 'end', durationMs: seq, reason: 'process_exit' })}\n`,
  );
  return { body: Buffer.from(parts.join('')), lines: seq };
}

/**
 * Uploads the trace once (after a small warm-up upload) and reports lines/s and MB/s.
 *
 * @param {{ mb?: number, lineBytes?: number, log?: (line: string) => void }} [options]
 * @returns {Promise<{ linesPerSec: number, mbPerSec: number, lines: number, bytes: number, ms: number, dbBytes: number, target: number, ok: boolean }>}
 */
export async function runCollectorBench(options = {}) {
  const mb = options.mb ?? Number(process.env.BENCH_COLLECTOR_MB ?? 100);
  const lineBytes = options.lineBytes ?? 500;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-collector-'));
  const collector = await startCollector({
    dbPath: join(dir, 'bench.db'),
    token: TOKEN,
    port: 0,
    maxBodyBytes: Math.max(512, mb * 2) * 1024 * 1024,
  });
  try {
    const upload = async (body) => {
      const response = await fetch(`${collector.url}/api/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
        duplex: 'half',
        body: (async function* () {
          for (let at = 0; at < body.length; at += 256 * 1024) yield body.subarray(at, at + 256 * 1024);
        })(),
      });
      const answer = await response.json();
      if (response.status !== 201)
        throw new Error(`upload answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer;
    };
    await upload(buildTrace(1024 * 1024, lineBytes).body);
    const { body, lines } = buildTrace(mb * 1024 * 1024, lineBytes);
    const started = performance.now();
    const answer = await upload(body);
    const ms = performance.now() - started;
    if (answer.lines !== lines) throw new Error(`collector stored ${answer.lines} lines, expected ${lines}`);
    const linesPerSec = (lines * 1000) / ms;
    const mbPerSec = body.length / 1024 / 1024 / (ms / 1000);
    const dbBytes = statSync(join(dir, 'bench.db')).size;
    const ok = linesPerSec >= COLLECTOR_TARGET_LINES_PER_SEC;
    log(
      `collector ingest: ${(body.length / 1024 / 1024).toFixed(1)} MB, ${lines} lines in ${(ms / 1000).toFixed(2)} s → ` +
        `${Math.round(linesPerSec)} lines/s, ${mbPerSec.toFixed(1)} MB/s (target ≥ ${COLLECTOR_TARGET_LINES_PER_SEC} lines/s: ${ok ? 'ok' : 'MISSED'})`,
    );
    return {
      linesPerSec,
      mbPerSec,
      lines,
      bytes: body.length,
      ms,
      dbBytes,
      target: COLLECTOR_TARGET_LINES_PER_SEC,
      ok,
    };
  } finally {
    await collector.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run on its own: node bench/lib/collector.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  runCollectorBench().catch((err) => {
    process.stderr.write(`bench: ${err.stack ?? err}\n`);
    process.exit(1);
  });
}
