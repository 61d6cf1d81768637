/**
 * `mcp-tapedeck/mcp`: tapedeck's own MCP server — recording and lookup tools for agents (shack-session-replay
 * compatible), over stdio or Streamable HTTP, storing trajectories as tapedeck traces. registerTrajectoryTools adds
 * the tools to an McpServer of your own. The store, recorder, lookups and diffs behind the tools are internal.
 */

export { defaultDataDir } from '../base/paths.js';
export { type McpHttpOptions, type McpHttpServer, serveMcpHttp } from './http.js';
export {
  createMcpServer,
  createTrajectoryService,
  MCP_INSTRUCTIONS,
  type StdioServeOptions,
  serveMcpStdio,
  type TrajectoryServiceOptions,
} from './server.js';
export { registerTrajectoryTools, type TrajectoryService } from './tools.js';
