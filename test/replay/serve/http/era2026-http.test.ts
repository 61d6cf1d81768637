/**
 * The sessionless 2026-07-28 era over HTTP: the official v2 client (`@modelcontextprotocol/client` 2.4.0, pinned to
 * 2026-07-28, its Streamable HTTP transport) against `tapedeck replay --http` of a v2 session recorded over stdio.
 * No initialize and no session id; `server/discover` answered from the recorded session; results as JSON, as SSE
 * when progress comes first; a multi-round-trip tool answered round by round; a `subscriptions/listen` stream that
 * carries the `list_changed` another request caused; and the era's HTTP rules (GET 405, headers that must agree
 * with the body, no batches).
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../helpers/peers.js';
import { type HttpReplayProcess, rawRequest, startHttpReplay } from './helpers.js';

const ERA = '2026-07-28';
const CASSETTE = join(REPO_ROOT, 'test/fixtures/interop/era2026/era2026-stdio-sibling-session.jsonl');
const META = {
  'io.modelcontextprotocol/protocolVersion': ERA,
  'io.modelcontextprotocol/clientCapabilities': {},
};

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return rawRequest(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': ERA,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe('tapedeck replay --http in the 2026-07-28 era, with the v2 SDK client', () => {
  let replay: HttpReplayProcess | undefined;

  afterEach(async () => {
    await replay?.stop('SIGKILL');
    replay = undefined;
  });

  it('serves the whole recorded session, sessionless, and uses every exchange', async () => {
    replay = await startHttpReplay(CASSETTE);
    const client = new Client(
      { name: 'tapedeck-era2026-http', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: ERA } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return request.params.message.includes('region')
        ? { action: 'accept', content: { region: 'eu-west-1' } }
        : { action: 'accept', content: { confirm: true } };
    });
    const changed: unknown[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      changed.push(notification.params);
    });
    const transport = new StreamableHTTPClientTransport(new URL(replay.url));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe(ERA);
    expect(client.getServerVersion()).toEqual({ name: 'era-scratch-server', version: '0.0.1' });
    expect(transport.sessionId).toBeUndefined();

    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await names()).toEqual(['echo', 'deploy', 'slow', 'add_tool']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({
      content: [{ type: 'text', text: 'echo: hi' }],
    });
    expect(await client.callTool({ name: 'deploy', arguments: { env: 'prod' } })).toMatchObject({
      content: [{ type: 'text', text: 'Deployed to prod in eu-west-1 (era modern)' }],
    });
    expect(asked).toEqual(['Deploy to prod?', 'Which region?']);
    const progress: { progress: number; total?: number | undefined }[] = [];
    await client.callTool({ name: 'slow', arguments: {} }, { onprogress: (p) => progress.push(p) });
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await client.callTool({ name: 'add_tool', arguments: {} });
    const until = Date.now() + 3000;
    while (changed.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    // The notification came down the listen stream with the live subscription id.
    expect(changed).toEqual([{ _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen:0' } }]);
    expect(await names()).toEqual(['echo', 'deploy', 'slow', 'add_tool', 'extra']);
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await client.close();

    const { code, stderr } = await replay.stop();
    replay = undefined;
    expect(stderr).toContain(
      'tapedeck: note: server/discover not recorded; answered from the recorded session\n',
    );
    expect(stderr).toContain('tapedeck: replayed 9/9 exchanges\n');
    expect(stderr).not.toMatch(/miss|unused|timeout|dropped/);
    expect(code).toBe(0);
  });

  it('follows the era’s HTTP rules: JSON when nothing comes first, GET 405, headers that agree, no batches', async () => {
    replay = await startHttpReplay(CASSETTE, ['--allow-unused']);
    const list = { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: META } };

    const answered = await post(replay.url, list, { 'mcp-method': 'tools/list' });
    expect(answered.status).toBe(200);
    expect(answered.headers['content-type']).toBe('application/json');
    expect(answered.headers['mcp-session-id']).toBeUndefined();
    const body = JSON.parse(answered.body) as { id: unknown; result: { tools: { name: string }[] } };
    expect(body.id).toBe('a');
    expect(body.result.tools.map((tool) => tool.name)).toEqual(['echo', 'deploy', 'slow', 'add_tool']);

    const get = await rawRequest(replay.url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');

    const echo = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: META },
    };
    const mismatch = await post(replay.url, echo, { 'mcp-method': 'tools/call', 'mcp-name': 'nope' });
    expect(mismatch.status).toBe(400);
    expect(JSON.parse(mismatch.body)).toMatchObject({
      error: {
        code: -32020,
        message:
          'Bad Request: the request headers and body disagree: the Mcp-Name header names "nope" but the body names "echo"',
      },
    });

    // A name the client had to encode (=?base64?…?=) is compared decoded; a broken encoding is refused.
    const encoded = await post(replay.url, echo, {
      'mcp-method': 'tools/call',
      'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
    });
    expect(encoded.status).toBe(200);
    const broken = await post(replay.url, echo, {
      'mcp-method': 'tools/call',
      'mcp-name': '=?base64?ZW*o?=',
    });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body).error.message).toBe(
      'Bad Request: the Mcp-Name header is not a valid =?base64?…?= value: "=?base64?ZW*o?="',
    );

    const batch = await post(replay.url, [echo, list]);
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.body)).toMatchObject({ error: { code: -32600 } });

    const { code, stderr } = await replay.stop();
    replay = undefined;
    expect(stderr).toContain(
      'tapedeck: refused POST /mcp: 400 Bad Request: the request headers and body disagree',
    );
    expect(stderr).toContain('tapedeck: replayed 2/9 exchanges\n');
    expect(code).toBe(0);
  });
});
