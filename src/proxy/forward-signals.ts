import type { ChildProcess } from 'node:child_process';
import { onProcessSignals } from '../base/process-signals.js';

/** The signals a stdio recording passes on to its server. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long a signal passed on may go unheeded before SIGKILL. */
export const SIGNAL_GRACE_MS = 5000;

export interface ForwardedSignals {
  /** Stops passing signals on; a SIGKILL already due for one passed on stays due (someone else takes over). */
  release(): void;
  /** Stops passing signals on and drops a SIGKILL still due (the child has exited). */
  stop(): void;
}

/**
 * Passes `signals` this process gets on to `child`, and SIGKILLs it if it is still alive `killAfterMs` after the
 * first. On Windows the server's kill() ends its whole process tree (spawnServer), so any of them stops it.
 *
 * @example const forwarded = forwardSignals(child, FORWARDED_SIGNALS, SIGNAL_GRACE_MS); await exited; forwarded.stop();
 */
export function forwardSignals(
  child: ChildProcess | undefined,
  signals: readonly NodeJS.Signals[],
  killAfterMs: number,
): ForwardedSignals {
  let killTimer: NodeJS.Timeout | undefined;
  const release = onProcessSignals(signals, (signal) => {
    child?.kill(signal);
    killTimer ??= setTimeout(() => child?.kill('SIGKILL'), killAfterMs);
    killTimer.unref();
  });
  return {
    release,
    stop: () => {
      release();
      if (killTimer) clearTimeout(killTimer);
    },
  };
}
