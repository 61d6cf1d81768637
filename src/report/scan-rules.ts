import { RULE_FAMILIES } from '../redact/defaults.js';
import { ENTROPY_RULE } from '../redact/detect.js';
import type { RedactRule } from '../redact/types.js';
import type { ReportRule } from './model.js';

/** Each built-in rule by id, with the title of its family. */
const BUILT_IN = new Map<string, { rule: RedactRule; family: string }>();
for (const family of RULE_FAMILIES)
  for (const rule of family.rules)
    if (rule.id !== undefined) BUILT_IN.set(rule.id, { rule, family: family.title });

/**
 * A scan rule in one sentence, for SARIF's rule list: what the built-in rule looks for and its family, the
 * heuristic, or a custom rule by its id. Never a pattern (a reader wants to know what was found, not the regex).
 *
 * @example describeScanRule('aws-access-key-id') // → 'A token in the format aws-access-key-id (AWS, Google Cloud, Azure and other clouds)'
 * @example describeScanRule('password') // → 'A value under a key named like "password" (secret-named keys, flags, variables and pairs in text)'
 */
export function describeScanRule(id: string): string {
  if (id === ENTROPY_RULE) return 'A random-looking string that no redaction rule covers: possibly a secret';
  const known = BUILT_IN.get(id);
  if (known === undefined) return `A value matched by the redaction rule "${id}" (a rule of your own)`;
  const { rule, family } = known;
  switch (rule.type) {
    case 'key':
      return `A value under a key named like "${rule.name}" (${family})`;
    case 'header':
      return `The value of a credential HTTP header named like "${rule.name}" (${family})`;
    case 'pem':
      return `A private key block (${family})`;
    default:
      return `A token in the format ${id} (${family})`;
  }
}

/**
 * A scan rule as a report lists it: described, with what to do about a finding; the heuristic's findings are
 * warnings (guesses), every rule's are errors.
 *
 * @example scanRule('entropy').level // → 'warning'
 */
export function scanRule(id: string): ReportRule {
  const guess = id === ENTROPY_RULE;
  return {
    id,
    description: describeScanRule(id),
    help: guess
      ? 'If it is a secret, hide it with tapedeck redact --redact <regex> --in-place <trace> (and add the regex to your redact.json); otherwise ignore it.'
      : 'Hide it with tapedeck redact --in-place <trace>, then check the trace again with tapedeck scan.',
    level: guess ? 'warning' : 'error',
    precision: guess ? 'low' : 'high',
  };
}
