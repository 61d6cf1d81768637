/**
 * Real peers for the fixture-loop tests: clients nobody here wrote (the official SDK 1.x and v2 clients,
 * mcp-remote 0.15.1, the Inspector CLI 1.0.3) driving servers over stdio and Streamable HTTP, with or without
 * tapedeck in between. The Inspector's own package is not among them: every 2.x needs Node 22.19 or newer (and its
 * 0.x and 1.x 22.7.5), while tapedeck supports Node 20, where installing it made `npm ci` warn about engines.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { MemorySink } from '../../src/sink/memory.js';
import { type CommandLine, NODE_MODULES, type ProcessResult, runProcess } from '../helpers/peers.js';

export const MCP_REMOTE = join(NODE_MODULES, 'mcp-remote', 'dist', 'proxy.js');
export const INSPECTOR_1 = join(NODE_MODULES, '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');

/** `mcp-remote URL` as a stdio server command; its token store goes to `configDir`, never the home folder. */
export function mcpRemote(url: string, configDir: string): CommandLine & { env: Record<string, string> } {
  return {
    command: process.execPath,
    args: [MCP_REMOTE, url],
    env: { MCP_REMOTE_CONFIG_DIR: configDir },
  };
}

/**
 * The SDK 1.x client over stdio: connects to `target`, runs `calls`, closes. The environment is the SDK's default
 * one plus `env` (as a user passes it).
 */
export async function sdkStdio<T>(
  target: CommandLine & { env?: Record<string, string> },
  calls: (client: Client) => Promise<T>,
): Promise<T> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    stderr: 'ignore',
    ...(target.env
      ? { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...target.env } }
      : {}),
  });
  const client = new Client({ name: 'tapedeck-loop', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await calls(client);
  } finally {
    await client.close();
  }
}

/** One Inspector CLI 1.0.3 call against a Streamable HTTP URL (a session of its own per call). */
export function inspector1Http(url: string, methodArgs: string[]): Promise<ProcessResult> {
  // About 2 s a call on a quiet machine; a loaded one (two cores shared by CI's parallel files) can take far longer.
  return runProcess(process.execPath, [INSPECTOR_1, url, '--transport', 'http', ...methodArgs], {
    cwd: NODE_MODULES,
    timeoutMs: 90_000,
  });
}

/** Writes what an in-process recording proxy kept (a MemorySink) to `path`. */
export function saveRecording(sink: MemorySink, path: string): string {
  writeFileSync(path, sink.text.join(''), { mode: 0o600 });
  return path;
}

/** The text of a tool result's first content item. */
export function firstText(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content;
  return content?.[0]?.text ?? '';
}
