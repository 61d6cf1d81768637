/**
 * A model of how a command line reaches a program through cmd.exe and a batch-file shim, for testing the quoting
 * in src/process/cmd-line.ts on machines without Windows. It follows the published, experimentally derived model of
 * cmd.exe's parser (percent expansion, then special characters with quotes and carets) and the Microsoft C runtime's
 * argument rules. It is stricter than cmd.exe where that is cheap: any unescaped parenthesis outside quotes counts
 * as an operator, and percent expansion is eager (a `%name%` of a defined variable always expands).
 */

/** Percent expansion of a `/c` command line: a defined `%name%` expands, anything else stays as it is. */
export function percentPhase(line: string, env: Readonly<Record<string, string>>): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch !== '%') {
      out += ch;
      i++;
      continue;
    }
    const close = line.indexOf('%', i + 1);
    const name = close < 0 ? '' : line.slice(i + 1, close);
    const value = name === '' ? undefined : lookup(env, name);
    if (value !== undefined) {
      out += value;
      i = close + 1;
    } else {
      out += '%';
      i++;
    }
  }
  return out;
}

function lookup(env: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(env)) if (key.toUpperCase() === name.toUpperCase()) return value;
  return undefined;
}

export interface SpecialPhase {
  /** The line with escaping carets removed. */
  text: string;
  /** Characters that acted as operators (command separators, pipes, redirections, grouping). */
  operators: string[];
  /** Where in `text` the first token (the command) ends, by unescaped delimiters outside quotes. */
  commandEnd: number;
  /** Where the arguments start in `text` (after the delimiters that follow the command). */
  argsStart: number;
}

const DELIMITERS = new Set([' ', '\t', ';', ',', '=']);

/** Special-character processing: quotes toggle, carets escape outside quotes, operators are noted. */
export function specialPhase(line: string): SpecialPhase {
  let text = '';
  const operators: string[] = [];
  let quoted = false;
  let commandEnd = -1;
  let argsStart = -1;
  for (let i = 0; i < line.length; i++) {
    let ch = line[i]!;
    let escaped = false;
    if (!quoted && ch === '^') {
      i++;
      if (i >= line.length) break;
      ch = line[i]!;
      escaped = true;
    }
    const active = !quoted && !escaped;
    if (active && '&|<>()'.includes(ch)) operators.push(ch);
    const delimiter = active && DELIMITERS.has(ch);
    if (commandEnd < 0 && delimiter && text.length > 0) commandEnd = text.length;
    else if (commandEnd >= 0 && argsStart < 0 && !delimiter) argsStart = text.length;
    if (ch === '"' && !escaped) quoted = !quoted;
    text += ch;
  }
  if (commandEnd < 0) commandEnd = text.length;
  if (argsStart < 0) argsStart = text.length;
  return { text, operators, commandEnd, argsStart };
}

/** The Microsoft C runtime's split of a command line into arguments (the 2008+ rules). */
export function parseArgv(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  const skip = () => {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  };
  skip();
  while (i < line.length) {
    let current = '';
    let quoted = false;
    while (i < line.length) {
      const ch = line[i]!;
      if (!quoted && (ch === ' ' || ch === '\t')) break;
      if (ch === '\\') {
        let n = 0;
        while (line[i + n] === '\\') n++;
        if (line[i + n] === '"') {
          current += '\\'.repeat(Math.floor(n / 2));
          if (n % 2 === 1) {
            current += '"';
            i += n + 1;
          } else i += n;
        } else {
          current += '\\'.repeat(n);
          i += n;
        }
        continue;
      }
      if (ch === '"') {
        if (quoted && line[i + 1] === '"') {
          current += '"';
          i += 2;
        } else {
          quoted = !quoted;
          i++;
        }
        continue;
      }
      current += ch;
      i++;
    }
    args.push(current);
    skip();
  }
  return args;
}

export interface ShimRun {
  /** The file cmd.exe starts for the `/c` line. */
  command: string;
  /** Operators cmd.exe acted on, in the `/c` line or in the shim's line: any is an injection. */
  operators: string[];
  /** The arguments the program behind the shim receives. */
  argv: string[];
}

/**
 * What happens to `cmdArgs(...)` given to cmd.exe when the command is an npm-style shim whose line is
 * `"%dp0%\node.exe" "%dp0%\cli.js" %*`: `/s` drops the outer quotes, the `/c` line is parsed once, the shim gets the
 * rest of the line as `%*`, its own line is parsed again, and node.exe splits what is left into arguments.
 */
export function runThroughShim(cmdArgv: readonly string[], env: Readonly<Record<string, string>>): ShimRun {
  const quoted = cmdArgv.at(-1)!;
  if (!quoted.startsWith('"') || !quoted.endsWith('"')) throw new Error('the /c line is not in quotes');
  const first = specialPhase(percentPhase(quoted.slice(1, -1), env));
  const command = first.text.slice(0, first.commandEnd);
  const rest = first.text.slice(first.argsStart);
  // %* is put into the shim's line as it is; percent expansion does not look at what it put in.
  const shimLine = `"C:\\Program Files\\nodejs\\node.exe" "C:\\Program Files\\nodejs\\cli.js" ${rest}`;
  const second = specialPhase(shimLine);
  return {
    command,
    operators: [...first.operators, ...second.operators],
    argv: parseArgv(second.text).slice(2),
  };
}
