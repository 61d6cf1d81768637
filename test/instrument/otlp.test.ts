import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrument } from '../../src/instrument/index.js';
import { linkClient, type Receiver, startReceiver } from './helpers.js';

/** OTLP/JSON as the receiver gets it (the parts these tests read). */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}
interface OtlpBody {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

function attributes(list: { key: string; value: OtlpValue }[]): Record<string, string | undefined> {
  return Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? String(value.intValue)]));
}

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('instrument: OpenTelemetry spans over OTLP/HTTP', () => {
  it('exports a SERVER span per request named after method and target, with the MCP attributes and the client parent', async () => {
    receiver = await startReceiver();
    const server = new McpServer({ name: 'otel-demo', version: '4.5.6' });
    server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('fail', {}, async () => ({
      content: [{ type: 'text', text: 'bad' }],
      isError: true,
    }));
    server.registerPrompt('greet', {}, () => ({ messages: [] }));
    server.registerResource('readme', 'file:///readme.md', {}, async (uri) => ({
      contents: [{ uri: uri.href, text: 'r' }],
    }));
    const errors: string[] = [];
    const recorder = instrument(server, {
      to: {
        type: 'otlp',
        url: `${receiver.url}/v1/traces`,
        headers: { 'x-otlp-key': 'k1' },
        content: 'all',
      },
      release: '2026.11.30',
      flushInterval: 60_000,
      onError: (e) => errors.push(e.message),
    });
    const client = await linkClient(server);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    await client.callTool({
      name: 'add',
      arguments: { a: 2, b: 3 },
      _meta: { traceparent: `00-${traceId}-${parentSpanId}-01`, tracestate: 'vendor=x' },
    });
    await client.callTool({ name: 'fail', arguments: {} });
    await client.getPrompt({ name: 'greet' });
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow();
    await client.readResource({ uri: 'file:///readme.md' });
    await recorder.shutdown();
    expect(errors).toEqual([]);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.url).toBe('/v1/traces');
    expect(request?.headers['content-type']).toContain('application/json');
    expect(request?.headers['x-otlp-key']).toBe('k1');
    const body = JSON.parse(request!.body) as OtlpBody;
    const resource = attributes(body.resourceSpans[0]!.resource.attributes);
    expect(resource['service.name']).toBe('otel-demo');
    expect(resource['service.version']).toBe('2026.11.30');
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.map((s) => s.name)).toEqual([
      'initialize',
      'tools/call add',
      'tools/call fail',
      'prompts/get greet',
      'prompts/get nope',
      'resources/read file:///readme.md',
    ]);
    for (const span of spans) {
      expect(span.kind).toBe(2);
      expect(BigInt(span.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(span.startTimeUnixNano));
    }
    const [init, add, fail, greet, nope, read] = spans.map((s) => ({ span: s, a: attributes(s.attributes) }));

    expect(add?.span.traceId).toBe(traceId);
    expect(add?.span.parentSpanId).toBe(parentSpanId);
    expect(init?.span.traceId).not.toBe(traceId);
    expect(init?.span.parentSpanId ?? '').toBe('');
    expect(add?.a).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '1',
      'gen_ai.tool.call.arguments': '{"a":2,"b":3}',
      'gen_ai.tool.call.result': '{"content":[{"type":"text","text":"5"}]}',
    });
    expect(add?.a['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(add?.a['mcp.session.id']).toBe(init?.a['mcp.session.id']);
    expect(add?.a['error.type']).toBeUndefined();
    expect(add?.span.status?.code ?? 0).not.toBe(2);

    expect(fail?.a['error.type']).toBe('tool_error');
    expect(fail?.span.status?.code).toBe(2);
    expect(greet?.a['gen_ai.prompt.name']).toBe('greet');
    expect(nope?.a['error.type']).toBe('-32602');
    expect(nope?.a['rpc.response.status_code']).toBe('-32602');
    expect(nope?.span.status?.code).toBe(2);
    expect(read?.a['mcp.resource.uri']).toBe('file:///readme.md');
    await client.close();
  });

  it('leaves tool arguments and results out unless asked', async () => {
    receiver = await startReceiver();
    const server = new McpServer({ name: 'quiet', version: '1.0.0' });
    server.registerTool('add', { inputSchema: { a: z.number() } }, async ({ a }) => ({
      content: [{ type: 'text', text: String(a) }],
    }));
    const recorder = instrument(server, { to: { type: 'otlp', url: `${receiver.url}/v1/traces` } });
    const client = await linkClient(server);
    await client.callTool({ name: 'add', arguments: { a: 41 } });
    await recorder.flush();
    const body = JSON.parse(receiver.requests[0]!.body) as OtlpBody;
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const add = attributes(spans.find((s) => s.name === 'tools/call add')!.attributes);
    expect(add['gen_ai.tool.name']).toBe('add');
    expect(add['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(add['gen_ai.tool.call.result']).toBeUndefined();
    await client.close();
  });
});
