/**
 * The official SDK client connected over stdio to `node dist/cli/bin.js mcp --data-dir <dir>`, as an agent's host
 * would start it, with a home of its own so no test touches the real ~/.tapedeck.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, TAPEDECK_BIN } from '../helpers/peers.js';

export interface McpPeer {
  client: Client;
  transport: StdioClientTransport;
  /** The server's pid (to kill it the hard way). */
  pid: number;
  stderr(): string;
  /** Calls a tool; the first text block and whether it was an error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** Calls a tool that answers JSON text and parses it. */
  json<T = unknown>(name: string, args?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** The environment a spawned `tapedeck mcp` gets: the test's home, no user redaction config. */
export function isolatedEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env.HOME = home;
  env.TAPEDECK_HOME = join(home, '.tapedeck');
  env.XDG_CONFIG_HOME = join(home, '.config');
  delete env.TAPEDECK_REDACT;
  return env;
}

export async function startMcp(dataDir: string, home: string, extraArgs: string[] = []): Promise<McpPeer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAPEDECK_BIN, 'mcp', '--data-dir', dataDir, ...extraArgs],
    env: isolatedEnv(home),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'tapedeck-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text?: string }[];
    return { text: content[0]?.text ?? '', isError: result.isError === true };
  };
  return {
    client,
    transport,
    pid: transport.pid ?? -1,
    stderr: () => stderr,
    call,
    async json<T>(name: string, args: Record<string, unknown> = {}) {
      const { text, isError } = await call(name, args);
      if (isError) throw new Error(`${name} failed: ${text}`);
      return JSON.parse(text) as T;
    },
    close: () => client.close(),
  };
}
