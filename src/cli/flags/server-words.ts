/**
 * Where a server command starts on a command line written without `--`. Some callers cannot pass `--` on:
 * PowerShell's shim for native commands drops it, and the MCP Inspector CLI keeps the first `--` for itself. So
 * `tapedeck record node server.js` means `tapedeck record -- node server.js`: the first word that is neither an
 * option nor an option's value starts the server command, and every word after it belongs to the server, even
 * one that looks like a tapedeck flag. A command that takes positional words of its own first (`verify
 * <cassette>`) counts those before the server command starts.
 *
 * The scan reads option words as commander does (`--flag value`, `--flag=value`, `-abc`, `-ovalue`); it needs only
 * a lookup of the command's options, so the executable can run it before the CLI framework is loaded.
 */

/** How an option reads the words after it: no value, always the next word, or the next word when it fits. */
export type OptionArity = 'none' | 'value' | { optional: (word: string) => boolean };

/** The arity of one option word (`--out`, `-o`), or undefined for a word the command does not know. */
export type OptionLookup = (flag: string) => OptionArity | undefined;

/**
 * The index in `words` (the words after the subcommand's name) of the server command's first word, or undefined
 * when the words hold none, or when `--` comes first (the server command is then what follows it).
 *
 * @example serverCommandStart(['--out', 'd', 'node', 's.js'], lookup, 0) === 2
 * @example serverCommandStart(['c.jsonl', '--update', 'node', 's.js'], lookup, 1) === 2
 */
export function serverCommandStart(
  words: readonly string[],
  lookup: OptionLookup,
  leading: number,
): number | undefined {
  let positionals = 0;
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (word === '--') return undefined;
    if (!isOptionWord(word)) {
      if (positionals === leading) return i;
      positionals += 1;
      i += 1;
      continue;
    }
    i += 1 + valueWords(word, words[i + 1], lookup);
  }
  return undefined;
}

/**
 * `words` with `--` put where the server command starts, when it starts with no `--` before it; else `words`
 * unchanged. The result reads the same to a parser that knows only the `--` form.
 *
 * @example withDashes(['--out', 'd', 'node', 's.js'], lookup, 0) // → ['--out', 'd', '--', 'node', 's.js']
 */
export function withDashes(words: readonly string[], lookup: OptionLookup, leading: number): string[] {
  const start = serverCommandStart(words, lookup, leading);
  if (start === undefined) return [...words];
  return [...words.slice(0, start), '--', ...words.slice(start)];
}

/** A word a parser reads as an option: `-x`, `--name`; a lone `-` (standard input) is a positional word. */
function isOptionWord(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** How many of the words after the option `word` are its value: 0 or 1. */
function valueWords(word: string, next: string | undefined, lookup: OptionLookup): number {
  if (word.startsWith('--')) {
    // `--name=value` carries its value; an unknown option is left to the parser to refuse.
    if (word.includes('=')) return 0;
    return takesNext(lookup(word), next);
  }
  // `-o value`, `-ovalue`, or a group of short flags `-qv` whose last one may take the next word.
  for (let at = 1; at < word.length; at += 1) {
    const arity = lookup(`-${word[at]}`);
    if (arity === undefined) return 0;
    if (arity === 'none') continue;
    return at === word.length - 1 ? takesNext(arity, next) : 0;
  }
  return 0;
}

function takesNext(arity: OptionArity | undefined, next: string | undefined): number {
  if (arity === undefined || arity === 'none' || next === undefined) return 0;
  if (arity === 'value') return 1;
  return !isOptionWord(next) && arity.optional(next) ? 1 : 0;
}
