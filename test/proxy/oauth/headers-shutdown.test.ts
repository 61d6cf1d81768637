/**
 * Two edges of the OAuth gateway: which OAuth requests carry the user's `--header` values (those to the upstream's
 * own origin, never an Authorization, never a foreign authorization server), and shutdown waiting for an OAuth
 * exchange still out to its server (recorded whole when it finishes within the grace, as a 502 when cut short).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventLine } from '../../../src/trace/types.js';
import { type RecordingProxy, startRecording, startUpstream } from '../../helpers/http-proxy.js';

type Peer = Awaited<ReturnType<typeof startUpstream>>;
const peers: Peer[] = [];
let rec: RecordingProxy | undefined;
afterEach(async () => {
  await rec?.stop();
  rec = undefined;
  for (const peer of peers.splice(0)) await peer.close();
});

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

/**
 * An MCP server whose protected-resource metadata names an authorization server on another origin, whose token
 * endpoint answers when `release` is called (at once unless `hold`).
 */
async function peersWithForeignAuth(hold = false) {
  const seenUpstream: Seen[] = [];
  const seenAuth: Seen[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (!hold) release();
  let arrived: () => void = () => {};
  const tokenAsked = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const auth = await startUpstream((req, res) => {
    seenAuth.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', async () => {
      arrived();
      await released;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'issued-access', token_type: 'bearer' }));
    });
  });
  const upstream = await startUpstream((req, res) => {
    seenUpstream.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        resource: `http://${req.headers.host}/mcp`,
        authorization_servers: [`${auth.origin}/`],
      }),
    );
  });
  peers.push(upstream, auth);
  return { upstream, auth, seenUpstream, seenAuth, release, tokenAsked };
}

/** The proxy's mount of the foreign authorization server, read from the metadata it serves. */
async function mountOf(proxyUrl: string): Promise<string> {
  const origin = new URL(proxyUrl).origin;
  const res = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, {
    headers: { 'x-api-key': 'from-client' },
  });
  const doc = (await res.json()) as { authorization_servers: string[] };
  const mount = doc.authorization_servers[0]!;
  return mount.endsWith('/') ? mount : `${mount}/`;
}

const tokenRequest = (mount: string) =>
  fetch(`${mount}token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'Basic Y2xpZW50OnNlY3JldA==',
    },
    body: 'grant_type=authorization_code&code=the-code&code_verifier=the-verifier',
  });

const oauthEvents = (r: RecordingProxy) =>
  r.sink.lines.filter((line): line is EventLine => line.type === 'event' && line.name === 'oauth');

describe("the user's added headers on OAuth requests", () => {
  it('reach the upstream’s own origin (replacing the client’s), never as Authorization, never a foreign server', async () => {
    const peer = await peersWithForeignAuth();
    rec = await startRecording(`${peer.upstream.origin}/mcp`, {
      headers: { 'X-Api-Key': 'from-user', Authorization: 'Bearer meant-for-mcp' },
    });
    const mount = await mountOf(rec.proxy.url);
    const metadata = peer.seenUpstream.find((seen) => seen.path.startsWith('/.well-known/'));
    expect(metadata?.headers['x-api-key']).toBe('from-user');
    expect(metadata?.headers.authorization).toBeUndefined();

    const answer = await tokenRequest(mount);
    expect(answer.status).toBe(200);
    const token = peer.seenAuth.find((seen) => seen.path === '/token');
    expect(token?.headers['x-api-key']).toBeUndefined();
    expect(token?.headers.authorization).toBe('Basic Y2xpZW50OnNlY3JldA==');
    expect(JSON.stringify(rec.sink.lines)).not.toContain('meant-for-mcp');
  });
});

describe('shutdown and an OAuth exchange in flight', () => {
  it('waits for it within the grace: the client gets the answer and the trace the whole step before its end', async () => {
    const peer = await peersWithForeignAuth(true);
    rec = await startRecording(`${peer.upstream.origin}/mcp`);
    const mount = await mountOf(rec.proxy.url);
    const answer = tokenRequest(mount);
    await peer.tokenAsked;
    const closed = rec.proxy.close(10_000);
    // Later than the moment shutdown cuts the connections it is not waiting for.
    setTimeout(peer.release, 400);
    await closed;
    // Recorded by the time close resolves, so it comes before the trace's end line.
    // The last OAuth step recorded is the token request (the metadata read came first).
    const token = oauthEvents(rec).at(-1);
    expect(token).toMatchObject({ status: 200, ok: true });
    expect((await answer).status).toBe(200);
    const shutdown = rec.sink.lines.find((line) => line.type === 'event' && line.name === 'shutdown');
    expect(shutdown).toMatchObject({ open: 1 });
  });

  it('cuts it short when the grace runs out: a 502 to the client, recorded as a failed step', async () => {
    const peer = await peersWithForeignAuth(true);
    rec = await startRecording(`${peer.upstream.origin}/mcp`);
    const mount = await mountOf(rec.proxy.url);
    const answer = tokenRequest(mount);
    await peer.tokenAsked;
    await rec.proxy.close(50);
    expect((await answer).status).toBe(502);
    // The last OAuth step recorded is the token request (the metadata read came first).
    const token = oauthEvents(rec).at(-1);
    expect(token).toMatchObject({ status: 502, ok: false });
    expect(String(token?.reason)).toContain('the proxy is shutting down');
    peer.release();
  });
});
