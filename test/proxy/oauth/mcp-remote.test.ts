import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSteps } from '../../../src/trace/auth-flow.js';
import { type RecordingProxy, startRecording } from '../../helpers/http-proxy.js';
import { type ProtectedServer, startProtectedServer } from '../../helpers/oauth-peers.js';
import { REPO_ROOT } from '../../helpers/peers.js';

const MCP_REMOTE = join(REPO_ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

/** Plays the user's browser: follows the authorization URL's redirects through to mcp-remote's own callback. */
async function signIn(url: string): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 6; hop++) {
    const res = await fetch(next, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (location === null) return;
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

describe('mcp-remote through the recording proxy, signed in headless', () => {
  let server: ProtectedServer;
  let rec: RecordingProxy;
  beforeAll(async () => {
    server = await startProtectedServer();
    rec = await startRecording(server.url);
  });
  afterAll(async () => {
    await rec.stop();
    await server.close();
  });

  it('completes OAuth with the upstream issuing a token for its own URL, and calls a tool', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tapedeck-mcp-remote-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, rec.proxy.url, '--allow-http'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        MCP_REMOTE_CONFIG_DIR: join(home, 'auth'),
        BROWSER: 'false',
      },
      stderr: 'pipe',
    });
    let stderr = '';
    let signedIn: Promise<void> | undefined;
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1];
      if (url !== undefined && signedIn === undefined) signedIn = signIn(url);
    });
    const client = new Client({ name: 'mcp-remote-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      await signedIn;
      const result = await client.callTool({ name: 'whoami' });
      expect(result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    } finally {
      await client.close();
    }
    expect(server.issued.resources.length).toBeGreaterThan(0);
    expect(new Set(server.issued.resources)).toEqual(new Set([server.url]));
    const steps = authSteps(rec.sink.lines).map((step) => step.step);
    expect(steps).toEqual(
      expect.arrayContaining(['resource-metadata', 'register', 'authorize', 'token', 'call']),
    );
    const trace = JSON.stringify(rec.sink.lines);
    for (const secret of [
      ...server.issued.accessTokens,
      ...server.issued.codes,
      ...server.issued.refreshTokens,
    ]) {
      expect(trace).not.toContain(secret);
    }
  });
});
