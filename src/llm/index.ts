/**
 * `mcp-tapedeck/llm`: what an agent says to its model, recorded and replayed — the recording proxy, the replayer,
 * an LLM trace read back, and its model turns linked to the MCP calls that carried out their tool calls.
 */
export {
  type LlmCassette,
  type LlmCassetteMode,
  type LlmCassetteOptions,
  useLlmCassette,
} from './cassette.js';
export { type AgentRun, type AgentTurn, type LinkBasis, type LinkedToolCall, linkRun } from './link.js';
export type { LlmMiss } from './match.js';
export { LLM_PROXY_DEFAULTS, type LlmProxy, type LlmProxyOptions, startLlmProxy } from './proxy.js';
export { type LlmCall, llmCalls, readLlmCalls } from './read.js';
export { type LlmReplay, type LlmReplayOptions, startLlmReplay } from './replay.js';
export {
  apiOfPath,
  isLlmLine,
  type LlmApi,
  type LlmEvent,
  type LlmLine,
  type LlmRequestLine,
  type LlmResponseLine,
  type LlmSummary,
  type LlmToolCall,
  type LlmUsage,
} from './types.js';
