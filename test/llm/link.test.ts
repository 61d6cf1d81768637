import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { linkRun } from '../../src/llm/link.js';
import { type LlmProxy, startLlmProxy } from '../../src/llm/proxy.js';
import { llmCalls, parseLines } from '../../src/llm/read.js';
import { compile } from '../../src/redact/compile.js';
import { redactorOf } from '../../src/redact/engine.js';
import { FileSink } from '../../src/sink/file.js';
import { loadTrace } from '../../src/trace/io.js';
import { newMeta } from '../../src/trace/meta.js';
import { collectExchanges } from '../../src/trace/pairing.js';
import { useCliHarness } from '../helpers/cli.js';
import { runAgent, scriptedModel, weatherServer } from './agent.js';
import { type FakeProvider, startFakeProvider } from './fake-provider.js';

const io = useCliHarness('tapedeck-llm-link-');
let provider: FakeProvider;
let proxy: LlmProxy;
let llmSink: FileSink;

beforeEach(async () => {
  provider = await startFakeProvider(scriptedModel);
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  llmSink = new FileSink({ path: join(io.dir, 'llm.jsonl'), redact: redactorOf(compiled) });
  proxy = await startLlmProxy({
    upstream: new URL(provider.url),
    sink: llmSink,
    meta: { ...newMeta({ label: 'llm', transport: 'http' }), kind: 'llm' },
    compiled,
    port: 0,
  });
});
afterEach(async () => {
  await proxy.close(0);
  await provider.close();
});

/** Runs the agent with its MCP session recorded to mcp.jsonl and its model calls to llm.jsonl. */
async function recordedRun(options: { stream?: boolean; sendIds?: boolean } = {}): Promise<string> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await weatherServer().connect(serverSide);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = recordTransport(clientSide, {
    file: join(io.dir, 'mcp.jsonl'),
    server: 'weather',
    redact: 'defaults',
  });
  await client.connect(transport);
  const model = new Anthropic({ apiKey: 'sk-ant-test', baseURL: proxy.url, maxRetries: 0 });
  const answer = await runAgent(model, client, 'Weather and time in Paris and Oslo?', options);
  await client.close();
  await transport.closed;
  await llmSink.close({ reason: 'producer_shutdown' });
  return answer;
}

async function linked() {
  const trace = await loadTrace(join(io.dir, 'mcp.jsonl'));
  const exchanges = collectExchanges(trace.entries.map((entry) => entry.line)).exchanges;
  const calls = llmCalls(parseLines(readFileSync(join(io.dir, 'llm.jsonl'), 'utf8')));
  return linkRun(calls, exchanges);
}

describe('one timeline of an agent run', () => {
  it('links each model tool call to the MCP call that carried it out, two tools twice each in other orders', async () => {
    const answer = await recordedRun({ stream: true });
    expect(answer).toBe('Summary: Paris: 18°C; Paris: 11:00; Oslo: 10:00; Oslo: 5°C');
    const run = await linked();
    expect(run.turns).toHaveLength(3);
    const pairs = run.turns.flatMap((turn) =>
      turn.tools.map((tool) => [
        tool.call.name,
        tool.call.input,
        tool.mcp?.request.params?.name,
        tool.mcp?.request.params?.arguments,
        tool.how,
      ]),
    );
    expect(pairs).toEqual([
      ['weather', { city: 'Paris' }, 'weather', { city: 'Paris' }, 'arguments'],
      ['clock', { city: 'Paris' }, 'clock', { city: 'Paris' }, 'arguments'],
      ['clock', { city: 'Oslo' }, 'clock', { city: 'Oslo' }, 'arguments'],
      ['weather', { city: 'Oslo' }, 'weather', { city: 'Oslo' }, 'arguments'],
    ]);
    // Every MCP tool call is claimed; what is left is the handshake and the tool listing.
    expect(run.unlinked.map((exchange) => exchange.method)).toEqual(['initialize', 'tools/list']);
  });

  it('links by the tool-call id in _meta when the client sends one', async () => {
    await recordedRun({ sendIds: true });
    const run = await linked();
    const tools = run.turns.flatMap((turn) => turn.tools);
    expect(tools.map((tool) => tool.how)).toEqual(['id', 'id', 'id', 'id']);
    for (const tool of tools) expect(tool.mcp?.request.params?._meta).toEqual({ toolCallId: tool.call.id });
  });

  it('show --llm prints model turns with their tool calls and MCP calls nested', async () => {
    await recordedRun();
    expect(await io.run(['show', join(io.dir, 'mcp.jsonl'), '--llm', join(io.dir, 'llm.jsonl')])).toBe(0);
    const out = io.stdout;
    expect(out).toContain('agent run: 3 model turns, 4 tool calls asked for, 4 linked to MCP calls');
    expect(out).toMatch(/model #1 anthropic\.messages claude-test-1 {2}in \d+ · out \d+ tokens/);
    expect(out).toMatch(
      /├─ weather \{"city":"Paris"\}\n.*→ .*tools\/call weather #\d+ \(weather\).*ok {2}\[by name and arguments\]/,
    );
    expect(out).toMatch(/mcp initialize #0/);
    // Model turns, tools and MCP rows in time order: the listing comes before the first model turn.
    expect(out.indexOf('tools/list')).toBeLessThan(out.indexOf('model #1'));
  });

  it('stats --llm gives per tool: calls, latency, tokens of results and of the schema', async () => {
    await recordedRun();
    expect(
      await io.run(['stats', join(io.dir, 'mcp.jsonl'), '--llm', join(io.dir, 'llm.jsonl'), '--json']),
    ).toBe(0);
    const cost = JSON.parse(io.stdout);
    expect(cost.turns).toBe(3);
    expect(cost.inputTokens).toBeGreaterThan(0);
    expect(cost.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(['clock', 'weather']);
    for (const tool of cost.tools) {
      expect(tool).toMatchObject({ asked: 2, linked: 2, errors: 0 });
      expect(tool.latencyMs.p95).toBeGreaterThanOrEqual(tool.latencyMs.p50);
      expect(tool.resultTokens).toBeGreaterThan(0);
      // Sent with each of the three turns.
      expect(tool.schemaTokens).toBeGreaterThan(tool.resultTokens);
    }
  });
});
