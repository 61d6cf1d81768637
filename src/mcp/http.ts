import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { listenOn } from '../base/listen.js';
import { duplicateHost } from '../base/local-names.js';
import { rejectForeign } from '../replay/serve/http/guard.js';
import { listenUrl } from '../replay/serve/http/options.js';
import { createMcpServer } from './server.js';
import type { TrajectoryService } from './tools.js';

/**
 * `tapedeck mcp --http HOST:PORT`: the same tools over Streamable HTTP (the SDK's transport, one per session, all
 * sharing one recorder). Requests whose Host or Origin is not this machine are refused (DNS rebinding).
 */

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Names accepted in Host / Origin besides localhost, 127.0.0.1 and ::1. */
  allowHosts?: readonly string[];
  /** The endpoint path (default `/mcp`). */
  path?: string;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const BAD_JSON = Symbol('bad JSON');

/**
 * @example const http = await serveMcpHttp(service, { host: '127.0.0.1', port: 0 }); console.error(http.url);
 */
export async function serveMcpHttp(
  service: TrajectoryService,
  options: McpHttpOptions,
): Promise<McpHttpServer> {
  const path = options.path ?? '/mcp';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      service.log(`HTTP request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) reply(res, 500, -32603, 'internal error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const duplicate = duplicateHost(req.rawHeaders);
    if (duplicate !== undefined) return reply(res, 400, -32600, `bad request: ${duplicate}`);
    const refused = rejectForeign(req.headers, options.allowHosts ?? []);
    if (refused !== undefined) return reply(res, 403, -32000, `refused: ${refused}`);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return reply(res, 404, -32000, `not found: the MCP endpoint is ${path}`);
    const sessionId = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body === BAD_JSON) return reply(res, 400, -32700, 'parse error: the request body is not JSON');
    if (id !== undefined) {
      const transport = sessions.get(id);
      if (transport === undefined) return reply(res, 404, -32001, `no session ${id}: initialize again`);
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return reply(res, 400, -32000, 'no Mcp-Session-Id: start with an initialize request');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createMcpServer(service).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const { port } = await listenOn(
    server,
    options.host,
    options.port,
    'pick another port with --http HOST:PORT',
  );
  return {
    url: listenUrl(options.host, port, path),
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return BAD_JSON;
  }
}
