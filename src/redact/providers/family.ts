import type { RegexRule } from '../types.js';

/**
 * A family of provider token formats: what `record --redact-defaults` and the README list together. Every rule is
 * a regex rule with an id, hints (literals each match holds) and, where the token's shape guarantees one, `minRun`
 * (a run of letters, digits, `_` and `-` each match holds), so text without such a run never pays for the family.
 */
export interface ProviderFamily {
  /** A short name: `cloud`, `source`, `chat` … */
  family: string;
  /** What the family covers, for listings. */
  title: string;
  rules: readonly RegexRule[];
}
