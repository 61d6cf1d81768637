import { posix, win32 } from 'node:path';

/**
 * Which file a server command names, decided from data alone — platform, environment, working folder and a check
 * for files — so every platform's rules are tested on any machine. On Windows a bare `npx` is `npx.cmd` found
 * through PATH and PATHEXT (Node's spawn applies neither), and what kind of file it is decides how it is started.
 */

/** What the decisions need to know about the machine. */
export interface CommandContext {
  platform: NodeJS.Platform;
  /** The environment the command is looked up in (PATH, PATHEXT, ComSpec, SystemRoot). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where a relative command path starts from. */
  cwd: string;
  /** True when `path` is a file that may be run (on Windows: a file; elsewhere: a file with execute permission). */
  isRunnable: (path: string) => boolean;
}

export type ResolvedCommand =
  /** A program started directly: an `.exe` / `.com` on Windows, any executable file elsewhere. */
  | { kind: 'executable'; path: string }
  /** A `.cmd` / `.bat` file: Windows runs it only through cmd.exe. */
  | { kind: 'batch'; path: string }
  /** A file Windows cannot start by itself (`.ps1`, `.js`, `.vbs` …): it needs its interpreter named. */
  | { kind: 'unsupported'; path: string; extension: string }
  | { kind: 'not-found' };

/** The extensions Windows starts without an interpreter, in the order PATHEXT lists them by default. */
const RUNNABLE = ['.COM', '.EXE', '.BAT', '.CMD'];
const BATCH = new Set(['.BAT', '.CMD']);

/**
 * A variable of `env`, by name. On Windows names are case-insensitive (`Path` and `PATH` are one variable), so a
 * copied environment object is searched without regard to case there.
 *
 * @example envValue({ Path: 'C:\\bin' }, 'PATH', 'win32') // → 'C:\\bin'
 */
export function envValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  platform: NodeJS.Platform,
): string | undefined {
  if (platform !== 'win32') return env[name];
  if (env[name] !== undefined) return env[name];
  const upper = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) if (key.toUpperCase() === upper) return value;
  return undefined;
}

/**
 * A file name's extension as Windows sees it: upper case, with the trailing dots and spaces Windows drops from file
 * names removed first (`npx.cmd.` and `npx.cmd ` run as batch files too).
 *
 * @example windowsExtension('C:\\node\\npx.Cmd. ') // → '.CMD'
 */
export function windowsExtension(path: string): string {
  return win32.extname(path.replace(/[. ]+$/, '')).toUpperCase();
}

/** The extensions PATHEXT lists that Windows starts by itself, in PATHEXT's order. */
function pathExtensions(ctx: CommandContext): string[] {
  const listed = (envValue(ctx.env, 'PATHEXT', 'win32') ?? RUNNABLE.join(';'))
    .split(';')
    .map((ext) => ext.trim().toUpperCase())
    .filter((ext) => RUNNABLE.includes(ext));
  return listed.length > 0 ? [...new Set(listed)] : RUNNABLE;
}

/** The folders of PATH in order; Windows allows an entry in quotes (`"C:\Program Files\x"`). */
function pathFolders(ctx: CommandContext): string[] {
  const windows = ctx.platform === 'win32';
  const value = envValue(ctx.env, 'PATH', ctx.platform) ?? '';
  return value
    .split(windows ? ';' : ':')
    .map((dir) => (windows ? dir.trim().replace(/^"(.*)"$/, '$1') : dir))
    .filter((dir) => dir !== '');
}

/**
 * The file `command` names. A command with a folder in it is taken from that folder (relative to `cwd`); a bare name
 * is looked up in PATH — on Windows with each PATHEXT extension in turn unless it has one, and never as the
 * extension-less file beside `npx.cmd` (a shell script for Git Bash that Windows cannot start). The working folder
 * is not searched for a bare name, so a file dropped in a project cannot stand in for a program.
 *
 * @example resolveCommand('npx', { platform: 'win32', env: { PATH: 'C:\\node' }, cwd: 'C:\\', isRunnable })
 * // → { kind: 'batch', path: 'C:\\node\\npx.cmd' }
 */
export function resolveCommand(command: string, ctx: CommandContext): ResolvedCommand {
  if (command === '') return { kind: 'not-found' };
  return ctx.platform === 'win32' ? resolveWindows(command, ctx) : resolvePosix(command, ctx);
}

function resolvePosix(command: string, ctx: CommandContext): ResolvedCommand {
  if (command.includes('/')) {
    const path = posix.resolve(ctx.cwd, command);
    return ctx.isRunnable(path) ? { kind: 'executable', path } : { kind: 'not-found' };
  }
  for (const dir of pathFolders(ctx)) {
    const path = posix.join(dir, command);
    if (ctx.isRunnable(path)) return { kind: 'executable', path };
  }
  return { kind: 'not-found' };
}

function resolveWindows(command: string, ctx: CommandContext): ResolvedCommand {
  const extensions = pathExtensions(ctx);
  const given = windowsExtension(command);
  // A name that already ends in a runnable extension is taken as it is; any other name gets each one appended.
  const candidates = (base: string) =>
    RUNNABLE.includes(given) ? [base] : extensions.map((ext) => `${base}${ext.toLowerCase()}`);
  const found = (path: string): ResolvedCommand => {
    const ext = windowsExtension(path);
    return BATCH.has(ext) ? { kind: 'batch', path } : { kind: 'executable', path };
  };
  const withFolder = /[\\/]/.test(command) || /^[A-Za-z]:/.test(command);
  const folders = withFolder ? [undefined] : pathFolders(ctx);
  for (const dir of folders) {
    const base = dir === undefined ? win32.resolve(ctx.cwd, command) : win32.join(dir, command);
    for (const path of candidates(base)) if (ctx.isRunnable(path)) return found(path);
  }
  // A file that exists but is no program (`server.ps1`): reported, so the error can name its interpreter.
  if (given !== '' && !RUNNABLE.includes(given)) {
    for (const dir of folders) {
      const path = dir === undefined ? win32.resolve(ctx.cwd, command) : win32.join(dir, command);
      if (ctx.isRunnable(path)) return { kind: 'unsupported', path, extension: given.toLowerCase() };
    }
  }
  return { kind: 'not-found' };
}
