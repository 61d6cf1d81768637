import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LlmProxy, startLlmProxy } from '../../src/llm/proxy.js';
import { isLlmLine, type LlmRequestLine, type LlmResponseLine } from '../../src/llm/types.js';
import { compile } from '../../src/redact/compile.js';
import { redactorOf } from '../../src/redact/engine.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';
import { type FakeProvider, type FakeReply, startFakeProvider } from './fake-provider.js';

const ANTHROPIC_KEY = 'sk-ant-api03-Zx9vQ2mT7pL4kR8wN3bY6cH1dF5gJ0sA-secretpart';
const OPENAI_KEY = 'sk-proj-Qw8eR4tY2uI6oP0aS3dF7gH1jK5lZ9xC-secretpart';

const WEATHER: FakeReply = {
  text: 'Let me check.',
  toolCalls: [{ name: 'get_weather', input: { city: 'Paris', unit: 'C' } }],
};

let provider: FakeProvider;
let proxy: LlmProxy;
let sink: MemorySink;

beforeEach(async () => {
  provider = await startFakeProvider(() => WEATHER);
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  sink = new MemorySink({ redact: redactorOf(compiled) });
  proxy = await startLlmProxy({
    upstream: new URL(provider.url),
    sink,
    meta: newMeta({ label: 'llm', transport: 'http', url: provider.url }),
    compiled,
    port: 0,
  });
});

afterEach(async () => {
  await proxy.close(0);
  await provider.close();
});

/** The request and answer lines of each call, in call order, once the answers are recorded. */
async function calls(): Promise<{ request: LlmRequestLine; answer: LlmResponseLine }[]> {
  for (
    let i = 0;
    i < 50 &&
    (sink.lines as unknown[]).filter((l) => isLlmLine(l) && l.dir === 'out').length <
      provider.requests.length;
    i += 1
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const llm = (sink.lines as unknown[]).filter(isLlmLine);
  return llm
    .filter((line): line is LlmRequestLine => line.dir === 'in')
    .map((request) => ({
      request,
      answer: llm.find((line): line is LlmResponseLine => line.dir === 'out' && line.call === request.call)!,
    }));
}

const anthropic = () => new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: OPENAI_KEY, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
const tools = [
  {
    name: 'get_weather',
    description: 'Weather',
    input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
  },
];
const functions = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

describe('record --llm with the official clients', () => {
  it('records an Anthropic message, not streamed: model, usage, stop reason, tool call', async () => {
    const message = await anthropic().messages.create({
      model: 'claude-test-1',
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'get_weather',
      input: { city: 'Paris', unit: 'C' },
    });
    const [call] = await calls();
    expect(call!.request).toMatchObject({
      api: 'anthropic.messages',
      method: 'POST',
      path: '/v1/messages',
      model: 'claude-test-1',
    });
    expect(call!.answer).toMatchObject({
      status: 200,
      model: 'claude-test-1',
      stopReason: 'tool_use',
      usage: { input: 21, output: 7 },
      text: 'Let me check.',
      toolCalls: [{ id: 'toolu_1_0', name: 'get_weather', input: { city: 'Paris', unit: 'C' } }],
    });
    const sent = provider.requests[0]!.headers;
    expect(sent['x-api-key'] ?? sent.authorization).toMatch(ANTHROPIC_KEY);
  });

  it('records an Anthropic stream event by event, the tool call put together from input_json deltas', async () => {
    const stream = anthropic().messages.stream({
      model: 'claude-test-1',
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris', unit: 'C' } }),
    ]);
    const [call] = await calls();
    expect(call!.request.stream).toBe(true);
    expect(call!.answer.events!.map((e) => /^event: (\S+)/.exec(e.text)![1])).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(call!.answer).toMatchObject({
      stopReason: 'tool_use',
      usage: { input: 21, output: 7 },
      text: 'Let me check.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Paris', unit: 'C' } }],
    });
  });

  it('records OpenAI Chat Completions, streamed (usage chunk, [DONE]) and not', async () => {
    const client = openai();
    const plain = await client.chat.completions.create({
      model: 'gpt-test',
      tools: functions,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: 'get_weather' } });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      tools: functions,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Let me check.');
    const [first, second] = await calls();
    const expected = {
      api: 'openai.chat',
      model: 'gpt-test',
      stopReason: 'tool_calls',
      text: 'Let me check.',
      toolCalls: [{ name: 'get_weather', input: { city: 'Paris', unit: 'C' } }],
    };
    expect(first!.answer).toMatchObject({
      ...expected,
      usage: { input: 31, output: 7 },
      body: expect.any(Object),
    });
    expect(second!.answer).toMatchObject({ ...expected, usage: { input: 31, output: 7 } });
    expect(second!.answer.events!.at(-1)!.text).toBe('data: [DONE]\n\n');
  });

  it('records OpenAI Responses, streamed and not, function calls included', async () => {
    const client = openai();
    const plain = await client.responses.create({
      model: 'gpt-test',
      input: 'hi',
      tools: [{ type: 'function', name: 'get_weather', parameters: {}, strict: false }],
    });
    expect(plain.output_text).toBe('Let me check.');
    const stream = await client.responses.create({ model: 'gpt-test', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.completed');
    const [first, second] = await calls();
    for (const call of [first!, second!]) {
      expect(call.request.path).toBe('/v1/responses');
      expect(call.answer).toMatchObject({
        api: 'openai.responses',
        model: 'gpt-test',
        stopReason: 'tool_calls',
        text: 'Let me check.',
        toolCalls: [
          { id: expect.stringMatching(/^call_/), name: 'get_weather', input: { city: 'Paris', unit: 'C' } },
        ],
      });
    }
    expect(second!.answer.events!.length).toBe(types.length);
  });

  it('keeps other paths as plain HTTP exchanges', async () => {
    const models = await fetch(`${proxy.url}/v1/models`, {
      headers: { authorization: `Bearer ${OPENAI_KEY}` },
    });
    expect(await models.json()).toEqual({ data: [{ id: 'fake-model' }] });
    const [call] = await calls();
    expect(call!.request).toMatchObject({ api: 'http', method: 'GET', path: '/v1/models' });
    expect(call!.answer).toMatchObject({ api: 'http', status: 200, body: { data: [{ id: 'fake-model' }] } });
  });

  it('never writes a credential into the trace', async () => {
    await anthropic().messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    });
    await openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const requests = (await calls()).map((call) => call.request);
    // The Anthropic client sends its key as x-api-key or (newer versions) a Bearer authorization.
    expect(requests[0]!.headers['x-api-key'] ?? requests[0]!.headers.authorization).toMatch(/^\[REDACTED:/);
    expect(requests[1]!.headers.authorization).toMatch(/^\[REDACTED:/);
    const text = JSON.stringify(sink.lines);
    expect(text).not.toContain('secretpart');
    // The provider still got the real keys: only the trace copy is redacted.
    const sent = provider.requests.map((r) => String(r.headers['x-api-key'] ?? r.headers.authorization));
    expect(sent[0]).toContain(ANTHROPIC_KEY);
    expect(sent[1]).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('forwards streams byte for byte', async () => {
    const body = JSON.stringify({
      model: 'm',
      max_tokens: 5,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const read = async (base: string) => {
      const res = await fetch(`${base}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const direct = await read(provider.url);
    const proxied = await read(proxy.url);
    // The fake numbers its answers, so the same request gets the same answer but for that counter.
    expect(proxied.type).toBe(direct.type);
    expect(proxied.bytes.toString().replaceAll('_2', '_1')).toBe(direct.bytes.toString());
    const [call] = await calls();
    expect(call!.answer.events!.map((e) => e.text).join('')).toBe(proxied.bytes.toString());
  });

  it('refuses a Host that is not this machine', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(`${proxy.url}/v1/messages`, { method: 'POST', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end('{}');
    });
    expect(status).toBe(403);
    expect(provider.requests).toHaveLength(0);
  });
});
