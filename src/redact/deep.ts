import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { hideable } from './values.js';

/**
 * Searches a JSON subtree of any depth without recursion — an explicit stack instead of the call stack — for
 * anything the rules would hide: a secret-named key with a value to hide, or a string the value rules change.
 * Returns that rule's id (`hideString` names none, so a changed string reports `nested-secret`), or undefined when
 * the subtree is clean. Linear in the subtree's size.
 *
 * @example deepSecret(JSON.parse('['.repeat(5000) + '{"token":"x"}' + ']'.repeat(5000)), compiled, true, hide) // 'token'
 */
export function deepSecret(
  value: Json,
  compiled: CompiledRules,
  keyed: boolean,
  hideString: (text: string) => string,
): string | undefined {
  const stack: Json[] = [value];
  while (stack.length > 0) {
    const item = stack.pop() as Json;
    if (typeof item === 'string') {
      if (hideString(item) !== item) return 'nested-secret';
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (const entry of item) stack.push(entry);
      continue;
    }
    for (const [key, entry] of Object.entries(item)) {
      if (keyed) {
        const rule = compiled.keys.matchValue(key, entry);
        if (rule !== undefined && hideable(entry)) return rule;
      }
      stack.push(entry);
    }
  }
  return undefined;
}
