/**
 * `tapedeck replay --http` answers what is not MCP as the recording says. mcp-remote 0.15.1 probes for OAuth
 * metadata (`/.well-known/oauth-protected-resource`, `oauth-authorization-server`, `openid-configuration`) before it
 * speaks MCP; server-everything answers 404 to each, and the replay must too — not 400 as if they were MCP
 * requests without a session.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpAnswerCollector } from '../../src/replay/cassette/http-answers.js';
import type { TraceLine } from '../../src/trace/types.js';
import { type RunningEverything, startEverything, startRecording } from '../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../helpers/peers.js';
import { rawRequest, startHttpReplay } from '../replay/serve/http/helpers.js';
import { firstText, mcpRemote, saveRecording, sdkStdio } from './peers.js';

let dir: string;
let everything: RunningEverything;
let cassette: string;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-non-mcp-');
  everything = await startEverything('streamableHttp');
  const recording = await startRecording(`${everything.origin}/mcp`);
  const echoed = await sdkStdio(mcpRemote(`${recording.proxy.url}`, join(dir, 'auth')), async (client) =>
    firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
  );
  expect(echoed).toBe('Echo: hi');
  await recording.stop();
  cassette = saveRecording(recording.sink, join(dir, 'remote.jsonl'));
});
afterAll(async () => {
  await everything?.stop();
  await removeTempDir(dir);
});

describe('replay --http on paths that are not MCP', () => {
  it("serves mcp-remote's OAuth probes the recorded 404, so its session replays with nothing refused", async () => {
    const replay = await startHttpReplay(cassette, ['--allow-unused']);
    const echoed = await sdkStdio(mcpRemote(replay.url, join(dir, 'auth-replay')), async (client) =>
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
    );
    expect(echoed).toBe('Echo: hi');
    const probe = await rawRequest(
      replay.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'),
      {
        method: 'GET',
      },
    );
    expect(probe.status).toBe(404);
    const { code, stderr } = await replay.stop();
    expect(stderr).not.toMatch(/refused GET \/\.well-known/);
    expect(code).toBe(0);
  });

  it('answers a /.well-known/ document the recording never asked for with 404, and MCP paths stay MCP', async () => {
    const replay = await startHttpReplay(cassette, ['--allow-unused']);
    const other = await rawRequest(replay.url.replace(/\/mcp$/, '/.well-known/never-asked'), {
      method: 'GET',
    });
    expect(other.status).toBe(404);
    // A GET on the MCP path without a session is what the server itself refused with 400.
    const mcp = await rawRequest(replay.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(mcp.status).toBe(400);
    await replay.stop();
  });
});

describe('HttpAnswerCollector', () => {
  const t = '2026-01-01T00:00:00.000Z';
  const http = (stream: string, fields: Record<string, unknown>): TraceLine =>
    ({ t, type: 'http', conn: stream, stream, headers: {}, ...fields }) as TraceLine;

  it('keeps the first answer per method and path on exchanges that carried no message, with its content type', () => {
    const collector = new HttpAnswerCollector();
    const lines: TraceLine[] = [
      http('h1', { dir: 'in', method: 'GET', url: 'http://x/.well-known/oauth-protected-resource' }),
      http('h1', { dir: 'out', status: 404, headers: { 'content-type': 'text/html', date: 'today' } }),
      http('h2', { dir: 'in', method: 'POST', url: 'http://x/mcp?x=1' }),
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 0, method: 'ping' }, conn: 'h2', stream: 'h2' },
      http('h2', { dir: 'out', status: 200 }),
      // Later on the MCP path, an exchange without a message (a 202, a refused GET) is still MCP.
      http('h3', { dir: 'in', method: 'GET', url: 'http://x/mcp' }),
      http('h3', { dir: 'out', status: 405 }),
      http('h4', { dir: 'in', method: 'GET', url: 'http://x/.well-known/oauth-protected-resource' }),
      http('h4', { dir: 'out', status: 500 }),
    ];
    for (const line of lines) collector.push(line);
    expect(collector.finish()).toEqual([
      {
        method: 'GET',
        path: '/.well-known/oauth-protected-resource',
        status: 404,
        headers: { 'content-type': 'text/html' },
      },
    ]);
  });
});
