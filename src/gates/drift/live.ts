import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ServerStdioTransport } from '../../process/stdio-client.js';
import type { JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import { DefinitionCollector, type Definitions } from './definitions.js';

/** A server to ask: a command to start over stdio, or a Streamable HTTP endpoint. */
export type LiveServer =
  | { command: string; args: readonly string[]; env: Record<string, string | undefined>; cwd?: string }
  | { url: string };

const ANY_PAGE = z.looseObject({ nextCursor: z.string().optional() });

/** How long connecting and listing may take before drift gives up. */
export const LIVE_TIMEOUT_MS = 30_000;

/**
 * How long a listed server gets to exit once its stdin ends, and again once it is sent SIGTERM, before it is killed: the listing is done
 * and nothing it does then matters, so a server that waits for a signal (many do) does not hold the gate up.
 */
const GRACE_MS = 100;

/**
 * Starts (or reaches) a server, lists everything it declares — tools, prompts, resources, resource templates, every
 * page — and stops it. The answers are taken as they came off the wire (a tap below the SDK client), so they compare
 * with recordings byte for byte.
 *
 * @example const defs = await listLive({ command: 'node', args: ['server.js'], env: process.env });
 */
export async function listLive(
  server: LiveServer,
  asked: { capabilities?: JsonObject | undefined } = {},
): Promise<Definitions> {
  const collector = new DefinitionCollector();
  const inner: Transport =
    'url' in server
      ? new (
          await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
        ).StreamableHTTPClientTransport(new URL(server.url))
      : (new ServerStdioTransport({
          ...server,
          stderr: 'ignore',
          graceMs: GRACE_MS,
        }) as unknown as Transport);
  const t = () => new Date().toISOString();
  const tapped: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => {
      collector.push({ t: t(), dir: 'in', raw: message as unknown as Json });
      return inner.send(message, options);
    },
  };
  inner.onmessage = (message, extra) => {
    collector.push({ t: t(), dir: 'out', raw: message as unknown as Json });
    tapped.onmessage?.(message, extra);
  };
  inner.onerror = (error) => tapped.onerror?.(error);
  inner.onclose = () => tapped.onclose?.();
  // Servers offer some tools only to clients that declare a capability (server-everything's sampling, roots and
  // elicitation tools). Compared with a recording, the server is asked as the recorded client asked it, so a tool
  // offered only to another kind of client is not drift; otherwise every capability is declared, so the listing is
  // the fullest the server gives. Nothing is asked of them in the moment the listing takes.
  const capabilities = asked.capabilities ?? {
    sampling: {},
    roots: { listChanged: true },
    elicitation: {},
  };
  const client = new Client(
    { name: 'tapedeck-drift', version: '1' },
    { capabilities: capabilities as ClientCapabilities },
  );
  const options = { timeout: LIVE_TIMEOUT_MS };
  try {
    await client.connect(tapped, options);
    const caps = client.getServerCapabilities() ?? {};
    // Asked with a schema that takes any page: the definitions are compared as the server sent them, and one a
    // strict client would refuse (an inputSchema without "type": "object") is a change to report, not a crash.
    const pages = async (method: string) => {
      let cursor: string | undefined;
      do {
        const params = cursor === undefined ? {} : { cursor };
        cursor = (await client.request({ method, params }, ANY_PAGE, options)).nextCursor;
      } while (cursor !== undefined);
    };
    if (caps.tools) await pages('tools/list');
    if (caps.prompts) await pages('prompts/list');
    if (caps.resources) {
      await pages('resources/list');
      await pages('resources/templates/list');
    }
  } finally {
    await client.close();
  }
  return collector.result();
}
