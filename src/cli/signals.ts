import { onProcessSignals } from '../base/process-signals.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Keeps SIGINT / SIGTERM / SIGHUP from killing the process with the default action while a command finishes:
 * `onSignal` runs instead (by default nothing). Clients commonly close stdin and signal right after, and a signal
 * that lands while the trace's `end` line, a cassette or a report is being written must not cut that short.
 * `release()` removes the handlers on the next turn of the event loop — after the CLI's `process.exit`, which
 * ends the process first; run in-process, nothing is left behind.
 *
 * @example const held = holdSignals(); try { await work(); } finally { held.release(); }
 */
export function holdSignals(onSignal: () => void = () => {}): { release(): void } {
  const stop = onProcessSignals(SIGNALS, () => onSignal());
  return {
    release: () => {
      setImmediate(stop).unref();
    },
  };
}
