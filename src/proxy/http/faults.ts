import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Scheduler } from '../../base/scheduler.js';
import type { FaultGate } from '../../faults/gate.js';
import { parseJson } from '../fault-gate.js';
import { FaultedOutput } from '../fault-output.js';

/**
 * Faults on `record --upstream`'s answers, between the upstream and the client. A Streamable HTTP answer is an
 * event stream (each event read whole, and only the events holding an awaited answer changed) or a JSON body
 * (read whole, then sent as the decision says — after its latency, replaced, cut, trickled, doubled, or not at
 * all). Requests are decided by the exchange as their bodies end (see exchange.ts); decisions are kept per
 * session, since an answer may come on a stream other than its POST's (the GET stream, a legacy SSE stream).
 */

const LF = 0x0a;
const CR = 0x0d;

/** Cuts an event stream into whole events (each with the blank line that ends it), bytes as they came. */
export class SseEvents {
  private pending: Buffer | undefined;

  constructor(private readonly onEvent: (event: Buffer) => void) {}

  push(chunk: Buffer): void {
    const bytes = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    let start = 0;
    for (let i = bytes.indexOf(LF); i >= 0 && i < bytes.length; i = bytes.indexOf(LF, i + 1)) {
      let next = i + 1;
      if (bytes[next] === CR) next++;
      if (next < bytes.length && bytes[next] === LF) {
        this.onEvent(bytes.subarray(start, next + 1));
        start = next + 1;
        i = next;
      }
    }
    this.pending = start < bytes.length ? Buffer.from(bytes.subarray(start)) : undefined;
  }

  /** What is left when the stream ends (an unfinished event), to pass on as it is. */
  rest(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    return rest;
  }
}

/** An event's data (its `data:` lines joined), and the event rebuilt around other data. */
function eventData(event: Buffer): { data: string; rebuild: (data: string) => Buffer } {
  const lines = event.toString('utf8').split(/\r?\n/);
  const data: string[] = [];
  const kept: string[] = [];
  for (const line of lines) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line !== '') kept.push(line);
  }
  return {
    data: data.join('\n'),
    rebuild: (text) => Buffer.from(`${[...kept, `data: ${text}`].join('\n')}\n\n`),
  };
}

/**
 * The event stream of one answer, passed on event by event; `write` is the exchange's own writer (backpressure,
 * the legacy endpoint hold). Resolve `end()` before ending the response: a held-back answer must go first.
 */
export class FaultedSse {
  private readonly output: FaultedOutput;
  private readonly events: SseEvents;

  constructor(
    private readonly gate: FaultGate,
    private readonly scope: () => string,
    write: (bytes: Buffer) => boolean,
    scheduler: Scheduler,
  ) {
    this.output = new FaultedOutput((bytes) => write(Buffer.from(bytes)), scheduler);
    this.events = new SseEvents((event) => this.event(event));
  }

  /** A chunk from the upstream; false when the client asks to pause. */
  push(chunk: Buffer): boolean {
    // Nothing awaited and nothing half read: the chunk passes whole.
    if (!this.gate.expecting(this.scope()) && !this.output.busy) {
      const rest = this.events.rest();
      if (rest !== undefined) this.output.pass(rest);
      return this.output.pass(chunk);
    }
    this.events.push(chunk);
    return true;
  }

  /** The upstream ended: resolves once every event went out. */
  end(): Promise<void> {
    const rest = this.events.rest();
    if (rest !== undefined) this.output.pass(rest);
    return this.output.idle();
  }

  private event(event: Buffer): void {
    const scope = this.scope();
    if (!this.gate.expecting(scope)) {
      this.output.pass(event);
      return;
    }
    const { data, rebuild } = eventData(event);
    const found = this.gate.take(scope, parseJson(data) ?? null);
    if (found === undefined) this.output.pass(event);
    else if (found.message === undefined)
      this.output.answer(found.decision, found.id, event, { text: data, rebuild });
    else {
      // A batch of answers, rebuilt with the faults of the answers inside it (see faults/gate.ts).
      const text = JSON.stringify(found.message);
      this.output.answer(found.decision, found.id, rebuild(text), { text, rebuild });
    }
  }
}

/**
 * Sends a JSON answer read whole from `upRes` as the decision waiting for it says; an answer no decision waits for
 * goes out unchanged. The head goes with the first byte (a dropped answer sends none: the client waits, as for a
 * server that never answers). `duplicate` sends the answer twice as an event stream when the client accepts one,
 * else as a batch of two. Resolves once the answer is out; true when the response may be ended.
 */
export async function sendFaultedJson(
  gate: FaultGate,
  scope: string,
  received: Buffer,
  status: number,
  headers: string[],
  res: ServerResponse,
  req: IncomingMessage,
): Promise<boolean> {
  const found = gate.take(scope, parseJson(received) ?? null);
  // A batch of answers comes rebuilt when a fault changed one of them inside it (see faults/gate.ts).
  const body = found?.message === undefined ? received : Buffer.from(JSON.stringify(found.message));
  let contentType: string | undefined;
  let bytes = body;
  let rebuild = (text: string) => Buffer.from(text);
  if (found?.decision.action?.kind === 'duplicate') {
    if ((req.headers.accept ?? '').includes('text/event-stream')) {
      contentType = 'text/event-stream';
      rebuild = (text) => Buffer.from(`event: message\ndata: ${text}\n\n`);
      bytes = rebuild(body.toString('utf8'));
    } else bytes = Buffer.from(`[${body.toString('utf8')},${body.toString('utf8')}]`);
  }
  let headed = false;
  const write = (piece: Uint8Array) => {
    if (!headed) {
      headed = true;
      res.writeHead(status, contentType === undefined ? headers : withContentType(headers, contentType));
    }
    return res.write(piece);
  };
  const output = new FaultedOutput(write, gate.scheduler);
  if (found === undefined) output.pass(body);
  else if (found.decision.action?.kind === 'duplicate' && contentType === undefined) {
    // Already a batch of both: one piece.
    output.answer({ ...found.decision, action: undefined }, found.id, bytes, { text: '', rebuild });
  } else output.answer(found.decision, found.id, bytes, { text: body.toString('utf8'), rebuild });
  await output.idle();
  return headed;
}

/** Raw header pairs with `content-type` set to `type`. */
function withContentType(headers: string[], type: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (headers[i]!.toLowerCase() !== 'content-type') out.push(headers[i]!, headers[i + 1]!);
  return [...out, 'Content-Type', type];
}
