import type { Scheduler } from '../base/scheduler.js';
import type { JsonObject, RpcId } from '../trace/jsonrpc.js';
import type { FaultDecision } from './plan.js';

/**
 * Carrying a decision out on one answer, the same way at every front door: each door says how it sends an answer
 * as it is, another message in its place, text that is not JSON, or the answer slowly (an {@link AnswerOutlet});
 * this file decides which of those happen, and when.
 */

/** What a front door can do with the one answer a fault is about. */
export interface AnswerOutlet {
  /** The answer as it is. */
  pass(): void;
  /** Another message in its place. */
  replace(message: JsonObject): void;
  /** Text that is not JSON in its place (made from the answer's own text, see {@link malformedText}). */
  sendText(text: string): void;
  /** The answer's wire text (JSON, no newline), for malformed text made from it. */
  text(): string;
  /** The answer, its bytes trickling out at `bytesPerSecond`. */
  trickle(bytesPerSecond: number): void;
}

/**
 * Sends the answer to request `id` as `decision` says: after its latency, then replaced, dropped, cut, doubled or
 * trickled. (`disconnect` happens when the request arrives, never here.)
 *
 * @example deliverAnswer(decision, request.id, { pass: () => out.send(answer), … }, realScheduler)
 */
export function deliverAnswer(
  decision: FaultDecision,
  id: RpcId | null,
  outlet: AnswerOutlet,
  scheduler: Scheduler,
): void {
  const act = () => {
    const action = decision.action;
    const source = decision.applied.find((applied) => applied.rule.action === action)?.rule.source;
    switch (action?.kind) {
      case undefined:
      case 'disconnect':
        return outlet.pass();
      case 'error':
        return outlet.replace(injectedError(id, action.code, source ?? 'error'));
      case 'tool-error':
        return outlet.replace(injectedToolError(id, source ?? 'tool-error'));
      case 'drop':
        return;
      case 'malformed':
        return outlet.sendText(malformedText(outlet.text()));
      case 'duplicate':
        outlet.pass();
        return outlet.pass();
      case 'slow-stream':
        return outlet.trickle(action.bytesPerSecond);
    }
  };
  if (decision.delayMs > 0) scheduler.setTimeout(act, decision.delayMs);
  else act();
}

/**
 * The JSON-RPC error an `error=CODE` fault answers with; its message says it was injected.
 *
 * @example injectedError(3, -32603, 'error@tools/call') // → { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Injected fault: error -32603 (tapedeck --fault error@tools/call)' } }
 */
export function injectedError(id: RpcId | null, code: number, source: string): JsonObject {
  const message = `Injected fault: error ${code} (tapedeck --fault ${source})`;
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * The `tools/call` result a `tool-error` fault answers with: `isError: true` and a text saying it was injected.
 *
 * @example injectedToolError(4, 'tool-error').result // → { content: [{ type: 'text', text: 'Injected fault: …' }], isError: true }
 */
export function injectedToolError(id: RpcId | null, source: string): JsonObject {
  const text = `Injected fault: the tool failed (tapedeck --fault ${source})`;
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } };
}

/**
 * A cut-off answer: its first half, which no JSON parser accepts (an object or array that never closes) — what a
 * client sees when a server dies mid-write. Never holds a line break.
 *
 * @example malformedText('{"jsonrpc":"2.0","id":1,"result":{}}') // → '{"jsonrpc":"2.0",'
 */
export function malformedText(answer: string): string {
  const flat = answer.replace(/[\r\n]/g, ' ');
  const cut = flat.slice(0, Math.max(1, Math.floor(flat.length / 2)));
  // A one-character answer (or one that still parses) becomes a bare opening brace: never valid JSON.
  try {
    JSON.parse(cut);
    return '{';
  } catch {
    return cut;
  }
}

/** How often a trickled answer writes its next piece. */
export const TRICKLE_TICK_MS = 50;

/**
 * Writes `bytes` a piece every {@link TRICKLE_TICK_MS} so they take `bytes / bytesPerSecond` seconds in all;
 * resolves after the last piece. `write` gets views into `bytes`.
 *
 * @example await trickleBytes(Buffer.from(line), 200, (piece) => out.write(piece), realScheduler)
 */
export async function trickleBytes(
  bytes: Uint8Array,
  bytesPerSecond: number,
  write: (piece: Uint8Array) => void,
  scheduler: Scheduler,
): Promise<void> {
  const piece = Math.max(1, Math.round((bytesPerSecond * TRICKLE_TICK_MS) / 1000));
  const tickMs = Math.max(1, Math.round((piece * 1000) / bytesPerSecond));
  for (let at = 0; at < bytes.length; at += piece) {
    if (at > 0) await new Promise<void>((resolve) => scheduler.setTimeout(resolve, tickMs));
    write(bytes.subarray(at, Math.min(bytes.length, at + piece)));
  }
}
