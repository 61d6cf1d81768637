import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { measure } from './drive.mjs';
import { commandFor, RAW_SERVER } from './modes.mjs';
import { cpuMs, reap, track } from './processes.mjs';
import { checkTrace } from './trace-check.mjs';

/**
 * The floor: a hand-written client that writes one JSON-RPC request line and waits for its answer line, against
 * bench/raw-echo-server.mjs — no SDK on either side, so what is left is pipes, process wake-ups and whatever sits
 * in between.
 */
export async function rawRound({ mode, round, config, tmp }, big = false) {
  const traceFile = join(tmp, `raw${big ? '-big' : ''}-${mode}-${round}.jsonl`);
  // The 1 MB part's trace holds every message in one file (no rotation), so that all of them can be counted.
  const { command, args } = commandFor(mode, [RAW_SERVER], traceFile, big ? ['--max-bytes', '1gb'] : []);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const client = new LineClient(child, big ? BIG_MESSAGE : 'hello from the bench');
    // After a first answer the server exists behind any relay or proxy, so it is tracked too.
    await client.call();
    track(child.pid);
    const hop = mode === 'direct' ? undefined : () => cpuMs(child.pid);
    const load = big
      ? { calls: config.bigCalls, warmup: BIG_WARMUP, concurrency: BIG_IN_FLIGHT }
      : { ...config, calls: config.rawCalls };
    const figures = await measure(() => client.call(), load, hop);
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.stdin.end();
    await closed;
    await reap();
    return { mode, round, ...figures, ...(mode === 'proxy' ? checkTrace(traceFile) : {}) };
  } finally {
    child.stdin.destroy();
    const left = await reap();
    if (left > 0) process.stderr.write(`bench: killed ${left} leftover process(es) after raw ${mode}\n`);
  }
}

/** Calls before each measured phase of the 1 MB part, and calls in flight in its second phase. */
const BIG_WARMUP = 3;
const BIG_IN_FLIGHT = 2;

/** 1 MB of text that reads like a document: words, punctuation, line breaks (escaped in the JSON line). */
const BIG_MESSAGE = (() => {
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
})();

/**
 * The 1 MB case: the same client and server, each request carrying 1 MB of text that the server echoes back, so
 * every message either way is about 1 MB; the hop's CPU per call is per message.
 */
export function bigRound(options) {
  return rawRound(options, true);
}

/** JSON lines over a child's stdio: one pending promise per request id. */
class LineClient {
  constructor(child, message) {
    this.child = child;
    this.message = JSON.stringify(message);
    this.nextId = 1;
    this.pending = new Map();
    this.buffer = '';
    child.stdin.on('error', () => {});
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => this.onData(chunk));
    child.once('close', () => this.failAll(new Error('echo server closed')));
  }

  failAll(error) {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  call() {
    const id = this.nextId++;
    const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"message":${this.message}}}}\n`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(line);
    });
  }

  onData(chunk) {
    this.buffer += chunk;
    let start = 0;
    let nl = this.buffer.indexOf('\n', start);
    while (nl !== -1) {
      const message = JSON.parse(this.buffer.slice(start, nl));
      start = nl + 1;
      nl = this.buffer.indexOf('\n', start);
      const waiter = this.pending.get(message.id);
      if (waiter === undefined) {
        this.failAll(new Error(`answer to an id never sent: ${message.id}`));
        continue;
      }
      this.pending.delete(message.id);
      waiter.resolve(message);
    }
    this.buffer = this.buffer.slice(start);
  }
}
