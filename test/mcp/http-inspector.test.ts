/**
 * The other ways in: the MCP Inspector CLI (a client we did not write) over stdio, and the SDK's Streamable HTTP
 * client against `tapedeck mcp --http`, whose listener refuses requests that do not name this machine.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { serveMcpHttp } from '../../src/mcp/http.js';
import { createTrajectoryService } from '../../src/mcp/server.js';
import { memoryIo } from '../helpers/cli.js';
import { makeTempDir, removeTempDir, runInspector, TAPEDECK_BIN } from '../helpers/peers.js';

describe('tapedeck mcp with the MCP Inspector CLI', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-mcp-inspector-');
  });
  afterAll(() => removeTempDir(tmp));

  const server = () => ({
    command: process.execPath,
    args: [TAPEDECK_BIN, 'mcp', '--data-dir', join(tmp, 'trajectories')],
  });

  it('lists the tools and calls one', async () => {
    const listed = await runInspector(server(), ['--method', 'tools/list']);
    expect(listed.code).toBe(0);
    const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['start_recording', 'replay_lookup']));
    const called = await runInspector(server(), [
      '--method',
      'tools/call',
      '--tool-name',
      'start_recording',
      '--tool-arg',
      'name=from_inspector',
    ]);
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({
      content: [{ type: 'text', text: 'Recording started: from_inspector' }],
    });
  });
});

describe('tapedeck mcp --http', () => {
  let tmp: string;
  let http: Awaited<ReturnType<typeof serveMcpHttp>>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-mcp-http-');
    const service = createTrajectoryService({ dataDir: join(tmp, 'trajectories'), log: () => {} });
    http = await serveMcpHttp(service, { host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await http?.close();
    await removeTempDir(tmp);
  });

  it('records and looks up over Streamable HTTP with the SDK client', async () => {
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    const call = async (name: string, args: Record<string, unknown>) =>
      ((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]?.text;
    const request = { method: 'resources/read', params: { uri: 'file:///a.txt' } };
    expect(await call('start_recording', { name: 'over_http' })).toBe('Recording started: over_http');
    expect(await call('record_event', { request, response: { result: { contents: [] } } })).toBe(
      'Event recorded (total in session: 1)',
    );
    expect(await call('stop_recording', {})).toMatch(/^Recording 'over_http' saved with 1 event\(s\) at /);
    expect(
      JSON.parse((await call('replay_lookup', { trajectory: 'over_http', request })) ?? ''),
    ).toMatchObject({
      matched: true,
      response: { result: { contents: [] } },
    });
    await client.close();
  });

  it('refuses a Host or Origin that is not this machine', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    // node:http, not fetch: fetch will not send a Host header of the caller's choosing.
    const post = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          http.url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (s: string) => {
              body += s;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.once('error', reject);
        req.end(JSON.stringify(init));
      });
    const foreignHost = await post({ host: 'evil.example' });
    expect(foreignHost.status).toBe(403);
    expect(foreignHost.body).toContain("Host 'evil.example' is not allowed");
    const foreignOrigin = await post({ origin: 'https://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    // A page on another local port is another site: refused, unless --allow-host names it.
    const otherPort = await post({ origin: 'http://localhost:5173' });
    expect(otherPort.status).toBe(403);
    expect(otherPort.body).toContain("Origin 'http://localhost:5173' is not this server's own origin");
    expect((await post({ origin: new URL(http.url).origin })).status).toBe(200);
  });

  it('says what is wrong with its flags', async () => {
    const io = memoryIo();
    expect(await run(['mcp', '--allow-host', 'example.test'], io)).toBe(2);
    expect(await run(['mcp', '--http', 'localhost'], io)).toBe(2);
    expect(io.stderr.text).toContain('--allow-host needs --http HOST:PORT');
    expect(io.stderr.text).toContain(
      "--http must be HOST:PORT such as 127.0.0.1:8080 (port 0 picks a free one); got 'localhost'",
    );
  });
});
