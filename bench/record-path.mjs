// The record path alone, driven the way the stdio proxy drives it, for instruction counts (valgrind's callgrind
// counts the same on a busy machine as on a quiet one, which wall-clock time does not):
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out node --single-threaded bench/record-path.mjs echo 2000
//
// Modes: `echo N` — N SDK echo calls (request and answer, one read each, each read in its own event-loop turn,
// as a pipe delivers them); `big N` — N answers of 1 MB of text; `none` — everything set up, nothing pushed (the
// start-up cost to subtract). `DIST=path` takes the modules from another build (a baseline) instead of dist/.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.env.DIST ?? new URL('../dist', import.meta.url).pathname);
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { CAPTURE_QUEUE_DEFAULTS, CaptureQueue } = await load('capture/capture-queue.js');
const { PipeCapture } = await load('capture/pipe-capture.js');
const { FileSink } = await load('sink/file.js');
const { createRedactor } = await load('redact/engine.js');

const [mode = 'echo', countText = '1000'] = process.argv.slice(2);
const count = mode === 'none' ? 0 : Number(countText);

function echoPair(id) {
  const message = `hello from call ${id}`;
  const request = {
    method: 'tools/call',
    params: { name: 'echo', arguments: { message }, _meta: { progressToken: id } },
    jsonrpc: '2.0',
    id,
  };
  const answer = { result: { content: [{ type: 'text', text: `Echo: ${message}` }] }, jsonrpc: '2.0', id };
  return [Buffer.from(`${JSON.stringify(request)}\n`), Buffer.from(`${JSON.stringify(answer)}\n`)];
}

/** 1 MB of text that reads like a document (words, lines, punctuation), the same every run. */
function bigText() {
  const words = [
    'the',
    'server',
    'returned',
    'a',
    'list',
    'of',
    'files:',
    'index.ts,',
    'notes',
    'and',
    'more.',
  ];
  let text = '';
  let seed = 1;
  while (text.length < 1 << 20) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    text += words[seed % words.length] + (seed % 13 === 0 ? '\n' : ' ');
  }
  return text;
}

/** The answer's bytes around its id, built once: each answer costs a copy, not the making of 1 MB of text. */
const [bigHead, bigTail] = (() => {
  const answer = JSON.stringify({
    result: { content: [{ type: 'text', text: bigText() }] },
    jsonrpc: '2.0',
    id: 0,
  });
  // The answer ends `"id":0}`: the head stops before the 0.
  return [Buffer.from(answer.slice(0, -2)), Buffer.from('}\n')];
})();
const bigAnswer = (id) => Buffer.concat([bigHead, Buffer.from(String(id)), bigTail]);

const folder = mkdtempSync(join(tmpdir(), 'record-path-'));
const path = join(folder, 'trace.jsonl');
const sink = new FileSink({ path, redact: createRedactor({ defaults: true, rules: [], mode: 'marker' }) });
sink.start({
  v: 1,
  type: 'meta',
  startedAt: '2026-01-01T00:00:00.000Z',
  label: 'bench',
  kind: 'mcp',
  producer: { name: 'tapedeck', version: 'bench' },
  traceId: 'bench',
  segment: 0,
  transport: 'stdio',
});
const emit = sink.append.bind(sink);
const toServer = new PipeCapture({ dir: 'in', maxMessageBytes: 16 * 1024 * 1024, emit });
const toClient = new PipeCapture({ dir: 'out', maxMessageBytes: 16 * 1024 * 1024, emit });
// As the stdio proxy makes it (an older build without inline capture ignores the third argument).
const later = new CaptureQueue(CAPTURE_QUEUE_DEFAULTS?.maxBytes, Date.now, CAPTURE_QUEUE_DEFAULTS);
const turn = () => new Promise((done) => setImmediate(done));

for (let id = 1; id <= count; id += 1) {
  if (mode === 'big') {
    later.push(toClient, bigAnswer(id));
    await turn();
    continue;
  }
  const [request, answer] = echoPair(id);
  later.push(toServer, request);
  await turn();
  later.push(toClient, answer);
  await turn();
}
later.flush();
toServer.end();
toClient.end();
await sink.close({ reason: 'producer_shutdown' });
const lines = readFileSync(path, 'utf8').split('\n').length - 1;
if (process.env.KEEP) process.stderr.write(`${path}\n`);
else rmSync(folder, { recursive: true, force: true });
const expected = 2 + (mode === 'big' ? count : 2 * count);
if (lines !== expected) {
  process.stderr.write(`record-path: ${lines} lines, expected ${expected}\n`);
  process.exit(1);
}
process.stdout.write(`${mode} ${count}: ${lines} lines\n`);
