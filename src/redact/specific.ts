import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { mayMatch } from './hints.js';

/** Values longer than this are not searched for a more specific rule: tokens and keys are far shorter. */
const LONGEST = 16_384;

/**
 * The id to hide a value under when a name rule (a key or header rule) hides it whole: the first value rule whose
 * match is the whole value (blanks around it aside) names it better than the name does — `GITHUB_TOKEN: ghp_…`
 * is a `github-token`, not just a `token`, and `scan` and the marker say so. A value rule that matches only part
 * of the value (`Bearer <credential>`, a URL's password) leaves the name rule's id, since the name rule hides more.
 * Only runs when a name rule already hides the value, so its cost falls on secrets, not on traffic.
 *
 * @example specificRule('token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345', compiled) // 'github-token'
 */
export function specificRule(rule: string, value: Json, compiled: CompiledRules): string {
  if (typeof value !== 'string' || value.length > LONGEST || compiled.values.length === 0) return rule;
  let start = 0;
  let end = value.length;
  while (start < end && value.charCodeAt(start) <= 32) start += 1;
  while (end > start && value.charCodeAt(end - 1) <= 32) end -= 1;
  if (start === end) return rule;
  const present = compiled.hints.present(value);
  for (const matcher of compiled.values) {
    if (!mayMatch(matcher.hints, present)) continue;
    let whole = false;
    matcher.find(value, (from, to) => {
      if (from <= start && to >= end) whole = true;
    });
    if (whole) return matcher.id;
  }
  return rule;
}
