/**
 * A small Streamable HTTP MCP server on the official SDK 1.x (`McpServer`), in this process on an ephemeral port,
 * one MCP session per `initialize` — in two builds: as recorded, and a "new build" whose `add` is off by one. What
 * verify must find against the second is exactly one divergence, in the session that called `add`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface LoopHttpServer {
  url: string;
  stop(): Promise<void>;
}

function build(offByOne: boolean): McpServer {
  const server = new McpServer({ name: 'loop-http', version: offByOne ? '1.1.0' : '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the message', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b + (offByOne ? 1 : 0)}.` }],
    }),
  );
  return server;
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** Starts a build on 127.0.0.1:0; every path is the MCP endpoint except `/.well-known/…` (404). */
export async function startLoopServer(build_: 'recorded' | 'off-by-one'): Promise<LoopHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    if (req.url?.startsWith('/.well-known/')) {
      res.writeHead(404).end();
      return;
    }
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => {
          sessions.set(session, fresh);
        },
      });
      transport = fresh;
      await build(build_ === 'off-by-one').connect(fresh);
    }
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
