/**
 * The stdio bridge signs in by itself: the official SDK client speaks stdio to `record --upstream URL --stdio`,
 * the upstream is a protected server built from the SDK's auth pieces, and the test plays the user's browser by
 * following the URL the bridge prints with fetch, back to the bridge's loopback listener. The sign-in is kept
 * (0600 in a 0700 folder) and refreshed on the next run; no secret of the flow reaches the trace or stderr.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProtectedServer, startProtectedServer } from '../../helpers/oauth-peers.js';
import { makeTempDir, readTrace, removeTempDir, TAPEDECK_BIN } from '../../helpers/peers.js';

let dir: string;
let server: ProtectedServer;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-bridge-oauth-');
  server = await startProtectedServer();
});

afterAll(async () => {
  await server?.close();
  await removeTempDir(dir);
});

/** Follows an authorization URL as a browser would, until the redirect reaches the bridge's callback. */
async function signIn(url: string): Promise<string> {
  let next = url;
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(next, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (location === null) return `${res.status} ${await res.text()}`;
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

/** One bridged session: connect, call whoami, close; what the client got, stderr and the trace. */
async function session(trace: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAPEDECK_BIN, 'record', '--upstream', server.url, '--stdio', '--file', trace],
    env: { ...process.env, TAPEDECK_HOME: join(dir, 'home') } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  const callback: Promise<string>[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const url = /: open (http\S+)/.exec(stderr)?.[1];
    if (url !== undefined && callback.length === 0) callback.push(signIn(url));
  });
  const client = new Client({ name: 'bridge-oauth', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  const landed = await Promise.all(callback);
  return { result, stderr, landed, lines: readTrace(trace), text: readFileSync(trace, 'utf8') };
}

const secretsOf = (s: ProtectedServer) => [
  ...s.issued.accessTokens,
  ...s.issued.refreshTokens,
  ...s.issued.codes,
  ...s.issued.clientSecrets,
];

describe('the stdio bridge as an OAuth client', () => {
  it('signs in through the browser, calls the tool with a token for the upstream, and hides every secret', async () => {
    const first = await session(join(dir, 'first.jsonl'));
    expect(first.result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    expect(first.landed).toEqual([expect.stringMatching(/^200 Signed in/)]);
    expect(server.issued.resources).toEqual([server.url]);
    const steps = first.lines.flatMap((line) =>
      line.type === 'event' && line.name === 'oauth' ? [`${line.step} ${line.ok}`] : [],
    );
    expect(steps).toEqual(
      expect.arrayContaining([
        'challenge true',
        'resource-metadata true',
        'server-metadata true',
        'register true',
        'authorize true',
        'token true',
        'call true',
      ]),
    );
    expect(steps.indexOf('challenge true')).toBe(0);
    expect(first.text).toContain('[REDACTED:oauth-access-token:');
    for (const secret of secretsOf(server)) {
      expect(first.text).not.toContain(secret);
      expect(first.stderr).not.toContain(secret);
    }

    const folder = join(dir, 'home', 'oauth');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    expect(statSync(join(folder, files[0]!)).mode & 0o777).toBe(0o600);
  }, 30_000);

  it('starts the next run signed in and refreshes the expired token without the browser', async () => {
    server.expireTokens();
    const second = await session(join(dir, 'second.jsonl'));
    expect(second.result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    expect(second.stderr).not.toContain(': open ');
    expect(server.issued.resources).toEqual([server.url, server.url]);
    const steps = second.lines.flatMap((line) =>
      line.type === 'event' && line.name === 'oauth' ? [`${line.step} ${line.ok}`] : [],
    );
    expect(steps[0]).toBe('call false');
    expect(steps).toContain('refresh true');
    expect(steps.at(-1)).toBe('call true');
    for (const secret of secretsOf(server)) {
      expect(second.text).not.toContain(secret);
      expect(second.stderr).not.toContain(secret);
    }
  }, 30_000);
});
