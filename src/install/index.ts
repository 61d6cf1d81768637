/**
 * Wrapping and unwrapping the servers of MCP client configs (Claude Code, Claude Desktop, Cursor, VS Code,
 * Windsurf, Gemini CLI, Antigravity, Codex) with `tapedeck record`.
 */
export { BACKUP_SUFFIX, type FileOutcome, type RunOptions, runInstall, writeConfig } from './apply.js';
export {
  currentTapedeck,
  remoteArgs,
  resolveExecutable,
  stdioPrefix,
  type TapedeckCommand,
} from './command.js';
export { type ConfigEncoding, decodeConfig, encodeConfig } from './encoding.js';
export { classifyEntry, type EntryKind, MARKER_KEY, type Marker, parseMarker } from './entry.js';
export {
  type FilePlan,
  type InstallMode,
  type PlanOptions,
  planFile,
  type RemotePolicy,
  type ServerReport,
  type ServerState,
} from './plan.js';
export {
  appConfigHome,
  type ConfigLocation,
  claudeDesktopPath,
  claudeDesktopPaths,
  displayPath,
  type InstallEnv,
  parseTargets,
  TARGET_IDS,
  TARGETS,
  type TargetId,
  uniqueLocations,
} from './targets.js';
export { applyTextEdits, unifiedDiff } from './text.js';
