import { type ChildProcess, execFile, type SpawnOptions, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { constants as os } from 'node:os';
import { exitCodeFor, planStop, type StopPlan } from './exit.js';
import { planSpawn } from './plan.js';

/**
 * The one way tapedeck starts a server: record's stdio proxy, run, verify, update, useCassette. It carries out
 * the decisions of plan.ts and exit.ts; on Linux and macOS it is the plain `spawn` of the command as given.
 */

/** The options a server start takes: Node's, less the ones whose job this module does (no shell, ever). */
export type ServerSpawnOptions = Omit<SpawnOptions, 'shell' | 'windowsVerbatimArguments' | 'windowsHide'>;

/** The machine, as the helper sees it (tests give their own). */
export interface ProcessHost {
  platform: NodeJS.Platform;
  /** Read for SystemRoot when a process tree is ended. */
  env: Readonly<Record<string, string | undefined>>;
  isRunnable(path: string): boolean;
  /** Carries out a tree stop; calls `failed` when the stop could not be run. */
  runStop(plan: Extract<StopPlan, { kind: 'tree' }>, failed: () => void): void;
}

/**
 * True when `path` is a file this platform may run: any file on Windows, a file with execute permission elsewhere.
 *
 * @example isRunnableFile('linux')('/usr/bin/env') // → true
 */
export function isRunnableFile(platform: NodeJS.Platform): (path: string) => boolean {
  return (path) => {
    try {
      if (!statSync(path).isFile()) return false;
      if (platform !== 'win32') accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
}

/** This machine. */
export const NODE_HOST: ProcessHost = {
  platform: process.platform,
  env: process.env,
  isRunnable: isRunnableFile(process.platform),
  runStop(plan, failed) {
    try {
      execFile(plan.file, plan.args, { windowsHide: true }, (error) => {
        if (error) failed();
      });
    } catch {
      failed();
    }
  },
};

/**
 * Starts a server command with `args` — never through a shell, so no argument is ever run as a command. On Windows
 * the command is resolved through PATH and PATHEXT, a `.cmd` / `.bat` file runs through cmd.exe with every argument
 * escaped, no console window opens, and the child's `kill()` ends its whole process tree (see endTreeOnKill).
 * Throws a SpawnPlanError for a command that cannot be started as written (a `.ps1` file on Windows); a command
 * that is not found fails the way Node's spawn does, with an `error` event (ENOENT).
 *
 * @example
 * const child = spawnServer('npx', ['-y', '@modelcontextprotocol/server-everything'], { stdio: ['pipe', 'pipe', 'inherit'] });
 */
export function spawnServer(
  command: string,
  args: readonly string[],
  options: ServerSpawnOptions = {},
  host: ProcessHost = NODE_HOST,
): ChildProcess {
  const env = options.env ?? process.env;
  const cwd = options.cwd === undefined ? process.cwd() : String(options.cwd);
  const plan = planSpawn(command, args, { platform: host.platform, env, cwd, isRunnable: host.isRunnable });
  const windows = host.platform === 'win32';
  const child = spawn(plan.file, plan.args, {
    ...options,
    ...(windows ? { windowsHide: true, windowsVerbatimArguments: plan.windowsVerbatimArguments } : {}),
  });
  if (windows) endTreeOnKill(child, host);
  return child;
}

/**
 * Makes `child.kill(signal)` stop the way the platform needs (planStop): on Windows it ends the whole process tree
 * with taskkill — whatever the signal, since Windows has no gentle one for a console program — and falls back to
 * Node's own kill when taskkill cannot run. Returns false, as Node does, when the process has already ended.
 *
 * @example endTreeOnKill(child, NODE_HOST); child.kill('SIGTERM'); // Windows: taskkill /PID <pid> /T /F
 */
export function endTreeOnKill(child: ChildProcess, host: ProcessHost): void {
  const signalKill = child.kill.bind(child);
  const running = () => child.exitCode === null && child.signalCode === null;
  child.kill = (signal?: NodeJS.Signals | number): boolean => {
    if (!running()) return false;
    // A signal number (0 asks whether the process is alive) is Node's business, as it always was.
    if (typeof signal === 'number') return signalKill(signal);
    const plan = planStop(host.platform, child.pid, signal ?? 'SIGTERM', host.env);
    if (plan.kind === 'none') return false;
    if (plan.kind === 'signal') return signalKill(plan.signal);
    host.runStop(plan, () => {
      if (running()) signalKill('SIGKILL');
    });
    return true;
  };
}

/**
 * The exit code to pass on for a process that ended with `code` or by `signal`, on this machine (see exitCodeFor).
 *
 * @example serverExitCode(null, 'SIGTERM') // → 143 on Linux and macOS, 1 on Windows
 */
export function serverExitCode(
  code: number | null,
  signal: NodeJS.Signals | null,
  platform: NodeJS.Platform = process.platform,
): number {
  return exitCodeFor(platform, code, signal, os.signals);
}
