import { realpathSync } from 'node:fs';
import { dirname, join, posix, win32 } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveCommand } from '../process/resolve.js';
import { isRunnableFile } from '../process/spawn.js';
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
 * The absolute path of a bare command name found on PATH (with PATHEXT on Windows, where `npx` is `npx.cmd`), the
 * command itself when it already names a folder, or undefined when it is not found. The same resolution
 * `tapedeck record` applies when it starts the server, so what install reports is what will run.
 *
 * @example resolveExecutable('npx', { PATH: '/usr/local/bin:/usr/bin' }, 'linux') // → '/usr/local/bin/npx'
 */
export function resolveExecutable(
  command: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  isRunnable: (path: string) => boolean = isRunnableFile(platform),
): string | undefined {
  // A path is left as the config wrote it: the client starts it from its own working folder, not ours.
  if (/[\\/]/.test(command) || (platform === 'win32' ? win32 : posix).isAbsolute(command)) return command;
  const resolved = resolveCommand(command, { platform, env, cwd: process.cwd(), isRunnable });
  return resolved.kind === 'executable' || resolved.kind === 'batch' ? resolved.path : undefined;
}
