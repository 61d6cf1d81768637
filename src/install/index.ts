/**
 * `mcp-tapedeck/install`: wrapping and unwrapping the servers of MCP client configs (Claude Code, Claude Desktop,
 * Cursor, VS Code, Windsurf, Gemini CLI, Antigravity, Codex) with `tapedeck record`. runInstall plans, reports
 * and (unless a dry run) writes; config parsing, encodings, markers and each client's paths are internal.
 */
export { type FileOutcome, type RunOptions, runInstall } from './apply.js';
export { currentTapedeck, type TapedeckCommand } from './command.js';
export type {
  FilePlan,
  InstallMode,
  PlanOptions,
  RemotePolicy,
  ServerReport,
  ServerState,
} from './plan.js';
export {
  type ConfigLocation,
  type InstallEnv,
  type MapPath,
  TARGET_IDS,
  type TargetId,
} from './targets.js';
export type { ConfigProblem } from './text.js';
