import { realScheduler, type Scheduler } from '../../base/scheduler.js';
import type {
  TransportCallback as Callback,
  McpTransport,
  TransportMessage,
  TransportSendOptions,
} from '../../capture/sdk-transport.js';
import { deliverAnswer } from '../../faults/deliver.js';
import { FaultGate } from '../../faults/gate.js';
import type { FaultOptions } from '../../faults/options.js';
import { faultPlan } from '../../faults/options.js';
import type { FaultPlan } from '../../faults/plan.js';
import type { FaultRecord } from '../../faults/records.js';
import type { Json } from '../../trace/types.js';

/**
 * Faults around a live server's Transport, for `useCassette` when it records or passes through: the client sees
 * the same faults it would see replaying, as an SDK client of a stdio server would — an error or tool error in
 * place of the answer, no answer, the answer twice, late or slow, a parse error (`onerror`) for a malformed one,
 * the transport closing (the server stopped) for a disconnect. What the server really answered still reaches the
 * recording inside; `onFault` hears what was injected.
 */
export class FaultTransport implements McpTransport {
  onclose?: Callback<[]> | undefined;
  onerror?: Callback<[error: Error]> | undefined;
  onmessage?: Callback<[message: TransportMessage, extra?: unknown]> | undefined;
  private readonly gate: FaultGate;

  constructor(
    readonly inner: McpTransport,
    private readonly plan: FaultPlan,
    private readonly onFault: (record: FaultRecord) => void,
    private readonly scheduler: Scheduler = realScheduler,
  ) {
    this.gate = new FaultGate(plan, { scheduler });
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.fromServer(message, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    this.plan.start();
    await this.inner.start();
  }

  async send(message: TransportMessage, options?: TransportSendOptions): Promise<void> {
    const { records, disconnect } = this.gate.arrive('', message as unknown as Json);
    if (disconnect) {
      this.report(records);
      await this.inner.close();
      return;
    }
    const sent = this.forward(message, options);
    // After the request's own trace line, when the inner transport records.
    this.report(records);
    return sent;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  private forward(message: TransportMessage, options: TransportSendOptions | undefined): Promise<void> {
    return options === undefined ? this.inner.send(message) : this.inner.send(message, options);
  }

  private report(records: readonly FaultRecord[]) {
    for (const record of records) this.onFault(record);
  }

  private fromServer(message: TransportMessage, extra: unknown): void {
    const taken = this.gate.take('', message as unknown as Json);
    if (taken === undefined) {
      this.onmessage?.(message, extra);
      return;
    }
    const answer = (taken.message ?? message) as TransportMessage;
    const text = JSON.stringify(answer);
    const deliver = (other: unknown) => this.onmessage?.(other as TransportMessage, extra);
    deliverAnswer(
      taken.decision,
      taken.id,
      {
        pass: () => deliver(answer),
        replace: deliver,
        sendText: (malformed) => this.onerror?.(parseError(malformed)),
        text: () => text,
        trickle: (rate) =>
          this.scheduler.setTimeout(
            () => deliver(answer),
            (new TextEncoder().encode(text).length * 1000) / rate,
          ),
      },
      this.scheduler,
    );
  }
}

/**
 * The error a client's JSON parser throws on `text`, as its stdio transport reports it.
 *
 * @example parseError('{"jsonrpc":') // → SyntaxError: Unexpected end of JSON input
 */
export function parseError(text: string): Error {
  try {
    JSON.parse(text);
  } catch (error) {
    if (error instanceof Error) return error;
  }
  return new SyntaxError(`not a JSON-RPC message: ${text.slice(0, 80)}`);
}

/**
 * `inner` with `options`' faults around it, or `inner` itself when no fault is given.
 *
 * @example const transport = withTransportFaults(stdio, { faults: ['drop@tools/call#2'] }, (r) => log(r));
 */
export function withTransportFaults(
  inner: McpTransport,
  options: FaultOptions,
  onFault: (record: FaultRecord) => void,
): McpTransport {
  const plan = faultPlan(options);
  return plan === undefined ? inner : new FaultTransport(inner, plan, onFault);
}
