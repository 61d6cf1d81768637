/**
 * `tapedeck verify --upstream` re-drives each recorded MCP session in a live session of its own. HTTP recordings
 * hold one session (the SDK client), two (mcp-remote 0.15.1 opens a probe session before the real one) or three
 * (three calls of the Inspector CLI 1.0.3, which opens a session per call); a server refuses a second `initialize` in
 * one session, so sending them all down one session used to fail. Against the server as recorded every session is
 * clean; against a build whose `add` is off by one there is exactly one divergence, reported in the session that
 * called `add`.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecording } from '../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';
import { startLoopServer } from './http-server.js';
import { firstText, inspector1Http, mcpRemote, saveRecording, sdkStdio } from './peers.js';

let dir: string;
const cassettes: Record<string, string> = {};

/** Records what `drive` does against the recorded build, through the recording proxy. */
async function record(name: string, drive: (url: string) => Promise<void>): Promise<void> {
  const server = await startLoopServer('recorded');
  try {
    const recording = await startRecording(server.url);
    await drive(recording.proxy.url);
    await recording.stop();
    cassettes[name] = saveRecording(recording.sink, join(dir, `${name}.jsonl`));
  } finally {
    await server.stop();
  }
}

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-verify-sessions-');
  await record('sdk', async (url) => {
    const client = new Client({ name: 'loop-sdk-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
    expect(firstText(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe(
      'The sum of 2 and 3 is 5.',
    );
    await client.close();
  });
  await record('mcp-remote', async (url) => {
    await sdkStdio(mcpRemote(url, join(dir, 'auth')), async (client) => {
      await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
      await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    });
  });
  await record('inspector', async (url) => {
    for (const args of [
      ['--method', 'tools/list'],
      ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=hi'],
      ['--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', '--tool-arg', 'b=3'],
    ]) {
      const result = await inspector1Http(url, args);
      expect(
        result.code,
        `${args.join(' ')}: ${result.signal ?? ''} after ${result.ms} ms\n${result.stderr}`,
      ).toBe(0);
    }
  });
}, 120_000);
afterAll(() => removeTempDir(dir));

async function verify(cassette: string, build: 'recorded' | 'off-by-one', flags: string[] = []) {
  const server = await startLoopServer(build);
  try {
    const run = spawnTapedeck(['verify', cassette, '--upstream', server.url, ...flags]);
    const exit = await run.done;
    return { code: exit.code, stdout: exit.stdout.toString('utf8'), stderr: exit.stderr };
  } finally {
    await server.stop();
  }
}

describe.each([
  ['sdk', 1, 1],
  ['mcp-remote', 2, 2],
  ['inspector', 3, 3],
])('verify --upstream, a recording by %s (%i session(s))', (name, sessions, addSession) => {
  it('is clean against the server as recorded, every session in a live session of its own', async () => {
    const { code, stdout, stderr } = await verify(cassettes[name]!, 'recorded');
    expect(stderr).toBe('');
    const summary = stdout.trim().split('\n').at(-1)!;
    expect(summary).toMatch(
      sessions === 1
        ? /^verified \d+ exchanges: (\d+) match, 0 differ$/
        : new RegExp(`^verified \\d+ exchanges in ${sessions} sessions: \\d+ match, 0 differ$`),
    );
    expect(code).toBe(0);
  });

  it('finds the one divergence of the changed build, in the session that called add', async () => {
    const { code, stdout } = await verify(cassettes[name]!, 'off-by-one', ['--json']);
    const report = JSON.parse(stdout) as {
      summary: { differ: number; sessions: number };
      exchanges: {
        session: number;
        request: string;
        status: string;
        diff?: { entries: { path: string }[] };
      }[];
    };
    expect(report.summary.sessions).toBe(sessions);
    const differ = report.exchanges.filter((x) => x.status === 'differ');
    expect(differ.map((x) => [x.session, x.request])).toEqual([[addSession, 'tools/call add {"a":2,"b":3}']]);
    expect(differ[0]!.diff!.entries.map((e) => e.path)).toEqual(['$.result.content[0].text']);
    expect(code).toBe(1);
  });
});
