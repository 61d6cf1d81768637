/**
 * A recorded session must survive its process's end. A stdio server is one process per client session, and most
 * end without anyone calling `shutdown()`: the client closes stdin and the event loop runs dry, or the client sends
 * SIGTERM (the v2 SDK's probe gets SIGTERM right after its one request). So every recorder is finished — queued
 * events written, each session's file given its end line — when the process is about to end:
 *
 * - `beforeExit` (the loop ran dry): finished asynchronously, which keeps the process alive until it is done;
 * - SIGINT / SIGTERM / SIGHUP: when the host has no handler of its own for the signal, the signal is taken, the
 *   recorders finished (within `finishMs`), and the same signal raised again, so the process still dies of it (its
 *   parent sees 128+n, as without tapedeck). When the host has handlers, they run as they always did and decide
 *   how and when the process exits; the recorders are finished alongside;
 * - `exit` (process.exit() from anywhere, a host's signal handler included): what is still queued is written
 *   synchronously where the destination allows it (trace files), since nothing asynchronous runs any more.
 *
 * Recorders are held weakly: one that is no longer referenced is not kept alive for this.
 */

/** What the process hooks need of a recorder. */
export interface Finishable {
  /** Anything queued, or a session whose end line is not written yet. */
  hasWork(): boolean;
  /** Writes what is queued and ends every session (the recorder keeps working afterwards). */
  shutdown(): Promise<void>;
  /** The same, synchronously, as far as the destinations allow (for the `exit` event). */
  finishNow(): void;
}

export const LIFECYCLE_DEFAULTS = {
  /** How long a signal waits for the recorders before the process dies of it anyway. */
  finishMs: 3000,
  signals: ['SIGINT', 'SIGTERM', 'SIGHUP'] as readonly NodeJS.Signals[],
} as const;

const recorders = new Set<WeakRef<Finishable>>();
let installed = false;
let finishing: Promise<void> | undefined;

/**
 * Finishes `recorder` when the process ends (see the module comment). Returns the function that stops that.
 *
 * @example const untrack = finishOnExit(recorder); … untrack();
 */
export function finishOnExit(recorder: Finishable): () => void {
  const ref = new WeakRef(recorder);
  recorders.add(ref);
  install();
  return () => {
    recorders.delete(ref);
  };
}

function live(): Finishable[] {
  const out: Finishable[] = [];
  for (const ref of recorders) {
    const recorder = ref.deref();
    if (recorder === undefined) recorders.delete(ref);
    else out.push(recorder);
  }
  return out;
}

/** Finishes every recorder with work; one finishing at a time (a signal during beforeExit's joins it). */
function finishAll(): Promise<void> {
  if (finishing) return finishing;
  const busy = live().filter((recorder) => recorder.hasWork());
  if (busy.length === 0) return Promise.resolve();
  finishing = Promise.allSettled(busy.map((recorder) => recorder.shutdown())).then(() => {
    finishing = undefined;
  });
  return finishing;
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('beforeExit', () => {
    // Work scheduled here keeps the loop alive; when it is done, beforeExit comes again and finds nothing to do.
    void finishAll();
  });
  process.on('exit', () => {
    for (const recorder of live()) {
      try {
        recorder.finishNow();
      } catch {
        // The process is ending: a failure here must not replace its exit code with a crash.
      }
    }
  });
  for (const signal of LIFECYCLE_DEFAULTS.signals) {
    const onSignal = (received: NodeJS.Signals) => {
      const hostHandles = process.listeners(received).some((listener) => listener !== onSignal);
      if (hostHandles) {
        // The host decides when the process ends; what it has not finished by then, `exit` writes.
        void finishAll();
        return;
      }
      let died = false;
      const die = () => {
        if (died) return;
        died = true;
        clearTimeout(timer);
        process.removeListener(received, die);
        // Nothing listens any more: the signal's default action ends the process, as it would have.
        process.kill(process.pid, received);
      };
      process.removeListener(received, onSignal);
      // A second signal while finishing: the process dies of it now.
      process.once(received, die);
      const timer = setTimeout(die, LIFECYCLE_DEFAULTS.finishMs);
      void finishAll().then(die);
    };
    process.on(signal, onSignal);
  }
}
