import { envValue } from './resolve.js';

/**
 * Stopping a server and reporting how it ended, decided from data alone. POSIX systems have signals: the server
 * gets the one asked for. Windows has none to give a console program (no SIGTERM, no SIGHUP, no process groups),
 * and the commands MCP configs use most are chains (`npx.cmd` → cmd.exe → node.exe): ending only the process
 * tapedeck started would leave the server itself running, holding its pipes. So on Windows every stop ends the
 * whole tree at once, with `taskkill /T /F`.
 */

export type StopPlan =
  /** Send this signal to the process (POSIX). */
  | { kind: 'signal'; signal: NodeJS.Signals }
  /** Run this program to end the process and everything it started (Windows). */
  | { kind: 'tree'; file: string; args: string[] }
  /** Nothing to stop: the process never started. */
  | { kind: 'none' };

/**
 * How to stop process `pid` when asked with `signal`.
 *
 * @example planStop('linux', 4242, 'SIGTERM', {}) // → { kind: 'signal', signal: 'SIGTERM' }
 * @example planStop('win32', 4242, 'SIGTERM', { SystemRoot: 'C:\\Windows' })
 * // → { kind: 'tree', file: 'C:\\Windows\\System32\\taskkill.exe', args: ['/PID', '4242', '/T', '/F'] }
 */
export function planStop(
  platform: NodeJS.Platform,
  pid: number | undefined,
  signal: NodeJS.Signals,
  env: Readonly<Record<string, string | undefined>>,
): StopPlan {
  if (pid === undefined) return { kind: 'none' };
  if (platform !== 'win32') return { kind: 'signal', signal };
  // By absolute path: a taskkill.exe earlier on PATH (or in the working folder) must not be the one that runs.
  const root = envValue(env, 'SystemRoot', 'win32') ?? 'C:\\Windows';
  return {
    kind: 'tree',
    file: `${root.replace(/\\+$/, '')}\\System32\\taskkill.exe`,
    args: ['/PID', String(pid), '/T', '/F'],
  };
}

/**
 * POSIX signal numbers. These are the same on Linux and macOS; the exit code of a process ended by one is 128 + n.
 */
const SIGNAL_NUMBERS: Readonly<Partial<Record<NodeJS.Signals, number>>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/**
 * The exit code to pass on for a server that ended with `code` or by `signal`. POSIX: the code, or 128 + the
 * signal's number (as shells report it). Windows: the code as Windows reports it (a crash is an NTSTATUS such as
 * 0xC0000005 = 3221225477, Ctrl-C 0xC000013A); a process ended by taskkill or TerminateProcess has exit code 1,
 * which is what Node's own kill() gives it there too.
 *
 * @example exitCodeFor('linux', null, 'SIGTERM') // → 143
 * @example exitCodeFor('win32', null, 'SIGTERM') // → 1
 */
export function exitCodeFor(
  platform: NodeJS.Platform,
  code: number | null,
  signal: NodeJS.Signals | null,
  signalNumbers: Readonly<Partial<Record<string, number>>> = SIGNAL_NUMBERS,
): number {
  if (code !== null) return code;
  if (signal === null) return 1;
  if (platform === 'win32') return 1;
  return 128 + (signalNumbers[signal] ?? SIGNAL_NUMBERS[signal] ?? 0);
}

/** Windows exit codes that are NTSTATUS values, and what they mean. */
const NTSTATUS: ReadonlyMap<number, string> = new Map([
  [0xc0000005, 'access violation'],
  [0xc000001d, 'illegal instruction'],
  [0xc0000094, 'integer division by zero'],
  [0xc00000fd, 'stack overflow'],
  [0xc0000135, 'a DLL was not found'],
  [0xc0000142, 'a DLL failed to initialise'],
  [0xc000013a, 'ended by Ctrl-C or Ctrl-Break'],
  [0xc0000409, 'stack buffer overrun or fail-fast exit'],
]);

/**
 * How a server ended, in words, the way its platform reports it.
 *
 * @example describeExit('linux', null, 'SIGTERM') // → 'ended by SIGTERM (exit code 143)'
 * @example describeExit('win32', 3221225477, null) // → 'exit code 3221225477 (0xC0000005: access violation)'
 */
export function describeExit(
  platform: NodeJS.Platform,
  code: number | null,
  signal: NodeJS.Signals | null,
): string {
  if (code === null && signal !== null) {
    return platform === 'win32'
      ? 'ended by tapedeck (exit code 1)'
      : `ended by ${signal} (exit code ${exitCodeFor(platform, code, signal)})`;
  }
  const value = code ?? 1;
  if (platform === 'win32' && value >= 0xc0000000) {
    const hex = `0x${value.toString(16).toUpperCase()}`;
    const meaning = NTSTATUS.get(value);
    return `exit code ${value} (${hex}${meaning ? `: ${meaning}` : ''})`;
  }
  return `exit code ${value}`;
}
