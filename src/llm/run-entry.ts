/**
 * `mcp-tapedeck/llm/run`: an agent's run read back — model calls paired from `llm` lines and linked to the MCP
 * `tools/call` exchanges that carried out their tool calls. Pure (no `node:` module), so a browser can use it: the
 * web viewer's Agent view imports it by this name.
 */
export { type LlmCall, llmCalls } from './calls.js';
export { type AgentRun, type AgentTurn, type LinkedToolCall, linkRun } from './link.js';
