import type { Attributes } from '@opentelemetry/api';
import type { OtlpContent, RequestEvent } from '../types.js';

/** Stable attributes of the OpenTelemetry semantic conventions used here. */
const ATTR_CLIENT_ADDRESS = 'client.address';
const ATTR_ERROR_TYPE = 'error.type';
const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
const ATTR_NETWORK_TRANSPORT = 'network.transport';
const ATTR_USER_AGENT_ORIGINAL = 'user_agent.original';

/**
 * The MCP attributes of the OpenTelemetry semantic conventions (still in development there, so spelled out here
 * rather than imported from the package's unstable entry point; this module loads none of OpenTelemetry).
 */
export const MCP_ATTRIBUTES = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  rpcStatusCode: 'rpc.response.status_code',
  userId: 'enduser.id',
} as const;

const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

/**
 * The span name: `{mcp.method.name} {target}`, or the method alone when the request has no target.
 *
 * @example spanName({ method: 'tools/call', target: 'echo' }) // 'tools/call echo'
 */
export function spanName(event: Pick<RequestEvent, 'method' | 'target'>): string {
  return event.target === undefined ? event.method : `${event.method} ${event.target}`;
}

/**
 * `error.type`: the JSON-RPC error code for an error response, `tool_error` for a tool result with
 * `isError: true`, nothing for success.
 */
export function errorType(event: RequestEvent): string | undefined {
  if (event.outcome === 'error' && event.error !== undefined) return String(event.error.code);
  if (event.outcome === 'tool_error') return 'tool_error';
  return undefined;
}

/** A span's attributes for one event; tool arguments and results only when `content` asks for them. */
export function spanAttributes(event: RequestEvent, content: OtlpContent): Attributes {
  const a: Attributes = {
    [MCP_ATTRIBUTES.methodName]: event.method,
    [MCP_ATTRIBUTES.sessionId]: event.sessionId,
    [MCP_ATTRIBUTES.requestId]: String(event.requestId),
  };
  if (event.protocolVersion !== undefined) a[MCP_ATTRIBUTES.protocolVersion] = event.protocolVersion;
  if (event.target !== undefined) {
    if (event.method === 'tools/call') {
      a[MCP_ATTRIBUTES.toolName] = event.target;
      a[MCP_ATTRIBUTES.operationName] = 'execute_tool';
    } else if (event.method === 'prompts/get') a[MCP_ATTRIBUTES.promptName] = event.target;
    else if (RESOURCE_METHODS.has(event.method)) a[MCP_ATTRIBUTES.resourceUri] = event.target;
  }
  const error = errorType(event);
  if (error !== undefined) a[ATTR_ERROR_TYPE] = error;
  if (event.outcome === 'error' && event.error !== undefined)
    a[MCP_ATTRIBUTES.rpcStatusCode] = String(event.error.code);
  if (event.transport === 'stdio') a[ATTR_NETWORK_TRANSPORT] = 'pipe';
  if (event.transport === 'http' || event.transport === 'sse') {
    a[ATTR_NETWORK_TRANSPORT] = 'tcp';
    a[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  }
  if (event.http?.peerAddress !== undefined) a[ATTR_CLIENT_ADDRESS] = event.http.peerAddress;
  if (event.http?.userAgent !== undefined) a[ATTR_USER_AGENT_ORIGINAL] = event.http.userAgent;
  if (event.user !== undefined) a[MCP_ATTRIBUTES.userId] = event.user.id;
  if (event.method === 'tools/call' && content !== 'none') {
    const args = (event.params as { arguments?: unknown } | undefined)?.arguments;
    if (args !== undefined) a[MCP_ATTRIBUTES.toolArguments] = JSON.stringify(args);
    if (content === 'all' && event.result !== undefined)
      a[MCP_ATTRIBUTES.toolResult] = JSON.stringify(event.result);
  }
  return a;
}
