/**
 * A wrapped entry really starts: the built `tapedeck install` wraps server-everything in a Cursor (JSON) and a Codex
 * (TOML) config, then the SDK client starts each entry's command line exactly as the client would and lists its
 * tools through the recorder, which writes the session down under the server's name.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVERYTHING_SERVER,
  makeTempDir,
  REPO_ROOT,
  readTrace,
  removeTempDir,
  TAPEDECK_BIN,
} from '../helpers/peers.js';
import { isolatedEnv } from '../mcp/mcp-peer.js';

interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

describe('an entry wrapped by tapedeck install', () => {
  let tmp: string;
  let traces: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-install-e2e-');
    traces = join(tmp, 'traces');
    const home = join(tmp, 'home');
    mkdirSync(join(home, '.cursor'), { recursive: true });
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.cursor', 'mcp.json'),
      `{\n  "mcpServers": {\n    "everything": {\n      "command": "node",\n      "args": [${JSON.stringify(EVERYTHING_SERVER)}, "stdio"],\n      "env": { "TAPEDECK_DIR": ${JSON.stringify(traces)} }\n    }\n  }\n}\n`,
    );
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      `[mcp_servers.everything_codex]\ncommand = "node"\nargs = [${JSON.stringify(EVERYTHING_SERVER)}, "stdio"]\nenv = { TAPEDECK_DIR = ${JSON.stringify(traces)} }\n`,
    );
    env = isolatedEnv(home);
    const result = spawnSync(process.execPath, [TAPEDECK_BIN, 'install', '--target', 'cursor,codex'], {
      cwd: tmp,
      env,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
  });

  afterAll(() => removeTempDir(tmp));

  async function start(entry: Entry, label: string): Promise<string[]> {
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(0, 6)).toEqual([
      join(REPO_ROOT, 'dist', 'cli', 'tapedeck.cjs'),
      'record',
      '--label',
      label,
      '--',
      process.execPath,
    ]);
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...env, ...(entry.env ?? {}) },
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'wrapped-entry-test', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    await client.close();
    return tools.map((tool) => tool.name);
  }

  it('starts from a JSON config and is recorded under its name', async () => {
    const config = JSON.parse(readFileSync(join(tmp, 'home', '.cursor', 'mcp.json'), 'utf8')) as {
      mcpServers: Record<string, Entry>;
    };
    const names = await start(config.mcpServers.everything!, 'everything');
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
  });

  it('starts from a TOML config', async () => {
    const config = parseToml(readFileSync(join(tmp, 'home', '.codex', 'config.toml'), 'utf8')) as unknown as {
      mcp_servers: Record<string, Entry>;
    };
    const names = await start(config.mcp_servers.everything_codex!, 'everything_codex');
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    // Both sessions were written down, each under its server's name, with the tools/list answer in it.
    const files = readdirSync(traces).sort();
    expect(files.map((file) => file.replace(/^.*-(everything(_codex)?)\.jsonl$/, '$1'))).toEqual([
      'everything',
      'everything_codex',
    ]);
    for (const file of files) {
      const lines = readTrace(join(traces, file));
      expect(lines[0]).toMatchObject({ type: 'meta', transport: 'stdio' });
      expect(JSON.stringify(lines)).toContain('"tools/list"');
    }
  });
});
