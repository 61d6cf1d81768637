/**
 * The 2026-07-28 routing-header rules against the real v2 SDK: its client sends `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers the tool's `x-mcp-header` annotations ask for, through the recording proxy to its server, and
 * lint of that trace finds nothing; the same trace with a header changed on the way is a finding.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Linter } from '../../src/gates/lint/linter.js';
import type { TraceLine } from '../../src/trace/types.js';
import { type RecordingProxy, startRecording } from '../helpers/http-proxy.js';

/** `x-mcp-header` is an extension keyword, not in the SDK's JSON Schema type: the schema is plain data. */
const LOOKUP_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    key: { type: 'string' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
  },
  required: ['key'],
};

function build(): McpServer {
  const server = new McpServer({ name: 'routed', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'lookup',
    {
      description: 'Looks a key up in a region',
      inputSchema: fromJsonSchema(LOOKUP_SCHEMA as Parameters<typeof fromJsonSchema>[0]),
    },
    async (args) => ({ content: [{ type: 'text', text: `found ${(args as { key: string }).key}` }] }),
  );
  return server;
}

let lines: TraceLine[];
let recording: RecordingProxy | undefined;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const handler = createMcpHandler(() => build());
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(key, value);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  close = async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  recording = await startRecording(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const client = new Client(
    { name: 'routing', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(recording.proxy.url)));
  await client.listTools();
  await client.callTool({ name: 'lookup', arguments: { region: 'zürich', key: 'k1', limit: 3 } });
  await client.callTool({ name: 'lookup', arguments: { key: 'k2' } });
  await client.close();
  await recording.stop();
  lines = recording.sink.lines;
});

afterAll(async () => {
  await recording?.stop();
  await close?.();
});

async function lint(trace: TraceLine[]) {
  const linter = new Linter({ 'jsonrpc/unanswered': 'off' });
  for (const [i, line] of trace.entries()) await linter.push(line, 'trace.jsonl', i + 1);
  return linter.finish();
}

describe('routing headers of the v2 SDK client, linted', () => {
  it('the client mirrors the annotated arguments into Mcp-Param-* headers, and lint agrees with every header', async () => {
    const sent = lines.flatMap((line) => (line.type === 'http' && line.dir === 'in' ? [line.headers] : []));
    const call = sent.find((h) => h['mcp-param-region'] !== undefined);
    expect(call).toMatchObject({ 'mcp-method': 'tools/call', 'mcp-name': 'lookup', 'mcp-param-limit': '3' });
    // A value that is not plain ASCII rides base64-encoded.
    expect(call?.['mcp-param-region']).toBe(`=?base64?${Buffer.from('zürich').toString('base64')}?=`);
    expect((await lint(lines)).filter((f) => f.rule === 'http/routing-header')).toEqual([]);
  });

  it('finds a header changed on the way', async () => {
    const changed = lines.map((line) =>
      line.type === 'http' && line.dir === 'in' && line.headers['mcp-param-limit'] !== undefined
        ? { ...line, headers: { ...line.headers, 'mcp-param-limit': '4' } }
        : line,
    );
    const findings = (await lint(changed)).filter((f) => f.rule === 'http/routing-header');
    expect(findings.map((f) => f.message)).toEqual([
      'the Mcp-Param-Limit header says "4" but the argument limit is 3',
    ]);
  });
});
