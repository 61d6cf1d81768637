/**
 * Refuses regular expressions that can backtrack without bound. V8's engine backtracks: a quantifier inside a
 * repeated group (`(a+)+`, `(\w*x){1,9}`), or alternatives repeated together (`(a|ab){1,20}`), can take exponential
 * time on a hostile string, and an unbounded quantifier followed by anything (`\w+@`) quadratic time. A redactor
 * runs on everything a server sends, so a rule must have neither. An unbounded quantifier that ends the whole
 * pattern (`ACME-[0-9]+`) is let through: it never gives back what it took.
 */

/** What makes a pattern unsafe, at which position, and how to write it instead. */
export interface RegexHazard {
  position: number;
  problem: string;
}

interface Group {
  /** A quantifier (or an alternation) somewhere inside, at any depth. */
  repeats: boolean;
  alternation: boolean;
}

/** One quantifier at `at`: its maximum (Infinity when unbounded) and where it ends. */
function quantifierAt(source: string, at: number): { max: number; end: number } | undefined {
  const ch = source[at];
  let max: number;
  let end = at + 1;
  if (ch === '*' || ch === '+') max = Number.POSITIVE_INFINITY;
  else if (ch === '?') max = 1;
  else if (ch === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 32));
    if (m === null) return undefined;
    max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
    end = at + m[0].length;
  } else return undefined;
  if (source[end] === '?') end += 1;
  return { max, end };
}

/** Skips an escape starting at `at` (the backslash); returns the index after it. */
function skipEscape(source: string, at: number): number {
  const next = source[at + 1];
  if ((next === 'u' || next === 'p' || next === 'P') && source[at + 2] === '{') {
    const close = source.indexOf('}', at + 3);
    return close < 0 ? source.length : close + 1;
  }
  if (next === 'k' && source[at + 2] === '<') {
    const close = source.indexOf('>', at + 3);
    return close < 0 ? source.length : close + 1;
  }
  return at + 2;
}

/** Skips a character class starting at `at` (the `[`); with the `v` flag classes nest. */
function skipClass(source: string, at: number, nested: boolean): number {
  let depth = 0;
  let i = at;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '\\') {
      i = skipEscape(source, i);
      continue;
    }
    if (ch === '[' && (depth === 0 || nested)) depth += 1;
    else if (ch === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return source.length;
}

/**
 * The first backtracking hazard in `source` (a regex pattern as given to `new RegExp`), or undefined when it has
 * none. Syntax errors are the RegExp constructor's to report.
 *
 * @example regexHazard('(a+)+$')?.problem // 'a quantifier inside a repeated group …'
 */
export function regexHazard(source: string, flags = ''): RegexHazard | undefined {
  const stack: Group[] = [{ repeats: false, alternation: false }];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    let atomEnd: number;
    let closed: Group | undefined;
    if (ch === '\\') atomEnd = skipEscape(source, i);
    else if (ch === '[') atomEnd = skipClass(source, i, flags.includes('v'));
    else if (ch === '(') {
      stack.push({ repeats: false, alternation: false });
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the group's own syntax is not an atom.
      if (source[i + 1] === '?') {
        const named = /^\(\?<[A-Za-z_$][A-Za-z0-9_$]*>/.exec(source.slice(i, i + 80));
        i += named !== null ? named[0].length : source[i + 2] === '<' ? 4 : 3;
      } else i += 1;
      continue;
    } else if (ch === ')') {
      closed = stack.length > 1 ? stack.pop() : undefined;
      atomEnd = i + 1;
    } else if (ch === '|') {
      stack.at(-1)!.alternation = true;
      i += 1;
      continue;
    } else atomEnd = i + 1;
    const quantifier = quantifierAt(source, atomEnd);
    const current = stack.at(-1)!;
    if (closed !== undefined) {
      if (quantifier !== undefined && quantifier.max > 1 && (closed.repeats || closed.alternation)) {
        const inner = closed.repeats ? 'a quantifier' : 'alternatives';
        return {
          position: atomEnd,
          problem: `${inner} inside a group repeated by "${source.slice(atomEnd, quantifier.end)}" can backtrack exponentially; repeat one character class instead, or split the rule`,
        };
      }
      if (closed.repeats) current.repeats = true;
    }
    if (quantifier !== undefined) {
      const last = quantifier.end >= source.length && stack.length === 1 && !stack[0]!.alternation;
      if (quantifier.max === Number.POSITIVE_INFINITY && !last) {
        return {
          position: atomEnd,
          problem: `"${source.slice(atomEnd, quantifier.end)}" has no upper bound and can backtrack quadratically; give it one, e.g. {1,256}`,
        };
      }
      current.repeats = true;
      i = quantifier.end;
    } else i = atomEnd;
  }
  return undefined;
}
