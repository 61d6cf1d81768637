/**
 * `verify --upstream URL` and `run --upstream URL` against server-everything over Streamable HTTP: a session
 * recorded over the bridge verifies against the live server and diverges against a changed one; run records
 * over HTTP, replays without any server, and in update mode forwards what the cassette lacks to the URL.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliHarness } from '../../helpers/cli.js';
import { bridged, freePort, type HttpServer, startEverything } from '../../helpers/http-peers.js';
import {
  type CommandLine,
  makeTempDir,
  readTrace,
  removeTempDir,
  rpc,
  TAPEDECK_BIN,
  traceParts,
} from '../../helpers/peers.js';
import { startChangedServer } from './changed-http.js';

let dir: string;
let everything: HttpServer;
/** initialize, tools/list and one echo, recorded over the bridge. */
let cassette: string;

async function echoes(target: CommandLine, messages: string[]): Promise<string[]> {
  const transport = new StdioClientTransport({ command: target.command, args: target.args, stderr: 'pipe' });
  const client = new Client({ name: 'upstream-cli', version: '1.0.0' });
  await client.connect(transport);
  const texts: string[] = [];
  for (const message of messages) {
    const result = await client.callTool({ name: 'echo', arguments: { message } });
    texts.push(JSON.stringify(result.content));
  }
  await client.close();
  return texts;
}

const tapedeck = (...args: string[]): CommandLine => ({
  command: process.execPath,
  args: [TAPEDECK_BIN, ...args],
});

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-upstream-cli-');
  everything = await startEverything('streamableHttp');
  cassette = join(dir, 'session.jsonl');
  const transport = new StdioClientTransport({ ...bridged(everything.url, cassette), stderr: 'pipe' });
  const client = new Client({ name: 'upstream-cli', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'recorded' } });
  await client.close();
}, 30_000);

afterAll(async () => {
  await everything?.stop();
  await removeTempDir(dir);
});

describe('tapedeck verify --upstream', () => {
  const io = useCliHarness('tapedeck-verify-upstream-');

  it('matches the live server the session was recorded from', async () => {
    expect(await io.run(['verify', cassette, '--upstream', everything.url])).toBe(0);
    expect(io.stdout).toContain('verified 3 exchanges: 3 match, 0 differ');
  });

  it('diverges, exit 1, against a changed server', async () => {
    const changed = await startChangedServer();
    try {
      expect(await io.run(['verify', cassette, '--upstream', changed.url, '--json'])).toBe(1);
      const report = JSON.parse(io.stdout) as {
        upstream: string;
        exchanges: { method: string; status: string }[];
      };
      expect(report.upstream).toBe(changed.url);
      const echo = report.exchanges.find((x) => x.method === 'tools/call');
      expect(echo?.status).toBe('differ');
    } finally {
      await changed.stop();
    }
  });

  it('names the unreachable upstream as the reason, exit 1', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/mcp`;
    expect(await io.run(['verify', cassette, '--upstream', nobody, '--timeout', '3000'])).toBe(1);
    expect(io.stdout).toContain(`cannot reach the upstream ${nobody}: connect ECONNREFUSED`);
  });

  it('refuses a server command and --upstream together, and --header without --upstream', async () => {
    expect(await io.run(['verify', cassette, '--upstream', everything.url, '--', 'node', 's.js'])).toBe(2);
    expect(io.stderr).toContain('verify takes a server command or --upstream URL, not both');
    io.stderr = '';
    expect(
      await io.run(['run', '--cassette', cassette, '--upstream', everything.url, '--', 'node', 's.js']),
    ).toBe(2);
    expect(io.stderr).toContain('run takes a server command or --upstream URL, not both');
    io.stderr = '';
    expect(await io.run(['run', '--cassette', cassette, '--header', 'X-A: b', '--', 'node', 's.js'])).toBe(2);
    expect(io.stderr).toBe('tapedeck: --header needs --upstream URL\n');
  });
});

describe('tapedeck run --upstream', () => {
  it('records over HTTP, then replays with no server, then updates from the URL', async () => {
    const file = join(dir, 'run.jsonl');
    const record = tapedeck('run', '--cassette', file, '--mode', 'record', '--upstream', everything.url);
    expect(await echoes(record, ['one'])).toEqual(['[{"type":"text","text":"Echo: one"}]']);
    expect(traceParts(readTrace(file)).meta).toMatchObject({ transport: 'http', url: everything.url });

    // Replay needs no upstream at all: a URL nobody listens on proves it.
    const replay = tapedeck(
      'run',
      '--cassette',
      file,
      '--mode',
      'replay',
      '--upstream',
      `http://127.0.0.1:${await freePort()}/mcp`,
    );
    expect(await echoes(replay, ['one'])).toEqual(['[{"type":"text","text":"Echo: one"}]']);

    const updated = join(dir, 'updated.jsonl');
    copyFileSync(file, updated);
    const update = tapedeck('run', '--cassette', updated, '--mode', 'update', '--upstream', everything.url);
    expect(await echoes(update, ['one', 'two'])).toEqual([
      '[{"type":"text","text":"Echo: one"}]',
      '[{"type":"text","text":"Echo: two"}]',
    ]);
    const calls = traceParts(readTrace(updated))
      .in.map(rpc)
      .filter((m) => m.method === 'tools/call')
      .map((m) => (m.params?.arguments as { message?: string } | undefined)?.message);
    expect(calls).toEqual(['one', 'two']);
    expect(readFileSync(updated, 'utf8')).not.toEqual(readFileSync(file, 'utf8'));
  }, 40_000);
});
