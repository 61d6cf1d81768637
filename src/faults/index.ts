/**
 * `mcp-tapedeck/faults`: what an agent meets when its servers fail — the fault spec grammar
 * (`KIND[=VALUE][@MATCH][%PERCENT][#NTH]`), profiles (JSON or YAML, timed faults included), the seeded plan that
 * decides which request gets which fault, and the records of what was injected. The front doors that carry faults
 * out take them as options: replayTransport, useCassette, serveStdio, serveHttp (mcp-tapedeck/replay), runStdioProxy and
 * startHttpProxy (mcp-tapedeck/proxy).
 */
export { randomSeed } from './draw.js';
export { loadFaultProfile } from './load.js';
export { type FaultRequest, namedTarget, ruleMatches, unmatchedRules } from './match.js';
export type { FaultOptions } from './options.js';
export {
  type AnswerAction,
  type AppliedFault,
  type FaultDecision,
  FaultPlan,
  type FaultPlanOptions,
} from './plan.js';
export {
  type FaultInput,
  type FaultProfile,
  type FaultRuleInput,
  faultProfile,
  faultRules,
} from './profile.js';
export { describeFault, type FaultRecord, faultEvent } from './records.js';
export {
  DEFAULT_ERROR_CODE,
  FAULT_KINDS,
  type FaultAction,
  type FaultKind,
  type FaultMatch,
  type FaultNth,
  type FaultRule,
  parseFaultSpec,
  parseSeed,
} from './spec.js';
