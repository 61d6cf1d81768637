import { constants } from 'node:os';

/**
 * How a shell reports a process's end as one integer: its own exit code, or 128 + the signal's number when a signal
 * killed it (SIGTERM → 143, SIGKILL → 137). A trace's `end` line carries this beside `signal`, because readers of
 * the mcp-tape format expect `exitCode` to be an integer.
 *
 * @example shellExitCode(null, 'SIGTERM') // → 143
 */
export function shellExitCode(code: number | null, signal: NodeJS.Signals | string | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : constants.signals[signal as NodeJS.Signals];
  return 128 + (number ?? 0);
}
