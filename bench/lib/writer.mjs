import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PipeCapture } from '../../dist/capture/pipe-capture.js';
import { FileSink } from '../../dist/sink/file.js';
import { median } from './stats.mjs';

const T = '2026-01-01T00:00:00.000Z';

/**
 * A realistic pair of JSON-RPC messages (a tools/call request and its result) padded so that each one, wrapped
 * as a trace line `{t, seq, dir, raw}`, encodes to about `lineBytes` bytes.
 */
export function sampleMessages(lineBytes, id) {
  const request = (pad) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: pad }, _meta: { progressToken: id } },
  });
  const response = (pad) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: pad }] } });
  const padTo = (make, dir) => {
    const overhead = JSON.stringify({ t: T, seq: 100000 + id, dir, raw: make('') }).length + 1;
    return make('x'.repeat(Math.max(0, lineBytes - overhead)));
  };
  return { request: padTo(request, 'in'), response: padTo(response, 'out') };
}

function meta() {
  return {
    v: 1,
    type: 'meta',
    startedAt: new Date().toISOString(),
    label: 'bench',
    kind: 'mcp',
    producer: { name: 'tapedeck', version: 'bench' },
    traceId: randomUUID(),
    segment: 0,
    transport: 'stdio',
  };
}

/**
 * FileSink alone: `lines` bodies appended through `sink.append` (the path every capture takes), then `flush()`.
 * Bodies are prepared up front so the figure is the sink's own cost (seq, redaction seam, encoding, batching,
 * writes); `close()` (fsync) is timed apart.
 */
async function sinkRound(config, path) {
  const pool = [];
  for (let id = 1; id <= 512; id += 1) {
    const { request, response } = sampleMessages(config.lineBytes, id);
    pool.push({ t: T, dir: 'in', raw: request }, { t: T, dir: 'out', raw: response });
  }
  const sink = new FileSink({ path, warn: (m) => process.stderr.write(`bench: ${m}\n`) });
  sink.start(meta());
  const started = performance.now();
  for (let i = 0; i < config.writerLines; i += 1) sink.append(pool[i % pool.length]);
  sink.flush();
  const writtenMs = performance.now() - started;
  await sink.close({ reason: 'producer_shutdown' });
  const closeMs = performance.now() - started - writtenMs;
  const bytes = fileBytes(path);
  return { linesPerSec: (config.writerLines * 1000) / writtenMs, writtenMs, closeMs, bytes };
}

/**
 * The whole capture path as the proxy runs it: raw wire bytes → PipeCapture (framing, UTF-8 check, JSON.parse,
 * timestamp) → FileSink. `busy`: 64 KiB reads with lines cut anywhere, as a saturated pipe delivers them.
 * `sequential`: one message per read and a flush after each, as request/response traffic arrives (the FileSink
 * writes once per event-loop turn).
 */
async function captureRound(config, path, shape) {
  const { requests, responses, linesPerChunkSet } =
    shape === 'busy' ? wireChunks(config.lineBytes) : wireLines(config.lineBytes);
  const sink = new FileSink({ path, warn: (m) => process.stderr.write(`bench: ${m}\n`) });
  sink.start(meta());
  const emit = sink.append.bind(sink);
  const toServer = new PipeCapture({ dir: 'in', maxMessageBytes: 16 * 1024 * 1024, emit });
  const toClient = new PipeCapture({ dir: 'out', maxMessageBytes: 16 * 1024 * 1024, emit });
  const sets = Math.max(1, Math.round(config.writerLines / linesPerChunkSet));
  const started = performance.now();
  if (shape === 'busy') {
    for (let s = 0; s < sets; s += 1) {
      for (const chunk of requests) toServer.push(chunk);
      for (const chunk of responses) toClient.push(chunk);
    }
  } else {
    for (let s = 0; s < sets; s += 1) {
      for (let i = 0; i < requests.length; i += 1) {
        toServer.push(requests[i]);
        sink.flush();
        toClient.push(responses[i]);
        sink.flush();
      }
    }
  }
  toServer.end();
  toClient.end();
  sink.flush();
  const writtenMs = performance.now() - started;
  await sink.close({ reason: 'producer_shutdown' });
  const closeMs = performance.now() - started - writtenMs;
  const lines = sets * linesPerChunkSet;
  return { linesPerSec: (lines * 1000) / writtenMs, writtenMs, closeMs, bytes: fileBytes(path), lines };
}

/** 1024 request lines and 1024 response lines as they cross the wire, cut into 64 KiB reads. */
function wireChunks(lineBytes) {
  const requestText = [];
  const responseText = [];
  for (let id = 1; id <= 1024; id += 1) {
    const { request, response } = sampleMessages(lineBytes, id);
    requestText.push(`${JSON.stringify(request)}\n`);
    responseText.push(`${JSON.stringify(response)}\n`);
  }
  const cut = (text) => {
    const all = Buffer.from(text.join(''));
    const chunks = [];
    for (let at = 0; at < all.length; at += 65536) chunks.push(all.subarray(at, at + 65536));
    return chunks;
  };
  return { requests: cut(requestText), responses: cut(responseText), linesPerChunkSet: 2048 };
}

/** The same messages, one line per buffer. */
function wireLines(lineBytes) {
  const requests = [];
  const responses = [];
  for (let id = 1; id <= 1024; id += 1) {
    const { request, response } = sampleMessages(lineBytes, id);
    requests.push(Buffer.from(`${JSON.stringify(request)}\n`));
    responses.push(Buffer.from(`${JSON.stringify(response)}\n`));
  }
  return { requests, responses, linesPerChunkSet: 2048 };
}

function fileBytes(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Alternates sink-only and full-capture rounds; medians of each. */
export async function writerBench(config, tmp, onRound = () => {}) {
  const kinds = {
    sink: (path) => sinkRound(config, path),
    capture: (path) => captureRound(config, path, 'busy'),
    captureSeq: (path) => captureRound(config, path, 'sequential'),
  };
  const rounds = { sink: [], capture: [], captureSeq: [] };
  for (let round = 1; round <= config.writerRounds; round += 1) {
    for (const [kind, run] of Object.entries(kinds)) {
      const path = join(tmp, `${kind}-${round}.jsonl`);
      rounds[kind].push(await run(path));
      rmSync(path, { force: true });
      onRound(kind, round, rounds[kind].at(-1));
    }
  }
  const summarize = (rounds) => ({
    linesPerSec: median(rounds.map((r) => r.linesPerSec)),
    mbPerSec: median(rounds.map((r) => r.bytes / 1e6 / (r.writtenMs / 1000))),
    closeMs: median(rounds.map((r) => r.closeMs)),
    bytesPerLine: median(rounds.map((r) => r.bytes / (r.lines ?? config.writerLines))),
    rounds,
  });
  return {
    sink: summarize(rounds.sink),
    capture: summarize(rounds.capture),
    captureSeq: summarize(rounds.captureSeq),
  };
}
