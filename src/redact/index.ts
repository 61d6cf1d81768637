/**
 * `mcp-tapedeck/redact`: redaction rules as data, the engine that applies them to trace lines (copies, never the
 * forwarded bytes), and detection for `scan`. Pure — no node: imports at run time; `hash` mode gets its keyed hash
 * injected as a ValueHasher. Loading a user's and a project's rules from their files (`loadRedaction`) does I/O
 * and is exported, with its types, by the main entry. Markers, hints, walking and the providers' tables are internal.
 */

export { redactArgv } from './argv.js';
export { type CompiledRules, type CompileOptions, compile, summarize } from './compile.js';
export { DEFAULT_RULES, RULE_FAMILIES, type RuleFamily } from './defaults.js';
export { ENTROPY_RULE, type Finding, type FindOptions, findSecrets } from './detect.js';
export { createRedactor, type RedactorOptions, redactHeaders, redactLine } from './engine.js';
export { type HarOptions, toHar } from './har.js';
export type { MarkerStyle } from './marker.js';
export { builtInOutputRedaction, type OutputRedaction, outputRedaction } from './output.js';
export { TraceState } from './state.js';
export type {
  HeaderRule,
  KeyRule,
  PathRule,
  PemRule,
  RedactConfig,
  RedactionSummary,
  RedactMode,
  Redactor,
  RedactRule,
  RegexRule,
  RuleBase,
  ValueHasher,
} from './types.js';
export { type Hits, redactText } from './values.js';
export { redactJson } from './walk.js';
