import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintAuth } from '../../../src/trace/auth-lint.js';
import type { EventLine, TraceLine } from '../../../src/trace/types.js';
import { eventsOf, type RecordingProxy, startRecording } from '../../helpers/http-proxy.js';
import {
  connectWithOAuth,
  type Issued,
  MemoryClientProvider,
  type ProtectedServer,
  startProtectedServer,
} from '../../helpers/oauth-peers.js';

/** Every secret the authorization server issued, and the client's own, must be absent from the trace. */
function expectNoSecrets(lines: TraceLine[], issued: Issued, provider: MemoryClientProvider): void {
  const text = JSON.stringify(lines);
  const secrets = [
    ...issued.codes,
    ...issued.accessTokens,
    ...issued.refreshTokens,
    ...issued.clientSecrets,
    provider.codeVerifier(),
  ];
  expect(secrets.length).toBeGreaterThan(4);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

const steps = (lines: TraceLine[]) => eventsOf(lines, 'oauth').map((e) => e.step);
const stepOf = (lines: TraceLine[], step: string): EventLine[] =>
  eventsOf(lines, 'oauth').filter((e) => e.step === step);

describe('the SDK client and a protected SDK server', () => {
  let server: ProtectedServer;
  beforeAll(async () => {
    server = await startProtectedServer();
  });
  afterAll(() => server.close());

  it('complete OAuth directly and call a tool (the peers work without tapedeck)', async () => {
    const provider = new MemoryClientProvider();
    const client = await connectWithOAuth(server.url, provider);
    const result = await client.callTool({ name: 'whoami' });
    expect(result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    expect(server.issued.resources.at(-1)).toBe(server.url);
    await client.close();
  });

  describe('through the recording proxy', () => {
    let rec: RecordingProxy;
    let provider: MemoryClientProvider;
    beforeAll(async () => {
      rec = await startRecording(server.url);
      provider = new MemoryClientProvider();
      const client = await connectWithOAuth(rec.proxy.url, provider);
      const result = await client.callTool({ name: 'whoami' });
      expect(result.content).toEqual([{ type: 'text', text: 'client client-2' }]);
      await client.close();
    });
    afterAll(() => rec.stop());

    it('complete OAuth and call a tool; the upstream issues and accepts a token for its own URL', () => {
      expect(server.issued.resources.at(-1)).toBe(server.url);
      // The user was sent through the proxy's authorization endpoint on to the real one, resource mapped back.
      const [atProxy, atServer] = provider.visited;
      expect(new URL(atProxy!).searchParams.get('resource')).toBe(rec.proxy.url);
      expect(atServer!.startsWith(`${server.origin}/authorize?`)).toBe(true);
      expect(new URL(atServer!).searchParams.get('resource')).toBe(server.url);
    });

    it('records the flow step by step, from the challenge to the first authorised call', () => {
      const seen = steps(rec.sink.lines);
      const order = [
        'challenge',
        'resource-metadata',
        'server-metadata',
        'register',
        'authorize',
        'token',
        'call',
      ];
      const at = order.map((step) => seen.indexOf(step));
      expect(at.every((index, i) => index >= 0 && (i === 0 || index > at[i - 1]!))).toBe(true);
      for (const step of order) expect(seen).toContain(step);
      const [metadata] = stepOf(rec.sink.lines, 'resource-metadata');
      expect(metadata!.resource).toEqual({ asked: rec.proxy.url, upstream: server.url });
      const [token] = stepOf(rec.sink.lines, 'token');
      expect(token!.resource).toEqual({ asked: rec.proxy.url, sent: server.url });
      // A flow that worked gives the auth lint rules nothing to say.
      expect(lintAuth(rec.sink.lines)).toEqual([]);
    });

    it('hides every token, code, verifier and client secret as a stable hash that follows it across requests', () => {
      expectNoSecrets(rec.sink.lines, server.issued, provider);
      const [token] = stepOf(rec.sink.lines, 'token');
      const issued = (token!.response as Record<string, string>).access_token!;
      expect(issued).toMatch(/^\[REDACTED:oauth-access-token:[0-9a-f]{12}\]$/);
      const [call] = stepOf(rec.sink.lines, 'call');
      expect(call!.token).toBe(issued);
      const [register] = stepOf(rec.sink.lines, 'register');
      const secret = (register!.response as Record<string, string>).client_secret;
      expect((token!.request as Record<string, string>).client_secret).toBe(secret);
    });
  });
});

describe('an authorization server on an origin of its own', () => {
  let server: ProtectedServer;
  let rec: RecordingProxy;
  beforeAll(async () => {
    server = await startProtectedServer({ separateAuthServer: true });
    rec = await startRecording(server.url);
  });
  afterAll(async () => {
    await rec.stop();
    await server.close();
  });

  it('is mounted on the proxy, so registration and the token exchange pass it and the token fits the upstream', async () => {
    expect(server.authOrigin).not.toBe(server.origin);
    const provider = new MemoryClientProvider();
    const client = await connectWithOAuth(rec.proxy.url, provider);
    const result = await client.callTool({ name: 'whoami' });
    expect(result.content).toEqual([{ type: 'text', text: 'client client-1' }]);
    await client.close();
    expect(server.issued.resources).toEqual([server.url]);
    const proxyOrigin = new URL(rec.proxy.url).origin;
    expect(provider.visited[0]!.startsWith(`${proxyOrigin}/.tapedeck/oauth/0/authorize?`)).toBe(true);
    expect(provider.visited[1]!.startsWith(`${server.authOrigin}/authorize?`)).toBe(true);
    const seen = steps(rec.sink.lines);
    for (const step of ['server-metadata', 'register', 'authorize', 'token', 'call'])
      expect(seen).toContain(step);
    expectNoSecrets(rec.sink.lines, server.issued, provider);
  });
});
