/**
 * Hints: literals every match of a rule holds, looked for with `includes` (memchr speed) before any regex runs. A
 * plan groups a rule set's hints by their first character base64 never holds (`-`, `_`, `.`, `:`, `=`, space …),
 * so one memchr for that character settles a whole group in text that lacks it, and a multi-megabyte image costs a
 * few memchr passes per cache-sized chunk.
 */

/** Values this long have their hints looked up chunk by chunk, for all rules together. */
export const LONG_VALUE = 1 << 18;
/** 256 KiB: a chunk stays in a core's cache while every hint is looked for in it, so memory is read once. */
const CHUNK = 1 << 18;
/** Base64 and hex never hold other characters: a hint's first character outside them is a cheap first test. */
const DATA_CHARS = /[A-Za-z0-9+/=]/;
/**
 * Characters text holds and data (base64, hex) does not. A chunk of a long value with none of them is data: hints
 * made of letters and digits only are not looked for in it — a token there would be a run of base64 that happens
 * to spell one.
 */
const TEXT_CHARS = [' ', '\n', '"', '.', ':', '-', '_'];

function gateOf(hint: string): string | undefined {
  for (const ch of hint) if (!DATA_CHARS.test(ch)) return ch;
  return undefined;
}

interface Group {
  gate: string;
  hints: string[];
}

/**
 * A rule set's hints, ready to look for. Built once per compiled rule set.
 *
 * @example new HintPlan(['ghp_', 'AKIA', '-----BEGIN ']).present('key AKIAIOSFODNN7EXAMPLE') // Set {'AKIA'}
 */
export class HintPlan {
  private readonly groups: Group[] = [];
  /** Hints made of letters and digits only: no gate spares them. */
  private readonly plain: string[] = [];
  private readonly longest: number;

  constructor(hints: readonly string[]) {
    const byGate = new Map<string, string[]>();
    for (const hint of new Set(hints)) {
      const gate = gateOf(hint);
      if (gate === undefined) this.plain.push(hint);
      else byGate.set(gate, [...(byGate.get(gate) ?? []), hint]);
    }
    for (const [gate, list] of byGate) this.groups.push({ gate, hints: list });
    this.longest = Math.max(1, ...hints.map((hint) => hint.length));
  }

  /**
   * The hints `text` holds, or undefined when it holds none. `extra` characters are looked for too (in a long value
   * during the same sweep, so its memory is read once) and reported among the hints.
   */
  present(text: string, extra: readonly string[] = []): Set<string> | undefined {
    if (text.length >= LONG_VALUE) return this.sweep(text, extra);
    let found = this.look(text, true, undefined, undefined);
    for (const ch of extra) if (text.includes(ch)) found = added(found, ch);
    return found;
  }

  private look(
    text: string,
    plain: boolean,
    into: Set<string> | undefined,
    absent: ReadonlySet<string> | undefined,
  ): Set<string> | undefined {
    let found = into;
    for (const group of this.groups) {
      if (absent?.has(group.gate) === true || !text.includes(group.gate)) continue;
      for (const hint of group.hints) {
        if (found?.has(hint) !== true && text.includes(hint)) found = added(found, hint);
      }
    }
    if (plain) {
      for (const hint of this.plain) {
        if (found?.has(hint) !== true && text.includes(hint)) found = added(found, hint);
      }
    }
    return found;
  }

  /**
   * One sweep of cache-sized chunks (overlapping by the longest hint, so none is missed at a seam). Each text
   * character is looked for once per chunk, and a gate known absent is not looked for again.
   */
  private sweep(text: string, extra: readonly string[]): Set<string> | undefined {
    let found: Set<string> | undefined;
    for (let at = 0; at < text.length; at += CHUNK) {
      const chunk = text.slice(at, at + CHUNK + this.longest - 1);
      const absent = new Set<string>();
      for (const ch of TEXT_CHARS) if (!chunk.includes(ch)) absent.add(ch);
      const data = absent.size === TEXT_CHARS.length;
      found = this.look(chunk, !data, found, absent);
      for (const ch of extra) {
        if (found?.has(ch) !== true && !absent.has(ch) && chunk.includes(ch)) found = added(found, ch);
      }
    }
    return found;
  }
}

/** `found` with `hint` in it, made when there was none. */
function added(found: Set<string> | undefined, hint: string): Set<string> {
  const set = found ?? new Set<string>();
  set.add(hint);
  return set;
}

/** True when a rule with `hints` may match: it has none, or one of them is `present`. */
export function mayMatch(hints: readonly string[], present: ReadonlySet<string> | undefined): boolean {
  if (hints.length === 0) return true;
  if (present === undefined) return false;
  for (const hint of hints) if (present.has(hint)) return true;
  return false;
}
