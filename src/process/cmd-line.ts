/**
 * Writing a command line that cmd.exe runs exactly as meant. Windows hands a program one string, not an argument
 * vector; a batch file (`npx.cmd`, `pnpm.cmd`) can only be started through cmd.exe, which reads that string twice:
 * once for the `/c` line, and again where the batch file passes its arguments on (`%*` in the shims npm, pnpm and
 * yarn install). Each argument is therefore quoted for the program at the end (the Microsoft C runtime's rules,
 * which Node.js, Python and most Windows programs follow) and then has every character cmd.exe gives a meaning to
 * escaped with a caret, once per reading — including the quotes themselves, so cmd.exe never sees a quoted region
 * in which a caret would stop working. Nothing in an argument can then end the command or start another one.
 */

/**
 * The characters cmd.exe acts on outside quotes, and the ones that split a command into words: command separators
 * and redirection (`& | < >`), grouping (`( )`), the escape itself (`^`), quotes, variable expansion (`%`, and `!`
 * when delayed expansion is on), and the delimiters space, tab, `;`, `,` and `=`.
 */
const CMD_SPECIAL = /[&|<>()^"%! \t;,=]/g;

/**
 * An argument quoted so that a program parsing its command line by the Microsoft C runtime's rules gets it back
 * unchanged: always in quotes (so an empty argument survives), backslashes doubled only where they precede a quote
 * (or the closing quote, so a trailing backslash cannot escape it), quotes escaped with a backslash.
 *
 * @example quoteWindowsArg('say "hi"') // → '"say \\"hi\\""'
 * @example quoteWindowsArg('C:\\dir\\') // → '"C:\\dir\\\\"'
 */
export function quoteWindowsArg(arg: string): string {
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    // Backslashes before a quote are doubled, and one more escapes the quote itself.
    if (ch === '"') out += `${'\\'.repeat(backslashes * 2 + 1)}"`;
    else out += `${'\\'.repeat(backslashes)}${ch}`;
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}

/**
 * Puts a caret before every character cmd.exe would act on, so one reading by cmd.exe gives `text` back as it is.
 * A `%` is escaped too: the caret lands inside any `%name%` pair, whose name then matches no variable, and is
 * removed afterwards.
 *
 * @example escapeForCmd('a&b %PATH%') // → 'a^&b^ ^%PATH^%'
 */
export function escapeForCmd(text: string): string {
  return text.replace(CMD_SPECIAL, '^$&');
}

/** Why a command cannot be started the way it is written (a `.ps1` file, an argument cmd.exe cannot carry). */
export class SpawnPlanError extends Error {
  override readonly name = 'SpawnPlanError';
}

/**
 * The line that cmd.exe runs for a batch file and its arguments: the batch file's path escaped once (cmd.exe reads
 * it once), each argument quoted for the program at the end and escaped twice (once for the `/c` line, once for
 * the batch file's `%*`). Throws SpawnPlanError for an argument with a line break or a NUL, which no quoting carries
 * through cmd.exe.
 *
 * @example batchCommandLine('C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'a&b'])
 * // → 'C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"a^^^&b^^^"'
 */
export function batchCommandLine(batchFile: string, args: readonly string[]): string {
  const parts = [escapeForCmd(batchFile)];
  for (const [index, arg] of args.entries()) {
    if (/[\r\n\0]/.test(arg)) {
      throw new SpawnPlanError(
        `argument ${index + 1} (${JSON.stringify(arg.slice(0, 40))}) has a line break or NUL, which cmd.exe cannot pass to ${batchFile}; ` +
          'start the program the batch file runs directly instead',
      );
    }
    parts.push(escapeForCmd(escapeForCmd(quoteWindowsArg(arg))));
  }
  return parts.join(' ');
}

/**
 * The switches cmd.exe gets before the line: no AutoRun commands from the registry (`/d`), command extensions on
 * (`/e:on`: the shims' `%~dp0` needs them), delayed expansion off (`/v:off`: `!` stays literal whatever the registry
 * says), and `/s /c` so that exactly the outer pair of quotes around the line is removed.
 */
export const CMD_SWITCHES: readonly string[] = ['/d', '/e:on', '/v:off', '/s', '/c'];

/**
 * The argument vector for cmd.exe that runs `line`: the switches, then the line in one pair of quotes. It must be
 * passed verbatim (Node's `windowsVerbatimArguments`), since the quoting is already done.
 *
 * @example cmdArgs('npx.cmd ^^^"-y^^^"') // → ['/d', '/e:on', '/v:off', '/s', '/c', '"npx.cmd ^^^"-y^^^""']
 */
export function cmdArgs(line: string): string[] {
  return [...CMD_SWITCHES, `"${line}"`];
}
