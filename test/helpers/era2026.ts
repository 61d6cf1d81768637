/**
 * A 2026-07-28-era server for tests: the real v2 `McpServer` (`@modelcontextprotocol/server`) with one `echo` tool,
 * its web-standard handler behind node:http on an ephemeral port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

export interface EraEchoServer {
  /** Its MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

function build(name: string): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Echo text back',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      }),
    },
    async (args) => ({ content: [{ type: 'text', text: `echo: ${(args as { text: string }).text}` }] }),
  );
  return server;
}

/** Starts the server; `name` is its serverInfo name. */
export async function startEraEchoServer(name: string): Promise<EraEchoServer> {
  const handler = createMcpHandler(() => build(name));
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(key, value);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
