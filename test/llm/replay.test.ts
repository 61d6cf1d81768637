import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { startLlmProxy } from '../../src/llm/proxy.js';
import { readLlmCalls } from '../../src/llm/read.js';
import { startLlmReplay } from '../../src/llm/replay.js';
import { compile } from '../../src/redact/compile.js';
import { redactorOf } from '../../src/redact/engine.js';
import { replayTransport } from '../../src/replay/sdk/replay-transport.js';
import { FileSink } from '../../src/sink/file.js';
import { newMeta } from '../../src/trace/meta.js';
import { useCliHarness } from '../helpers/cli.js';
import { runAgent, scriptedModel, weatherServer } from './agent.js';
import { startFakeProvider } from './fake-provider.js';

const io = useCliHarness('tapedeck-llm-replay-');
const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
const QUESTION = 'Weather and time in Paris and Oslo?';

/** Records one agent run against the fake provider and the real MCP server: llm.jsonl and mcp.jsonl. */
async function recordOnce(stream: boolean): Promise<string> {
  const provider = await startFakeProvider(scriptedModel);
  const sink = new FileSink({ path: join(io.dir, 'llm.jsonl'), redact: redactorOf(compiled) });
  const proxy = await startLlmProxy({
    upstream: new URL(provider.url),
    sink,
    meta: { ...newMeta({ label: 'llm', transport: 'http' }), kind: 'llm' },
    compiled,
    port: 0,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await weatherServer().connect(serverSide);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = recordTransport(clientSide, { file: join(io.dir, 'mcp.jsonl'), redact: 'defaults' });
  await client.connect(transport);
  try {
    return await runAgent(
      new Anthropic({ apiKey: 'sk-ant-live-key', baseURL: proxy.url, maxRetries: 0 }),
      client,
      QUESTION,
      { stream },
    );
  } finally {
    await client.close();
    await transport.closed;
    await proxy.close(0);
    await sink.close({ reason: 'producer_shutdown' });
    await provider.close();
  }
}

describe('replay --llm: a whole agent run offline', () => {
  for (const stream of [false, true]) {
    it(`gives the same final answer with no provider and no MCP server (${stream ? 'streamed' : 'not streamed'})`, async () => {
      const live = await recordOnce(stream);
      const replay = await startLlmReplay({ calls: await readLlmCalls(join(io.dir, 'llm.jsonl')), compiled });
      const client = new Client({ name: 'agent', version: '1.0.0' });
      const mcp = replayTransport(join(io.dir, 'mcp.jsonl'));
      await client.connect(mcp);
      try {
        // No key is needed offline; the recording holds none.
        const model = new Anthropic({ apiKey: 'another-key', baseURL: replay.url, maxRetries: 0 });
        expect(await runAgent(model, client, QUESTION, { stream })).toBe(live);
        expect(replay.misses).toEqual([]);
        expect(replay.unused()).toEqual([]);
        expect(replay.served()).toBe(3);
        expect(mcp.report().unused).toEqual([]);
      } finally {
        await client.close();
        await replay.close();
      }
    });
  }

  it('streams a replayed answer event by event with the recorded text', async () => {
    await recordOnce(true);
    const calls = await readLlmCalls(join(io.dir, 'llm.jsonl'));
    const replay = await startLlmReplay({ calls, compiled });
    try {
      const res = await fetch(`${replay.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...(calls[0]!.request.body as object), stream: true }),
      });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      expect(await res.text()).toBe(calls[0]!.answer!.events!.map((event) => event.text).join(''));
    } finally {
      await replay.close();
    }
  });

  it('answers a miss with a provider-shaped error the official client raises, and lists it', async () => {
    await recordOnce(false);
    const replay = await startLlmReplay({ calls: await readLlmCalls(join(io.dir, 'llm.jsonl')), compiled });
    try {
      const model = new Anthropic({ apiKey: 'k', baseURL: replay.url, maxRetries: 0 });
      const error = await model.messages
        .create({
          model: 'claude-test-1',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'something else' }],
        })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(Anthropic.NotFoundError);
      expect((error as Error).message).toContain('no recorded answer matches this request');
      expect(replay.misses).toEqual([
        { method: 'POST', path: '/v1/messages', nearest: expect.stringContaining('POST /v1/messages {') },
      ]);
    } finally {
      await replay.close();
    }
  });

  it('tapedeck replay --llm serves the OpenAI client and reports misses and unused calls on exit', async () => {
    const provider = await startFakeProvider(() => ({ text: 'recorded answer' }));
    const file = join(io.dir, 'openai.jsonl');
    const recording = io.run(['record', '--llm', provider.url, '--listen', '127.0.0.1:0', '--file', file]);
    const url = await waitFor(() => /recording (http:\S+)/.exec(io.stderr)?.[1]);
    const live = new OpenAI({
      apiKey: 'sk-proj-live-key-0123456789abcdef',
      baseURL: `${url}/v1`,
      maxRetries: 0,
    });
    await live.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'one' }] });
    await live.responses.create({ model: 'gpt-test', input: 'two', stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    process.emit('SIGTERM', 'SIGTERM');
    expect(await recording).toBe(0);
    await provider.close();

    io.stderr = '';
    const replaying = io.run(['replay', '--llm', file, '--listen', '127.0.0.1:0']);
    const replayUrl = await waitFor(() => /on (http:\S+)/.exec(io.stderr)?.[1]);
    const offline = new OpenAI({ apiKey: 'none', baseURL: `${replayUrl}/v1`, maxRetries: 0 });
    const answer = await offline.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'one' }],
    });
    expect(answer.choices[0]!.message.content).toBe('recorded answer');
    await expect(
      offline.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'three' }] }),
    ).rejects.toThrow(/no recorded answer matches this request/);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await replaying).toBe(1);
    expect(io.stderr).toContain('replayed 1/2 model calls, 1 missed');
    expect(io.stderr).toMatch(
      /missed POST \/v1\/chat\/completions; nearest recorded: POST \/v1\/chat\/completions \{/,
    );
    expect(io.stderr).toMatch(/unused l2 POST \/v1\/responses/);
  });
});

async function waitFor(read: () => string | undefined): Promise<string> {
  for (let i = 0; i < 500; i += 1) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}
