// The in-process replay part, run in its own `node --expose-gc` process so the memory figures see only the
// cassette index (not the rest of the bench) and `--cpu-prof` profiles only replay:
//   node --expose-gc bench/lib/replay-worker.mjs <cassette.jsonl> <exchanges> <inFlight> [answerBytes]
// answerBytes > 0 pads every tool answer to that many characters (a file read or a search page), else answers are
// a few words, which makes the densest cassette: the most lines, so the most per-line work, per MB.
// Writes the cassette (a tapedeck JSONL trace: initialize + <exchanges> tools/call exchanges with varied arguments),
// loads it through replayTransport, drives it with a hand-written client and prints one JSON object on stdout.
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { loadCassette, replayTransport } from '../../dist/live/replay-entry.js';

const [path, exchangesText, inFlightText, answerBytesText = '0'] = process.argv.slice(2);
const answerBytes = Number(answerBytesText);
const exchanges = Number(exchangesText);
const inFlight = Number(inFlightText);
const gc = globalThis.gc ?? (() => {});
const log = (line) => process.stderr.write(`replay in-process: ${line}\n`);

const TOOLS = ['search_documents', 'get_weather', 'add', 'read_file', 'run_query'];
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Osaka', 'Lima', 'Perth', 'Quebec'];

/** Varied tools/call params for exchange `i`: five tools, different argument shapes, every request distinct. */
export function paramsFor(i) {
  switch (i % TOOLS.length) {
    case 0:
      return {
        name: 'search_documents',
        arguments: {
          query: `quarterly report ${i} for region ${i % 17}`,
          filters: { tags: ['finance', `q${(i % 4) + 1}`], limit: 10 + (i % 40) },
          include_snippets: i % 2 === 0,
        },
      };
    case 1:
      return { name: 'get_weather', arguments: { city: CITIES[i % CITIES.length], day: i, units: 'metric' } };
    case 2:
      return { name: 'add', arguments: { a: i, b: i * 7 + 3 } };
    case 3:
      return { name: 'read_file', arguments: { path: `/srv/data/${i % 100}/file-${i}.md`, maxBytes: 4096 } };
    default:
      return {
        name: 'run_query',
        arguments: { sql: `select * from events where id = ${i} limit 5`, params: [i, `k${i % 9}`] },
      };
  }
}

const FILLER = 'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ';
const PAD = FILLER.repeat(Math.ceil(answerBytes / FILLER.length));

/** The recorded answer of exchange `i`: a few words, padded to `answerBytes` characters when that is larger. */
export function answerFor(i) {
  const short = `result ${i}: ${TOOLS[i % TOOLS.length]} ok`;
  if (short.length >= answerBytes) return short;
  return `${short} ${PAD}`.slice(0, answerBytes);
}

function timeAt(ms) {
  return new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
}

/** Writes the cassette in 1 MB-ish chunks; returns its size in bytes. */
function writeCassette(file, count) {
  const fd = openSync(file, 'w', 0o600);
  let seq = 0;
  let chunk = '';
  const line = (object) => {
    chunk += `${JSON.stringify(object)}\n`;
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk);
      chunk = '';
    }
  };
  const message = (ms, dir, raw) => line({ t: timeAt(ms), seq: ++seq, dir, raw });
  line({
    v: 1,
    type: 'meta',
    startedAt: timeAt(0),
    label: 'bench-replay',
    kind: 'mcp',
    producer: { name: 'tapedeck', version: '0.1.0' },
    traceId: '00000000-0000-4000-8000-000000000000',
    segment: 0,
    transport: 'stdio',
  });
  message(1, 'in', {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'tapedeck-bench', version: '0.0.0' },
    },
  });
  message(2, 'out', {
    jsonrpc: '2.0',
    id: 0,
    result: {
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'bench-server', version: '1.0.0' },
    },
  });
  message(3, 'in', { jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 0; i < count; i += 1) {
    const id = i + 1;
    message(10 + 2 * i, 'in', { jsonrpc: '2.0', id, method: 'tools/call', params: paramsFor(i) });
    message(11 + 2 * i, 'out', {
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: answerFor(i) }], isError: false },
    });
  }
  line({ t: timeAt(20 + 2 * count), type: 'end', durationMs: 20 + 2 * count, reason: 'process_exit' });
  writeSync(fd, chunk);
  closeSync(fd);
  return statSync(file).size;
}

function memory() {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
}

/** A minimal client on the transport: request(method, params) resolves with the response. */
function client(transport) {
  const pending = new Map();
  let nextId = 1;
  transport.onmessage = (message) => {
    const resolve = pending.get(message.id);
    if (resolve) {
      pending.delete(message.id);
      resolve(message);
    }
  };
  transport.onerror = (error) => log(`transport error: ${error.message}`);
  return (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, resolve);
      transport.send({ jsonrpc: '2.0', id, method, params }).catch(reject);
    });
}

/**
 * The floor for the same client: a trivial in-memory server on the same Transport contract as replayTransport —
 * each message copied on its way in and out (JSON text, as over a wire), each answer in a macrotask of its own — that
 * answers a request by looking its params' JSON text up among the recorded answers. What any in-process stand-in
 * for the server costs this client; replay's rates are also shown over it.
 */
function floorTransport(count) {
  const answers = new Map();
  for (let i = 0; i < count; i += 1) answers.set(JSON.stringify(paramsFor(i)), answerFor(i));
  const outbox = [];
  let scheduled = false;
  const transport = {
    onmessage: undefined,
    onerror: undefined,
    async send(message) {
      const request = JSON.parse(JSON.stringify(message));
      const text = answers.get(JSON.stringify(request.params));
      const answer = {
        jsonrpc: '2.0',
        id: request.id,
        result: { content: [{ type: 'text', text }], isError: false },
      };
      outbox.push(JSON.parse(JSON.stringify(answer)));
      schedule();
    },
  };
  const flush = () => {
    scheduled = false;
    transport.onmessage?.(outbox.shift());
    schedule();
  };
  const schedule = () => {
    if (scheduled || outbox.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };
  return transport;
}

/** Sequential then `inFlight` requests on `transport` for exchanges [from, to): requests/s of each half. */
async function drive(transport, from, to) {
  const request = client(transport);
  const half = from + Math.floor((to - from) / 2);
  let started = performance.now();
  for (let i = from; i < half; i += 1) check(await request('tools/call', paramsFor(i)), i);
  const seqMs = performance.now() - started;
  let next = half;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      check(await request('tools/call', paramsFor(i)), i);
    }
  };
  started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const pipeMs = performance.now() - started;
  return { seqPerSec: ((half - from) * 1000) / seqMs, pipePerSec: ((to - half) * 1000) / pipeMs };
}

function check(response, i) {
  const text = response.result?.content?.[0]?.text;
  if (text !== answerFor(i))
    throw new Error(`exchange ${i}: unexpected response ${JSON.stringify(response)}`);
}

async function main() {
  let started = performance.now();
  const bytes = writeCassette(path, exchanges);
  const writeMs = performance.now() - started;
  log(`wrote ${exchanges} exchanges, ${(bytes / 1e6).toFixed(1)} MB in ${writeMs.toFixed(0)} ms`);

  const before = memory();
  started = performance.now();
  const { cassette } = await loadCassette(path);
  const loadMs = performance.now() - started;
  started = performance.now();
  // What replayTransport(path).start() does, split in two: loadCassette (openTrace + buildCassette), then the
  // engine (matcher index: every exchange normalized and keyed).
  const transport = replayTransport(cassette);
  await transport.start();
  const engineMs = performance.now() - started;
  const after = memory();
  log(
    `index: load ${loadMs.toFixed(0)} ms + engine ${engineMs.toFixed(0)} ms; heap +${((after.heap - before.heap) / 1e6).toFixed(1)} MB, rss +${((after.rss - before.rss) / 1e6).toFixed(1)} MB`,
  );

  const request = client(transport);
  const init = await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'another-client', version: '9.9.9' },
  });
  if (!init.result?.serverInfo) throw new Error(`initialize: unexpected response ${JSON.stringify(init)}`);
  await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

  // Warm-up, then the first half sequentially (one request in flight), the rest with `inFlight` in flight; each
  // request is a different recorded exchange, answered once.
  const warm = Math.min(5000, Math.floor(exchanges / 10));
  const half = warm + Math.floor((exchanges - warm) / 2);
  for (let i = 0; i < warm; i += 1) check(await request('tools/call', paramsFor(i)), i);
  started = performance.now();
  for (let i = warm; i < half; i += 1) check(await request('tools/call', paramsFor(i)), i);
  const seqMs = performance.now() - started;
  let next = half;
  const worker = async () => {
    while (next < exchanges) {
      const i = next++;
      check(await request('tools/call', paramsFor(i)), i);
    }
  };
  started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const pipeMs = performance.now() - started;
  const report = transport.report();
  if (report.misses.length > 0) throw new Error(`misses: ${report.misses[0].message}`);
  const seqCalls = half - warm;
  const pipeCalls = exchanges - half;
  const result = {
    exchanges,
    bytes,
    writeMs,
    loadMs,
    engineMs,
    indexMs: loadMs + engineMs,
    heapDelta: after.heap - before.heap,
    rssDelta: after.rss - before.rss,
    seqCalls,
    seqPerSec: (seqCalls * 1000) / seqMs,
    pipeCalls,
    inFlight,
    pipePerSec: (pipeCalls * 1000) / pipeMs,
    used: report.used,
    total: report.total,
  };
  await transport.close();
  // The floor, after replay in the same process (each run a fresh process, so neither gets the other's warm-up).
  const floor = floorTransport(exchanges);
  const warmFloor = Math.min(warm, 1000);
  await drive(floor, 0, warmFloor);
  const floorRates = await drive(floor, warmFloor, exchanges);
  result.floorSeqPerSec = floorRates.seqPerSec;
  result.floorPipePerSec = floorRates.pipePerSec;
  log(
    `floor (trivial in-memory server, same client): ${Math.round(floorRates.seqPerSec)} req/s sequential, ${Math.round(floorRates.pipePerSec)} req/s ${inFlight} in flight; ` +
      `replay / floor ${(result.seqPerSec / floorRates.seqPerSec).toFixed(2)}× and ${(result.pipePerSec / floorRates.pipePerSec).toFixed(2)}×`,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`replay in-process: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
