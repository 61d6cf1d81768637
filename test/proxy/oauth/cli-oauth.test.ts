import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authSteps } from '../../../src/trace/auth-flow.js';
import type { TraceLine } from '../../../src/trace/types.js';
import { useCliHarness } from '../../helpers/cli.js';
import {
  connectWithOAuth,
  MemoryClientProvider,
  type ProtectedServer,
  startProtectedServer,
} from '../../helpers/oauth-peers.js';
import { type ProxyRun, readTrace, spawnTapedeck, waitFor } from '../../helpers/proxy.js';

const LISTENING = /^tapedeck: recording (http:\/\/127\.0\.0\.1:\d+\/mcp) → /m;

describe('tapedeck record --upstream in front of a server behind OAuth', () => {
  const io = useCliHarness('tapedeck-oauth-cli-');
  let run: ProxyRun | undefined;
  let server: ProtectedServer | undefined;
  afterEach(async () => {
    run?.child.kill('SIGKILL');
    await server?.close();
    run = undefined;
    server = undefined;
  });

  it('lets the SDK client sign in and call a tool; no secret of the flow reaches the trace or stderr', async () => {
    server = await startProtectedServer();
    const file = join(io.dir, 'oauth.jsonl');
    run = spawnTapedeck(['record', '--upstream', server.url, '--listen', '127.0.0.1:0', '--file', file]);
    await waitFor(() => LISTENING.test(run!.stderrSoFar()), 10_000, 'the listening line');
    const url = LISTENING.exec(run.stderrSoFar())![1]!;
    const provider = new MemoryClientProvider();
    const client = await connectWithOAuth(url, provider);
    expect((await client.callTool({ name: 'whoami' })).content).toEqual([
      { type: 'text', text: 'client client-1' },
    ]);
    await client.close();
    run.child.kill('SIGTERM');
    const exit = await run.done;
    expect(exit.code).toBe(0);
    expect(server.issued.resources).toEqual([server.url]);
    expect(exit.stderr).toContain(
      `tapedeck: note: OAuth sends the user's browser to the authorization server itself: ${server.origin}/authorize`,
    );
    const lines = readTrace(file);
    expect(authSteps(lines as TraceLine[]).map((step) => step.step)).toEqual(
      expect.arrayContaining(['challenge', 'resource-metadata', 'register', 'authorize', 'token', 'call']),
    );
    const secrets = [
      ...server.issued.codes,
      ...server.issued.accessTokens,
      ...server.issued.refreshTokens,
      ...server.issued.clientSecrets,
      provider.codeVerifier(),
    ];
    const trace = JSON.stringify(lines);
    for (const secret of secrets) {
      expect(trace).not.toContain(secret);
      expect(exit.stderr).not.toContain(secret);
    }
  });
});
