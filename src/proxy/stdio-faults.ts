import type { Readable, Writable } from 'node:stream';
import { realScheduler, type Scheduler } from '../base/scheduler.js';
import type { FaultGate } from '../faults/gate.js';
import type { FaultOptions } from '../faults/options.js';
import type { FaultRecord } from '../faults/records.js';
import { openFaultGate, parseJson } from './fault-gate.js';
import { FaultedOutput } from './fault-output.js';
import { type Draining, pauseUntilDrained } from './pump.js';

/**
 * Faults between a live stdio server and its client, for `record`. Requests are read from copies of the client's
 * bytes (which still reach the server untouched); the server's output is cut into lines, and only the answers a
 * decision waits for are changed — every other line goes out byte for byte, in order. The trace keeps what the
 * server really sent (its copies are taken before any of this); each fault is an event beside it. Used only when
 * faults are asked for: without them the proxy forwards raw chunks as ever.
 */

const NEWLINE = 0x0a;

/** Cuts a byte stream into whole lines (each with its `\n`); a last line without one comes out at `end()`. */
class Lines {
  private parts: Buffer[] = [];

  constructor(private readonly onLine: (line: Buffer) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    while (nl >= 0) {
      const piece = chunk.subarray(start, nl + 1);
      if (this.parts.length === 0) this.onLine(piece);
      else {
        this.parts.push(piece);
        this.onLine(Buffer.concat(this.parts));
        this.parts = [];
      }
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }

  end(): void {
    if (this.parts.length > 0) this.onLine(Buffer.concat(this.parts));
    this.parts = [];
  }

  /** No line is half read. */
  get idle(): boolean {
    return this.parts.length === 0;
  }
}

export interface StdioFaultHooks {
  /** Hears every fault, timed ones included (the proxy records it after the request's own trace line). */
  record: (record: FaultRecord) => void;
  /** Ends the session for a disconnect: the client's output closes, the server is stopped. */
  cut: () => void;
}

/**
 * @example
 * const faults = StdioFaults.open(options, { record: (r) => trace(r), cut: () => child.kill() });
 * new Pump(input, child.stdin, (chunk) => { later.push(toServer, chunk); faults?.requests(chunk); });
 */
export class StdioFaults {
  private readonly requestLines: Lines;
  private cut = false;
  private readonly outputs: FaultedOutput[] = [];

  private constructor(
    private readonly gate: FaultGate & { disarm(): void },
    private readonly hooks: StdioFaultHooks,
  ) {
    this.requestLines = new Lines((line) => this.request(line));
  }

  /** The faults of one recording, or undefined when none is asked for. */
  static open(
    options: FaultOptions,
    hooks: StdioFaultHooks,
    scheduler: Scheduler = realScheduler,
  ): StdioFaults | undefined {
    let faults: StdioFaults | undefined;
    const gate = openFaultGate(
      options,
      (record) => {
        hooks.record(record);
        faults?.disconnect();
      },
      scheduler,
    );
    if (gate === undefined) return undefined;
    faults = new StdioFaults(gate, hooks);
    return faults;
  }

  /** A copy of bytes the client sent (already forwarded to the server). */
  requests(chunk: Buffer): void {
    if (!this.cut) this.requestLines.push(chunk);
  }

  /** The server has exited: timed faults that did not fire never will. */
  disarm(): void {
    this.gate.disarm();
  }

  /** Pumps the server's output to the client, carrying decisions out on the answers they wait for. */
  answers(source: Readable, destination: Writable, observe: (chunk: Buffer) => void): Draining {
    const pump = new AnswerPump(source, destination, observe, this.gate);
    this.outputs.push(pump.output);
    return pump;
  }

  private disconnect(): void {
    if (this.cut) return;
    this.cut = true;
    for (const output of this.outputs) output.stop();
    this.hooks.cut();
  }

  private request(line: Buffer): void {
    const raw = parseJson(line);
    if (raw === undefined) return;
    const { records, disconnect } = this.gate.arrive('', raw);
    for (const record of records) this.hooks.record(record);
    if (disconnect) this.disconnect();
  }
}

/** The server → client pump when faults are on: line by line, in order, with backpressure. */
class AnswerPump implements Draining {
  readonly done: Promise<void>;
  readonly output: FaultedOutput;
  private blocked = false;
  private readonly lines: Lines;

  constructor(
    private readonly source: Readable,
    private readonly destination: Writable,
    observe: (chunk: Buffer) => void,
    private readonly gate: FaultGate,
  ) {
    this.output = new FaultedOutput((bytes) => this.write(bytes), gate.scheduler);
    this.lines = new Lines((line) => this.line(line));
    let settle!: () => void;
    const ended = new Promise<void>((resolve) => {
      settle = resolve;
    });
    source.on('data', (chunk: Buffer) => {
      observe(chunk);
      // No answer awaited and no line half read: the chunk goes on whole, as without faults.
      if (!this.gate.expecting('') && this.lines.idle) this.output.pass(chunk);
      else this.lines.push(chunk);
    });
    const finish = () => {
      this.lines.end();
      settle();
    };
    source.once('end', finish);
    source.once('close', finish);
    source.once('error', finish);
    this.done = ended.then(() => this.output.idle());
  }

  get isBlocked(): boolean {
    return this.blocked || this.output.busy;
  }

  private line(line: Buffer): void {
    const found = this.gate.expecting('') ? this.gate.take('', parseJson(line) ?? null) : undefined;
    if (found === undefined) {
      this.output.pass(line);
      return;
    }
    const newline = line.at(-1) === NEWLINE ? '\n' : '';
    // A line of its own, whatever replaces the answer (the cut-off text of `malformed` too).
    const rebuild = (text: string) => Buffer.from(`${text}${newline || '\n'}`);
    // A batch of answers comes rebuilt when a fault changed one of them inside it (see faults/gate.ts).
    const text = found.message ? JSON.stringify(found.message) : line.toString('utf8').replace(/\r?\n$/, '');
    this.output.answer(found.decision, found.id, found.message ? rebuild(text) : line, { text, rebuild });
  }

  private write(bytes: Uint8Array): boolean {
    const ok = this.destination.writable ? this.destination.write(bytes) : true;
    if (!ok && !this.blocked) {
      this.blocked = true;
      pauseUntilDrained(this.source, this.destination, () => {
        this.blocked = false;
        return true;
      });
    }
    return ok;
  }
}
