/**
 * Starting and stopping server processes on every platform: what to run (PATH and PATHEXT on Windows), how to
 * quote for cmd.exe, how to stop a whole process tree, and which exit code to pass on.
 */
export { batchCommandLine, cmdArgs, escapeForCmd, quoteWindowsArg, SpawnPlanError } from './cmd-line.js';
export { describeExit, exitCodeFor, planStop, type StopPlan } from './exit.js';
export { commandProcessor, planSpawn, type SpawnPlan } from './plan.js';
export { type CommandContext, envValue, type ResolvedCommand, resolveCommand } from './resolve.js';
export {
  endTreeOnKill,
  isRunnableFile,
  NODE_HOST,
  type ProcessHost,
  type ServerSpawnOptions,
  serverExitCode,
  spawnServer,
} from './spawn.js';
export { type ServerStdioOptions, ServerStdioTransport } from './stdio-client.js';
