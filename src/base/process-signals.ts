/**
 * One process listener per signal, shared by everything in the process that wants to hear it. A test suite or an
 * agent runtime may run many recordings at once; giving each its own `process.on('SIGINT', …)` soon trips Node's
 * "possible EventEmitter memory leak" warning at eleven. Here the eleventh costs a Set entry. While any handler is
 * registered for a signal, the signal's default action (ending the process) is held back, as with a plain
 * `process.on`.
 */

type Handler = (signal: NodeJS.Signals) => void;

const handlers = new Map<NodeJS.Signals, Set<Handler>>();
const listeners = new Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>();

/**
 * Calls `handler` on each of `signals` until the returned function is called.
 *
 * @example
 * const stop = onProcessSignals(['SIGINT', 'SIGTERM'], (signal) => child.kill(signal));
 * … stop();
 */
export function onProcessSignals(signals: readonly NodeJS.Signals[], handler: Handler): () => void {
  // Each registration is its own entry, so registering one handler twice needs two calls to undo.
  const entry: Handler = (signal) => handler(signal);
  for (const signal of signals) {
    let set = handlers.get(signal);
    if (set === undefined) {
      set = new Set();
      handlers.set(signal, set);
      const listener = (received: NodeJS.Signals) => {
        // A copy: a handler may unregister itself (or others) while the signal is being delivered.
        for (const each of [...(handlers.get(received) ?? [])]) each(received);
      };
      listeners.set(signal, listener);
      process.on(signal, listener);
    }
    set.add(entry);
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    for (const signal of signals) {
      const set = handlers.get(signal);
      if (set === undefined) continue;
      set.delete(entry);
      if (set.size > 0) continue;
      handlers.delete(signal);
      const listener = listeners.get(signal);
      listeners.delete(signal);
      if (listener) process.off(signal, listener);
    }
  };
}

/** How many handlers are registered for `signal` (for tests and diagnostics). */
export function processSignalHandlers(signal: NodeJS.Signals): number {
  return handlers.get(signal)?.size ?? 0;
}
