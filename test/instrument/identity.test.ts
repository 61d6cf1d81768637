import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import {
  httpMiddleware,
  type InstrumentOptions,
  instrument,
  type RequestEvent,
} from '../../src/instrument/index.js';
import { SessionTable } from '../../src/instrument/sessions.js';
import { eventsOf, linkClient, memoryEvents } from './helpers.js';

/** A node request as httpMiddleware sees it. */
function fakeRequest(headers: Record<string, string>, remoteAddress = '10.1.2.3'): IncomingMessage {
  return {
    method: 'POST',
    url: '/mcp',
    headers: { host: 'mcp.example.com', ...headers },
    socket: { remoteAddress },
  } as unknown as IncomingMessage;
}

/** Runs `call` as if it arrived on an HTTP request with these headers (the middleware's async context). */
function viaHttp<T>(req: IncomingMessage, call: () => Promise<T>, trustProxy = false): Promise<T> {
  return new Promise((resolve, reject) => {
    httpMiddleware({ trustProxy })(req, {}, () => {
      call().then(resolve, reject);
    });
  });
}

async function setup(options: Omit<InstrumentOptions, 'to'>, client?: { name: string; version: string }) {
  const kept = memoryEvents();
  const errors: string[] = [];
  const server = new McpServer({ name: 'who', version: '1.0.0' });
  server.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
  const recorder = instrument(server, {
    to: { type: 'sink', sink: kept.sink },
    onError: (e) => errors.push(e.message),
    ...options,
  });
  const connected = await linkClient(server, client === undefined ? {} : { client });
  return { kept, errors, recorder, client: connected };
}

const hello = (client: Client) => client.callTool({ name: 'hello', arguments: {} });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('instrument: who is calling', () => {
  it('takes the user from getUser, with the request context it needs', async () => {
    const seen: string[] = [];
    const { kept, recorder, client } = await setup({
      getUser: (ctx) => {
        seen.push(`${ctx.method} ${String(ctx.headers['x-user'] ?? '-')} ${ctx.peerAddress ?? '-'}`);
        const id = ctx.headers['x-user'];
        return typeof id === 'string'
          ? { id, email: `${id}@example.com`, traits: { plan: 'pro' } }
          : undefined;
      },
    });
    await viaHttp(fakeRequest({ 'x-user': 'ada' }), () => hello(client));
    await recorder.flush();
    const [call] = eventsOf(kept.events, 'tools/call', 'hello');
    expect(call?.identity).toEqual({ kind: 'user', key: 'ada' });
    expect(call?.user).toEqual({ id: 'ada', email: 'ada@example.com', traits: { plan: 'pro' } });
    expect(seen).toContain('tools/call ada 10.1.2.3');
    await client.close();
  });

  it('ignores a user without an id and says so once', async () => {
    const { kept, errors, recorder, client } = await setup({ getUser: () => ({ name: 'nobody' }) as never });
    await hello(client);
    await hello(client);
    await recorder.flush();
    expect(kept.events.every((e) => e.user === undefined && e.identity.kind === 'process')).toBe(true);
    expect(errors.filter((m) => m.includes('without an id'))).toHaveLength(1);
    await client.close();
  });

  it('falls back to the SHA-256 of the bearer token, and the token never leaves', async () => {
    const token = 'secret-bearer-token-12345';
    const { kept, recorder, client } = await setup({});
    await viaHttp(fakeRequest({ authorization: `Bearer ${token}`, 'user-agent': 'probe/1' }), () =>
      hello(client),
    );
    await recorder.flush();
    const [call] = eventsOf(kept.events, 'tools/call');
    expect(call?.identity).toEqual({ kind: 'token', key: sha256(token) });
    expect(call?.http?.headers?.authorization).toBe('[REDACTED:authorization-header]');
    expect(JSON.stringify(kept.events)).not.toContain(token);
    await client.close();
  });

  it("uses the SDK's authInfo token the same way (an authenticated transport)", async () => {
    const token = 'sdk-auth-token-67890';
    const kept = memoryEvents();
    const server = new McpServer({ name: 'who', version: '1.0.0' });
    server.registerTool('hello', {}, async () => ({ content: [] }));
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink } });
    const client = await linkClient(server, {
      authInfo: { token, clientId: 'app-7', scopes: ['read'] },
    });
    await hello(client);
    await recorder.flush();
    const [call] = eventsOf(kept.events, 'tools/call');
    expect(call?.identity).toEqual({ kind: 'token', key: sha256(token) });
    expect(call?.auth).toEqual({ clientId: 'app-7', scopes: ['read'] });
    expect(JSON.stringify(kept.events)).not.toContain(token);
    await client.close();
  });

  it('then to the client address and user agent; X-Forwarded-For only behind a trusted proxy', async () => {
    const { kept, recorder, client } = await setup({});
    const forwarded = { 'user-agent': 'probe/1', 'x-forwarded-for': '203.0.113.9, 10.0.0.1' };
    await viaHttp(fakeRequest(forwarded, '10.0.0.1'), () => hello(client));
    await viaHttp(fakeRequest(forwarded, '10.0.0.1'), () => hello(client), true);
    await recorder.flush();
    const [direct, proxied] = eventsOf(kept.events, 'tools/call');
    expect(direct?.http?.peerAddress).toBe('10.0.0.1');
    expect(proxied?.http?.peerAddress).toBe('203.0.113.9');
    expect(direct?.identity.kind).toBe('address');
    expect(proxied?.identity.kind).toBe('address');
    expect(direct?.identity.key).not.toBe(proxied?.identity.key);
    expect(direct?.http).toMatchObject({
      method: 'POST',
      url: 'http://mcp.example.com/mcp',
      userAgent: 'probe/1',
    });
    await client.close();
  });

  it('and finally to one random id per process (a stdio server has one caller)', async () => {
    const first = await setup({});
    const second = await setup({});
    await hello(first.client);
    await hello(second.client);
    await first.recorder.flush();
    await second.recorder.flush();
    const a = first.kept.events[0]?.identity;
    const b = second.kept.events[0]?.identity;
    expect(a?.kind).toBe('process');
    expect(a).toEqual(b);
    await first.client.close();
    await second.client.close();
  });
});

describe('instrument: sessions', () => {
  const sessionsOf = (events: RequestEvent[]) => events.map((e) => e.sessionId);

  it('groups by identity and client, and splits by identity even when getSessionId says the same', async () => {
    const { kept, recorder, client } = await setup({
      getUser: (ctx) => ({ id: String(ctx.headers['x-user'] ?? 'anon') }),
      getSessionId: (ctx) => (ctx.headers['x-user'] === undefined ? undefined : 'tenant-session'),
    });
    await viaHttp(fakeRequest({ 'x-user': 'ada' }), () => hello(client));
    await viaHttp(fakeRequest({ 'x-user': 'ada' }), () => hello(client));
    await viaHttp(fakeRequest({ 'x-user': 'bob' }), () => hello(client));
    await recorder.flush();
    const [ada1, ada2, bob] = sessionsOf(eventsOf(kept.events, 'tools/call'));
    expect(ada1).toBe('tenant-session');
    expect(ada2).toBe(ada1);
    expect(bob).not.toBe(ada1);
    expect(bob).toMatch(/^tenant-session~[0-9a-f]{8}$/);
    await client.close();
  });

  it('splits further by getSessionId, and by client name and version', async () => {
    const { kept, recorder, client } = await setup({
      getSessionId: (ctx) => (ctx.headers['x-conversation'] as string | undefined) ?? undefined,
    });
    await viaHttp(fakeRequest({ 'x-conversation': 'c1' }), () => hello(client));
    await viaHttp(fakeRequest({ 'x-conversation': 'c2' }), () => hello(client));
    await viaHttp(fakeRequest({ 'x-conversation': 'c1' }), () => hello(client));
    const other = await linkClient(
      (() => {
        const server = new McpServer({ name: 'who', version: '1.0.0' });
        server.registerTool('hello', {}, async () => ({ content: [] }));
        return recorder.instrument(server);
      })(),
      { client: { name: 'test-client', version: '2.0.0' } },
    );
    await hello(other);
    await recorder.flush();
    const ids = sessionsOf(eventsOf(kept.events, 'tools/call'));
    expect(ids.slice(0, 3)).toEqual(['c1', 'c2', 'c1']);
    const initializes = sessionsOf(eventsOf(kept.events, 'initialize'));
    expect(new Set(initializes).size).toBe(2);
    expect(ids[3]).toBe(initializes[1]);
    await client.close();
    await other.close();
  });

  it('ends a session after the idle time, and tells the sinks', () => {
    const ended: string[] = [];
    const table = new SessionTable(1000, (id) => ended.push(id));
    const client = { name: 'c', version: '1' };
    const first = table.resolve('user-1', client, undefined, 0);
    expect(table.resolve('user-1', client, undefined, 900)).toBe(first);
    expect(table.resolve('user-1', client, undefined, 1800)).toBe(first);
    const second = table.resolve('user-1', client, undefined, 3000);
    expect(second).not.toBe(first);
    expect(ended).toEqual([first]);
    expect(table.sweep(3500)).toBe(0);
    expect(table.sweep(4001)).toBe(1);
    expect(ended).toEqual([first, second]);
    expect(table.size).toBe(0);
  });

  it('ends idle sessions in a running recorder', async () => {
    const { kept, recorder, client } = await setup({ sessionIdleTimeout: 20 });
    await hello(client);
    await recorder.flush();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await hello(client);
    await recorder.flush();
    const [before, after] = eventsOf(kept.events, 'tools/call');
    expect(after?.sessionId).not.toBe(before?.sessionId);
    expect(kept.ended).toContain(before?.sessionId);
    await client.close();
  });
});
