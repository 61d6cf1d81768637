import { batchCommandLine, cmdArgs, SpawnPlanError } from './cmd-line.js';
import { type CommandContext, envValue, type ResolvedCommand, resolveCommand } from './resolve.js';

/**
 * What to hand Node's `spawn` for a server command, decided from data alone. Elsewhere than on Windows that is
 * the command as given (a plain spawn: the OS resolves it through PATH and runs scripts by their `#!` line). On
 * Windows the command is resolved through PATH and PATHEXT; a program is started directly (Node quotes its
 * arguments), and a `.cmd` / `.bat` file — which Node refuses to start without a shell since 20.12.2 and 18.20.2 —
 * is run by cmd.exe with a command line written here, never with `shell: true`.
 */

export { SpawnPlanError };

export interface SpawnPlan {
  /** The program to start. */
  file: string;
  args: string[];
  /** The arguments are cmd.exe's switches and one finished command line: Node must pass them as they are. */
  windowsVerbatimArguments: boolean;
  /** What the command resolved to (Windows only; elsewhere the OS resolves it when it starts). */
  resolved?: ResolvedCommand;
}

/**
 * The program and arguments that start `command` with `args` on `ctx.platform`.
 *
 * @example planSpawn('npx', ['-y', 'server'], { platform: 'linux', env, cwd, isRunnable })
 * // → { file: 'npx', args: ['-y', 'server'], windowsVerbatimArguments: false }
 * @example planSpawn('npx', ['-y', 'a&b'], { platform: 'win32', env: { PATH: 'C:\\node' }, cwd: 'C:\\', isRunnable })
 * // → { file: 'cmd.exe', args: ['/d', '/e:on', '/v:off', '/s', '/c', '"C:\\node\\npx.cmd ^^^"-y^^^" …"'], windowsVerbatimArguments: true, … }
 */
export function planSpawn(command: string, args: readonly string[], ctx: CommandContext): SpawnPlan {
  if (ctx.platform !== 'win32') return { file: command, args: [...args], windowsVerbatimArguments: false };
  const resolved = resolveCommand(command, ctx);
  switch (resolved.kind) {
    case 'executable':
      return { file: resolved.path, args: [...args], windowsVerbatimArguments: false, resolved };
    case 'batch':
      return {
        file: commandProcessor(ctx),
        args: cmdArgs(batchCommandLine(resolved.path, args)),
        windowsVerbatimArguments: true,
        resolved,
      };
    case 'unsupported':
      throw new SpawnPlanError(
        `'${command}' is a ${resolved.extension} file (${resolved.path}), which Windows does not start by itself; ` +
          `name its interpreter first (e.g. powershell -NoProfile -File ${resolved.path} for a .ps1 script, node ${resolved.path} for a .js one)`,
      );
    case 'not-found':
      // Left to Node: it reports ENOENT the usual way (after its own look in the working folder).
      return { file: command, args: [...args], windowsVerbatimArguments: false, resolved };
  }
}

/**
 * cmd.exe: `%ComSpec%`, else the one in `%SystemRoot%\System32`, else `cmd.exe` through PATH.
 *
 * @example commandProcessor({ platform: 'win32', env: { ComSpec: 'C:\\Windows\\system32\\cmd.exe' }, … }) // → 'C:\\Windows\\system32\\cmd.exe'
 */
export function commandProcessor(ctx: Pick<CommandContext, 'env'>): string {
  const comspec = envValue(ctx.env, 'ComSpec', 'win32');
  if (comspec !== undefined && comspec !== '') return comspec;
  const root = envValue(ctx.env, 'SystemRoot', 'win32');
  return root ? `${root.replace(/\\+$/, '')}\\System32\\cmd.exe` : 'cmd.exe';
}
