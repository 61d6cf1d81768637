/**
 * tapedeck's own MCP server: recording and lookup tools for agents (shack-session-replay compatible), over stdio
 * or Streamable HTTP, storing trajectories as tapedeck traces.
 */
export { diffTrajectories, type TrajectoryDiff } from './diff.js';
export { type McpHttpOptions, type McpHttpServer, serveMcpHttp } from './http.js';
export { type LookupArgs, type LookupResult, lookupResponse } from './lookup.js';
export { checkName, MAX_NAME_LENGTH, nameProblem } from './names.js';
export { TrajectoryRecorder } from './recorder.js';
export {
  createMcpServer,
  createTrajectoryService,
  MCP_INSTRUCTIONS,
  serveMcpStdio,
  type TrajectoryServiceOptions,
} from './server.js';
export { defaultDataDir, type TrajectoryFile, TrajectoryStore } from './store.js';
export { registerTrajectoryTools, type TrajectoryService } from './tools.js';
