import type { Scheduler } from '../base/scheduler.js';
import { deliverAnswer, trickleBytes } from '../faults/deliver.js';
import type { FaultDecision } from '../faults/plan.js';
import type { JsonObject, RpcId } from '../trace/jsonrpc.js';

/**
 * The output side of a recording proxy while faults are on: pieces of a stream (stdio lines, SSE events, a JSON
 * body) go out in order, byte for byte, except the answers a decision is about — those are replaced, dropped,
 * cut, doubled, held back or trickled. A trickled piece holds the ones after it back, as a slow connection would;
 * a piece held back by latency lets the others pass. `idle()` tells when everything given has gone out.
 */

/** How to write one answer's piece in another form: its message text, and the piece rebuilt around other text. */
export interface AnswerFrame {
  /** The answer's JSON text as it came (without framing). */
  text: string;
  /** The piece with `text` in place of the answer's (the SSE framing, the newline kept). */
  rebuild(text: string): Uint8Array;
}

interface Piece {
  bytes: Uint8Array;
  rate?: number | undefined;
}

export class FaultedOutput {
  private readonly queue: Piece[] = [];
  private trickling = false;
  /** Answers waiting out an injected latency. */
  private delayed = 0;
  private cut = false;
  private readonly idleWaiters: (() => void)[] = [];

  /** `write` returns false when the destination asks to pause (its owner handles that). */
  constructor(
    private readonly write: (bytes: Uint8Array) => boolean,
    private readonly scheduler: Scheduler,
  ) {}

  /** True while a piece trickles or waits behind one: new pieces must queue, not go straight out. */
  get busy(): boolean {
    return this.trickling || this.queue.length > 0;
  }

  /** A piece no fault is about: out as it is, in its turn. */
  pass(bytes: Uint8Array): boolean {
    if (this.cut) return true;
    if (!this.busy) return this.write(bytes);
    this.queue.push({ bytes });
    return true;
  }

  /** The piece holding the answer a decision waited for; `bytes` is the piece as it came. */
  answer(decision: FaultDecision, id: RpcId, bytes: Uint8Array, frame: AnswerFrame): void {
    const out = (piece: Piece) => this.enqueue(piece);
    const rebuilt = (message: JsonObject | string) =>
      frame.rebuild(typeof message === 'string' ? message : JSON.stringify(message));
    deliverAnswer(
      decision,
      id,
      {
        pass: () => out({ bytes }),
        replace: (message) => out({ bytes: rebuilt(message) }),
        sendText: (text) => out({ bytes: rebuilt(text) }),
        text: () => frame.text,
        trickle: (rate) => out({ bytes, rate }),
      },
      this.scheduler,
    );
    if (decision.delayMs > 0) {
      // Fires after the timer that sends the answer: until then the stream must not end.
      this.delayed++;
      this.scheduler.setTimeout(() => {
        this.delayed--;
        this.settle();
      }, decision.delayMs);
    }
  }

  /** Nothing more goes out (an injected disconnect). */
  stop(): void {
    this.cut = true;
    this.queue.length = 0;
    this.settle();
  }

  /** Resolves once every piece given has gone out (or the output was stopped). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.cut || (!this.busy && this.delayed === 0);
  }

  private enqueue(piece: Piece): void {
    if (this.cut) return;
    this.queue.push(piece);
    this.flush();
  }

  private flush(): void {
    while (this.queue.length > 0 && !this.trickling && !this.cut) {
      const next = this.queue.shift()!;
      if (next.rate === undefined) {
        this.write(next.bytes);
        continue;
      }
      this.trickling = true;
      const write = (piece: Uint8Array) => {
        if (!this.cut) this.write(piece);
      };
      void trickleBytes(next.bytes, next.rate, write, this.scheduler).then(() => {
        this.trickling = false;
        this.flush();
      });
      return;
    }
    this.settle();
  }

  private settle(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
