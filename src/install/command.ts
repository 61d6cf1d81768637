import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RemoteServer } from './entry.js';

/**
 * The command lines a wrapped entry runs. tapedeck itself is called by absolute paths — this Node binary and this
 * installation's `dist/cli/tapedeck.cjs` (the executable npm links as `tapedeck`) — not by `tapedeck` on PATH: desktop clients (Claude Desktop, Cursor) do not
 * start servers from a login shell, so a PATH that nvm or a package manager set up is often not theirs. When Node
 * or tapedeck moves, `tapedeck install` again refreshes every wrap.
 */

/** How to start tapedeck: `command` and the arguments before tapedeck's own. */
export interface TapedeckCommand {
  command: string;
  prefix: string[];
}

/**
 * This installation: `process.execPath` and the real path of `dist/cli/tapedeck.cjs` beside this module.
 *
 * @example currentTapedeck() // → { command: '/usr/bin/node', prefix: ['/opt/tapedeck/dist/cli/tapedeck.cjs'] }
 */
export function currentTapedeck(): TapedeckCommand {
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'tapedeck.cjs');
  let real = bin;
  try {
    real = realpathSync(bin);
  } catch {
    // Running from sources (tests through vitest): the path is still where the build puts it.
  }
  return { command: process.execPath, prefix: [real] };
}

/**
 * The arguments of a wrapped stdio entry: `<tapedeck.cjs> record --label <name> -- <command> <args…>`.
 *
 * @example stdioArgs(tap, 'everything', '/usr/bin/npx', ['-y', 'server'])
 * // → ['/opt/tapedeck/dist/cli/tapedeck.cjs', 'record', '--label', 'everything', '--', '/usr/bin/npx', '-y', 'server']
 */
export function stdioPrefix(tap: TapedeckCommand, name: string, command: string): string[] {
  return [...tap.prefix, 'record', '--label', name, '--', command];
}

/**
 * The arguments of a remote entry wrapped through the bridge: `<tapedeck.cjs> record --upstream URL --stdio [--sse]
 * [--header 'Name: value'…] --label <name>`.
 */
export function remoteArgs(tap: TapedeckCommand, name: string, remote: RemoteServer): string[] {
  const args = [...tap.prefix, 'record', '--upstream', remote.url, '--stdio'];
  if (remote.transport === 'sse') args.push('--sse');
  for (const [header, value] of Object.entries(remote.headers)) args.push('--header', `${header}: ${value}`);
  args.push('--label', name);
  return args;
}

/**
 * The absolute path of a bare command name found on PATH (with PATHEXT on Windows), the command itself when it
 * already has a path, or undefined when it is not found.
 *
 * @example resolveExecutable('npx', { PATH: '/usr/local/bin:/usr/bin' }, 'linux') // → '/usr/local/bin/npx'
 */
export function resolveExecutable(
  command: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (isAbsolute(command) || /[\\/]/.test(command)) return command;
  const path = env.PATH ?? env.Path ?? '';
  const extensions =
    platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  const sep = platform === 'win32' ? ';' : delimiter;
  for (const dir of path.split(sep)) {
    if (dir === '') continue;
    for (const ext of extensions) {
      const candidate = join(dir, command + ext);
      if (isExecutable(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
