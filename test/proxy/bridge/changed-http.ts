/**
 * A "new build" of an HTTP MCP server for verify tests: the official SDK's low-level Server over its Streamable
 * HTTP server transport, in this process on an ephemeral port. It lists one tool, `echo`, which shouts.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { HttpServer } from '../../helpers/http-peers.js';

function mcpServer(): Server {
  const server = new Server({ name: 'changed-http', version: '2.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'echo', description: 'Shouts back', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `ECHO: ${String(request.params.arguments?.message).toUpperCase()}` }],
  }));
  return server;
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text === '' ? undefined : JSON.parse(text));
    });
  });
}

/** Starts the server on 127.0.0.1 (port 0); one MCP session per `initialize`. */
export async function startChangedServer(): Promise<HttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => {
          sessions.set(session, transport!);
        },
      });
      await mcpServer().connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
