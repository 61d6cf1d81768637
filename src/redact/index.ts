/**
 * Redaction: rules as data, an engine that applies them to trace lines (copies, never the forwarded bytes), and
 * detection for `scan`. Pure — no node: imports; `hash` mode gets its keyed hash injected as a ValueHasher.
 */

// Defined with the trace format (matching keys use it too); exported here as before, for hashing values alike.
export { canonicalJson } from '../trace/canonical-json.js';
export { redactArgv } from './argv.js';
export { type CompiledRules, type CompileOptions, compile, summarize } from './compile.js';
export { DEFAULT_RULES, PROVIDER_RULE_COUNT, RULE_FAMILIES, type RuleFamily } from './defaults.js';
export { ENTROPY_RULE, type Finding, type FindOptions, findSecrets, previewOf } from './detect.js';
export { createRedactor, failedLine, type RedactorOptions, redactHeaders, redactLine } from './engine.js';
export { ENTROPY_DEFAULTS, looksLikeSecret, shannonEntropy } from './entropy.js';
export { toHar } from './har.js';
export { CREDENTIAL_HEADER_RULES, CREDENTIAL_HEADER_WORDS, HARMLESS_HEADERS } from './headers.js';
export { type PathSegment, type PathSelector, parsePath } from './jsonpath.js';
export { splitKeyWords } from './key-words.js';
export {
  formatMarker,
  isMarker,
  MARKER_PREFIX,
  type MarkerStyle,
  REDACTION_ERROR_MARKER,
  RULE_ID,
} from './marker.js';
export { TraceState } from './state.js';
export type {
  HeaderRule,
  KeyRule,
  PathRule,
  PemRule,
  RedactConfig,
  RedactionSummary,
  RedactMode,
  RedactRule,
  RegexRule,
  ValueHasher,
} from './types.js';
export { type Hits, redactText } from './values.js';
export { hideInString, redactJson } from './walk.js';
