/**
 * A small agent, as a user writes one: the official Anthropic client for the model, the official MCP client for
 * the tools. It asks the model, carries out every tool call through MCP, sends the results back, and stops when
 * the model answers in text. Also: the MCP server it talks to, and a scripted model for the fake provider.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { FakeReply } from './fake-provider.js';

/** Weather and local time for a city: two tools the model calls. */
export function weatherServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  const temps: Record<string, string> = { Paris: '18°C', Oslo: '5°C' };
  server.registerTool(
    'weather',
    { description: 'Weather in a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({
      content: [{ type: 'text', text: `${city}: ${temps[city] ?? 'unknown'}` }],
    }),
  );
  server.registerTool(
    'clock',
    { description: 'Local time in a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({
      content: [{ type: 'text', text: `${city}: ${city === 'Oslo' ? '10:00' : '11:00'}` }],
    }),
  );
  return server;
}

/**
 * What the model answers, from the conversation so far: two tools for Paris, the same two in the other order for
 * Oslo, then the final text built from the tool results it was sent.
 */
export function scriptedModel(_api: string, body: Record<string, unknown>): FakeReply {
  const messages = (body.messages as unknown[] | undefined) ?? [];
  if (messages.length === 1) {
    return {
      text: 'Checking Paris.',
      toolCalls: [
        { name: 'weather', input: { city: 'Paris' } },
        { name: 'clock', input: { city: 'Paris' } },
      ],
    };
  }
  if (messages.length === 3) {
    return {
      toolCalls: [
        { name: 'clock', input: { city: 'Oslo' } },
        { name: 'weather', input: { city: 'Oslo' } },
      ],
    };
  }
  const results = JSON.stringify(messages).match(/(Paris|Oslo): [^"\\]+/g) ?? [];
  return { text: `Summary: ${results.join('; ')}` };
}

export interface AgentOptions {
  stream?: boolean;
  /** Name each MCP call by the model's tool-call id in `_meta.toolCallId`. */
  sendIds?: boolean;
}

/**
 * Runs the agent on one question; resolves to the model's final text.
 *
 * @example const answer = await runAgent(new Anthropic({ baseURL }), mcpClient, 'Weather in Paris and Oslo?');
 */
export async function runAgent(
  model: Anthropic,
  mcp: Client,
  question: string,
  options: AgentOptions = {},
): Promise<string> {
  const { tools } = await mcp.listTools();
  const defs: Anthropic.Tool[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question }];
  for (let turn = 0; turn < 10; turn += 1) {
    const request = { model: 'claude-test-1', max_tokens: 1024, tools: defs, messages };
    const message = options.stream
      ? await model.messages.stream(request).finalMessage()
      : await model.messages.create(request);
    messages.push({ role: 'assistant', content: message.content });
    if (message.stop_reason !== 'tool_use') {
      return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const result = await mcp.callTool({
        name: block.name,
        arguments: block.input as Record<string, unknown>,
        ...(options.sendIds ? { _meta: { toolCallId: block.id } } : {}),
      });
      const text = (result.content as { type: string; text?: string }[])
        .map((part) => part.text ?? '')
        .join('');
      results.push({ type: 'tool_result', tool_use_id: block.id, content: text });
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error('the agent did not finish in 10 turns');
}
