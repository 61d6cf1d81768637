import type { Exchange, Json } from 'mcp-tapedeck/trace';

/**
 * How far a call got, from the `notifications/progress` that belong to it: the last `progress` (and `total`, when
 * the server gave one) and `message`. A server may send progress without a total (the fraction is then unknown)
 * or send numbers that go backwards; what it said last is what is shown, clamped to 0..1.
 */
export interface ProgressState {
  /** The last `progress` value reported. */
  progress: number;
  /** The last `total` reported, when there was one. */
  total: number | undefined;
  /** progress / total, clamped to 0..1; undefined without a total. */
  fraction: number | undefined;
  /** The last `message` reported, when there was one. */
  message: string | undefined;
  /** How many progress notifications the call got. */
  count: number;
  /** When each one arrived (epoch ms, where the trace has times), in order. */
  times: number[];
}

const asNumber = (value: Json | undefined) =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * The progress a request was sent, or undefined when it got none.
 *
 * @example progressOf(exchange) // → { progress: 3, total: 5, fraction: 0.6, message: 'step 3', count: 3, times: [...] }
 */
export function progressOf(exchange: Exchange): ProgressState | undefined {
  // A request of a paged trace carries what the server's index knew instead of its notifications.
  const attached = exchange.attached as { paged?: unknown; progress?: ProgressState } | undefined;
  if (attached?.paged === true) return attached.progress;
  let state: ProgressState | undefined;
  for (const child of exchange.children) {
    if (child.kind !== 'notification' || child.notification.method !== 'notifications/progress') continue;
    const params = child.notification.params ?? {};
    const progress = asNumber(params.progress);
    if (progress === undefined) continue;
    const total = asNumber(params.total);
    state ??= { progress, total, fraction: undefined, message: undefined, count: 0, times: [] };
    state.progress = progress;
    state.total = total;
    state.message = typeof params.message === 'string' ? params.message : state.message;
    state.count += 1;
    if (child.ref.time !== undefined) state.times.push(child.ref.time);
  }
  if (state) state.fraction = fractionOf(state.progress, state.total);
  return state;
}

/**
 * progress / total clamped to 0..1, undefined when there is no usable total.
 *
 * @example fractionOf(3, 4) // → 0.75
 */
export function fractionOf(progress: number, total: number | undefined): number | undefined {
  if (total === undefined || total <= 0) return undefined;
  return Math.max(0, Math.min(1, progress / total));
}

/**
 * The words beside a progress bar: `3 / 5 · 60 % · Step 3`, or `3 so far` without a total.
 *
 * @example progressText({ progress: 3, total: 5, fraction: 0.6, message: 'Step 3', count: 3, times: [] }) // → '3 / 5 · 60 % · Step 3'
 */
export function progressText(state: ProgressState): string {
  const amount =
    state.fraction === undefined
      ? `${state.progress} so far`
      : `${state.progress} / ${state.total} · ${Math.round(state.fraction * 100)} %`;
  return state.message ? `${amount} · ${state.message}` : amount;
}
