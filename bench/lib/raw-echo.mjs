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
export async function rawRound({ mode, round, config, tmp }) {
  const traceFile = join(tmp, `raw-${mode}-${round}.jsonl`);
  const { command, args } = commandFor(mode, [RAW_SERVER], traceFile);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const client = new LineClient(child);
    // After a first answer the server exists behind any relay or proxy, so it is tracked too.
    await client.call();
    track(child.pid);
    const hop = mode === 'direct' ? undefined : () => cpuMs(child.pid);
    const figures = await measure(() => client.call(), { ...config, calls: config.rawCalls }, hop);
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

/** JSON lines over a child's stdio: one pending promise per request id. */
class LineClient {
  constructor(child) {
    this.child = child;
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
    const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello from the bench"}}}\n`;
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
