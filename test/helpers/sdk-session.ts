/**
 * A small in-process session with the official SDK: a real McpServer (echo, a tool with progress, a tool that asks
 * the client to sample), a Client that answers sampling, and the calls a live and a replayed session both make.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageRequestSchema, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A small real server: echo, a tool with progress, a tool that asks the client to sample. */
export function makeServer(): McpServer {
  const server = new McpServer({ name: 'in-process', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `echo: ${message}` }],
  }));
  server.registerTool('count', { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= to; i++) {
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: to },
        });
    }
    return { content: [{ type: 'text', text: `counted to ${to}` }] };
  });
  server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }, extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 10 },
      },
      CreateMessageResultSchema,
    );
    return { content: [{ type: 'text', text: `the model said: ${JSON.stringify(answer.content)}` }] };
  });
  return server;
}

export function makeClient(version = '1.0.0'): { client: Client; sampled: string[] } {
  const client = new Client({ name: 'in-process-client', version }, { capabilities: { sampling: {} } });
  const sampled: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content;
    sampled.push(content && 'text' in content ? String(content.text) : '');
    return { model: 'canned', role: 'assistant', content: { type: 'text', text: 'forty-two' } };
  });
  return { client, sampled };
}

/** The calls both the live and the replayed session make. */
export async function session(client: Client) {
  const progress: number[] = [];
  return {
    tools: (await client.listTools()).tools.map((t) => t.name),
    echo: await client.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    count: await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    }),
    ask: await client.callTool({ name: 'ask', arguments: { question: 'meaning of life?' } }),
    progress,
  };
}
