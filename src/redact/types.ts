import type { TraceLine } from '../trace/types.js';

/**
 * Redaction rules as data. A rule names what to hide; the engine (engine.ts) applies a set of them to trace
 * lines, and only ever to the trace copy — forwarded bytes are never touched.
 */

/** How a hidden value is written: `marker` → `[REDACTED:<rule>]`; `hash` → `[REDACTED:<rule>:<12 hex of HMAC>]`. */
export type RedactMode = 'marker' | 'hash';

/** What every rule has. */
export interface RuleBase {
  /** The name shown in markers (`[REDACTED:<id>]`) and in `scan` reports. Defaults to one derived from the rule. */
  id?: string;
}

/**
 * Matches JSON keys by words, case-insensitively, across camelCase, snake_case and kebab-case: `token` matches
 * `token`, `accessToken`, `access_token`, `x-auth-token`; not `tokenizer`, `max_tokens` or `totalTokens`.
 * `exclude` lists whole keys (compared by words too) that never match, e.g. `progressToken`.
 */
export interface KeyRule extends RuleBase {
  type: 'key';
  name: string;
  exclude?: string[];
}

/** A JSONPath (subset: `$`, `.name`, `['any name']`, `[n]`, `[*]`, `..name`, `..*`) into a JSON-RPC message. */
export interface PathRule extends RuleBase {
  type: 'path';
  path: string;
}

/**
 * A regular expression run on every string value (keys untouched); the matched part is replaced — or, when the
 * pattern has a group named `secret` (`Bearer (?<secret>…)`), only that group.
 */
export interface RegexRule extends RuleBase {
  type: 'regex';
  pattern: string;
  /** Any of `i`, `m`, `s`, `u`, `v`; the engine adds `g` (and `d` for a `secret` group) itself. */
  flags?: string;
  /**
   * Literal strings of which every match contains at least one (case-sensitive): a value holding none of them is
   * skipped with `String.prototype.includes`, so a 10 MB base64 image costs a few memchr-speed passes, not a regex
   * run. Omitted → the pattern runs on every value.
   */
  hints?: string[];
  /**
   * A run of at least this many ASCII letters, digits, `_` and `-` that every match holds (a token's body): text
   * without such a run — prose, paths, UUIDs, dates — is skipped before the hints are looked for. Only runs of 16
   * or more gate a rule; omitted → the rule is not gated.
   */
  minRun?: number;
}

/**
 * An HTTP header name (case-insensitive); `contains: true` matches any header whose name contains it. Its value is
 * hidden whole, in headers and in `Name: value` lines of free text.
 */
export interface HeaderRule extends RuleBase {
  type: 'header';
  name: string;
  contains?: boolean;
  /** Whole header names (case-insensitive) this rule never matches: `www-authenticate` for `auth`. */
  exclude?: string[];
  /**
   * Hide the value as a stable keyed hash (`[REDACTED:<rule>:<12 hex>]`) whatever the mode, so equal values stay
   * equal in the trace: `Mcp-Session-Id` keeps its correlation, not its capability.
   */
  hash?: boolean;
}

/**
 * A PEM private-key block, `-----BEGIN … PRIVATE KEY-----` through `-----END … PRIVATE KEY-----` (or to the end of
 * the value when the block was cut off). Found with indexOf rather than a regex, so it is linear on any input.
 */
export interface PemRule extends RuleBase {
  type: 'pem';
}

export type RedactRule = KeyRule | PathRule | RegexRule | HeaderRule | PemRule;

/** A redaction setup: the built-in rules or not, extra rules, and how values are hidden. */
export interface RedactConfig {
  /** Apply the built-in rules (DEFAULT_RULES). */
  defaults: boolean;
  /** Extra rules, applied after the defaults. */
  rules: RedactRule[];
  mode: RedactMode;
}

/** What a trace's meta line records about the redaction applied — never the rules' contents. */
export interface RedactionSummary {
  defaults: boolean;
  customRules: number;
  mode: RedactMode;
}

/**
 * Keyed hash for `hash` mode: returns hex of HMAC-SHA256(value) with a per-install key. Injected so the engine
 * stays free of I/O and platform modules.
 */
export type ValueHasher = (value: string) => string;

/**
 * The redaction seam: every line passes through it before it is stored (a sink's `redact` option; createRedactor
 * makes one from rules). It must return a line of the same kind; it must not mutate its argument (the forwarded
 * bytes are never affected either way, but a caller may still hold the object).
 *
 * @example const redact: Redactor = createRedactor({ defaults: true, rules: [], mode: 'marker' });
 */
export type Redactor = <L extends TraceLine>(line: L) => L;
