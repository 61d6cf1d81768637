/**
 * Gates for CI over recorded traffic: `lint` (the MCP specification, per negotiated version), `drift` (the
 * definitions a server offers, between builds) and `check` (what an agent did), and the plain matcher functions
 * for Jest (`expect.extend({ toHaveCalledTool: calledTool, … })`); vitest users import `mcp-tapedeck/vitest`.
 */

export { readRun } from './check/check-trace.js';
export { evaluate, isSubset, spread, type ToolSpread, type Violation } from './check/evaluate.js';
export { type ArgsMatcher, type CallRule, EMPTY_POLICY, type Policy, parsePolicy } from './check/policy.js';
export type { AgentRun, ToolCall } from './check/runs.js';
export { type ChangeClass, type DriftChange, type DriftFailOn, driftFails } from './drift/classes.js';
export { compareDefinitions } from './drift/compare.js';
export { DefinitionCollector, type DefinitionKind, type Definitions, KINDS } from './drift/definitions.js';
export { type LiveServer, listLive } from './drift/live.js';
export { type LoadedDefinitions, loadDefinitions } from './drift/load.js';
export { parseLock, renderLock } from './drift/lock.js';
export type { LintFinding } from './lint/finding.js';
export { type LintOptions, type LintResult, lintTrace } from './lint/lint-trace.js';
export { Linter, type RuleLevels } from './lint/linter.js';
export { type FindingLevel, LINT_RULES, type LintLevel, type LintRule } from './lint/rules.js';
export {
  calledTool,
  calledToolsInOrder,
  type MatcherResult,
  noProtocolErrors,
  type TraceSubject,
} from './matchers.js';
