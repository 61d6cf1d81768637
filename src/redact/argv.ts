import type { CompiledRules } from './compile.js';
import { matchHeader } from './key-words.js';
import { formatMarker, isMarker } from './marker.js';
import { specificRule } from './specific.js';
import type { Hits } from './values.js';
import { hideInString } from './walk.js';

/**
 * A server command line (`meta.command`) carries secrets as flag values and environment assignments more often
 * than as recognisable tokens: `--api-key=…`, `--token …`, `API_KEY=…`, `-H 'Authorization: Bearer …'`. Those are
 * hidden when the flag or variable name falls under a key rule (a header name under a header or key rule); every
 * argument then also gets the value rules.
 */

/** `--api-key=VALUE`, `--token`, `-p`: the dashes, the name and, when inline, `=`. */
const FLAG = /^(-{1,2})([A-Za-z0-9][A-Za-z0-9_.-]{0,127})(=|$)/;
/** `API_KEY=VALUE` (also as the argument of `-e` / `--env`). */
const ENV_PAIR = /^([A-Za-z_][A-Za-z0-9_]{0,127})=/;

interface ArgvWalk {
  compiled: CompiledRules;
  hits: Hits | undefined;
  index: number;
}

function hideWhole(walk: ArgvWalk, name: string, value: string): string {
  if (value === '' || isMarker(value)) return value;
  const rule = specificRule(name, value, walk.compiled);
  walk.hits?.hit(rule, `command[${walk.index}]`, value);
  return formatMarker(rule, value, walk.compiled.style);
}

/** `Name: value` as given to `-H`: the value is hidden when the name is a sensitive header or key. */
function hideHeaderArg(walk: ArgvWalk, text: string): string {
  const colon = text.indexOf(':');
  if (colon <= 0) return text;
  const name = text.slice(0, colon).trim();
  let start = colon + 1;
  while (text[start] === ' ' || text[start] === '\t') start += 1;
  const value = text.slice(start);
  const rule = matchHeader(walk.compiled.headers, name) ?? walk.compiled.keys.matchValue(name, value);
  if (rule === undefined) return text;
  const hidden = hideWhole(walk, rule, value);
  return hidden === value ? text : text.slice(0, start) + hidden;
}

type Pending = { kind: 'value'; name: string } | { kind: 'header' } | undefined;

/**
 * Redacts a command line. Returns the same array when nothing changed, otherwise a copy.
 *
 * @example redactArgv(['server', '--api-key', 'abc123'], compile(config)) // ['server', '--api-key', '[REDACTED:api-key]']
 */
export function redactArgv(argv: readonly string[], compiled: CompiledRules): readonly string[] {
  return hideInArgv(argv, compiled);
}

/** {@link redactArgv} with detection hooks. */
export function hideInArgv(argv: readonly string[], compiled: CompiledRules, hits?: Hits): readonly string[] {
  const walk: ArgvWalk = { compiled, hits, index: 0 };
  let copy: string[] | undefined;
  let pending: Pending;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    walk.index = i;
    let next = arg;
    const waiting = pending;
    pending = undefined;
    if (waiting?.kind === 'value') {
      const rule = compiled.keys.matchValue(waiting.name, arg);
      if (rule !== undefined) next = hideWhole(walk, rule, arg);
    } else if (waiting?.kind === 'header') next = hideHeaderArg(walk, arg);
    else [next, pending] = pairs(walk, arg, argv[i + 1]);
    if (next === arg) next = hideInString(arg, compiled, hits, `command[${i}]`);
    if (next !== arg) {
      copy ??= argv.slice();
      copy[i] = next;
    }
  }
  return copy ?? argv;
}

/** Handles one argument that is not a pending value: inline pairs are hidden here, split ones are announced. */
function pairs(walk: ArgvWalk, arg: string, following: string | undefined): [string, Pending] {
  if (arg === '-H' || arg === '--header') return [arg, { kind: 'header' }];
  if (arg.startsWith('--header=')) return [`--header=${hideHeaderArg(walk, arg.slice(9))}`, undefined];
  // curl also takes the header glued to the flag: -H'Authorization: Bearer …'.
  if (arg.startsWith('-H') && arg[2] !== '-' && arg.includes(':'))
    return [`-H${hideHeaderArg(walk, arg.slice(2))}`, undefined];
  const flag = FLAG.exec(arg);
  if (flag !== null) {
    const name = flag[2]!;
    if (walk.compiled.keys.match(name) === undefined) return [arg, undefined];
    const head = flag[0].length;
    if (flag[3] === '=') {
      const value = arg.slice(head);
      const rule = walk.compiled.keys.matchValue(name, value);
      const hidden = rule === undefined ? value : hideWhole(walk, rule, value);
      return [hidden === value ? arg : arg.slice(0, head) + hidden, undefined];
    }
    // `--token VALUE`; a following flag means this one took no value.
    const takesValue = following !== undefined && !(following.startsWith('-') && following.length > 1);
    return [arg, takesValue ? { kind: 'value', name } : undefined];
  }
  const env = ENV_PAIR.exec(arg);
  if (env !== null) {
    const value = arg.slice(env[0].length);
    const rule = walk.compiled.keys.matchValue(env[1]!, value);
    if (rule === undefined) return [arg, undefined];
    const hidden = hideWhole(walk, rule, value);
    return [hidden === value ? arg : env[0] + hidden, undefined];
  }
  return [arg, undefined];
}
