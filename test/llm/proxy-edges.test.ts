import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type LlmProxy, startLlmProxy } from '../../src/llm/proxy.js';
import { isLlmLine, type LlmResponseLine } from '../../src/llm/types.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';
import { type FakeProvider, startFakeProvider } from './fake-provider.js';

let proxy: LlmProxy | undefined;
let provider: FakeProvider | undefined;
let upstream: Server | undefined;
afterEach(async () => {
  await proxy?.close(0);
  await provider?.close();
  upstream?.closeAllConnections();
  upstream?.close();
  proxy = undefined;
  provider = undefined;
  upstream = undefined;
});

async function recordTo(url: string): Promise<{ sink: MemorySink; url: string }> {
  const sink = new MemorySink();
  proxy = await startLlmProxy({ upstream: new URL(url), sink, meta: newMeta({ label: 'edges' }), port: 0 });
  return { sink, url: proxy.url };
}

async function answers(sink: MemorySink, count = 1): Promise<LlmResponseLine[]> {
  const found = () =>
    (sink.lines as unknown[]).filter((l): l is LlmResponseLine => isLlmLine(l) && l.dir === 'out');
  for (let i = 0; i < 200 && found().length < count; i += 1) await new Promise((r) => setTimeout(r, 10));
  return found();
}

describe('the LLM recording proxy at the edges', () => {
  it('passes each event on before the provider has sent the next', async () => {
    provider = await startFakeProvider(() => ({ text: 'slow and steady' }), { eventGapMs: 150 });
    const { url } = await recordTo(provider.url);
    const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    });
    const seen: number[] = [];
    const started = Date.now();
    for await (const _event of stream) seen.push(Date.now() - started);
    // Ten events 150 ms apart: had the proxy held the stream, they would arrive together at the end.
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.at(-1)! - seen[0]!).toBeGreaterThan(500);
  });

  it('records a gzip-encoded answer decoded, forwarding it still encoded', async () => {
    const body = JSON.stringify({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'zipped' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 1 },
    });
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(body)),
      );
    });
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const { sink, url } = await recordTo(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    const message = await new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 }).messages.create({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'zipped' }]);
    const [answer] = await answers(sink);
    expect(answer).toMatchObject({
      text: 'zipped',
      stopReason: 'end_turn',
      headers: { 'content-encoding': 'gzip' },
    });
  });

  it('answers an unreachable provider with a provider-shaped 502 and records the failure', async () => {
    const { sink, url } = await recordTo('http://127.0.0.1:9');
    const error = await new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 }).messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain('could not reach http://127.0.0.1:9');
    const [answer] = await answers(sink);
    expect(answer).toMatchObject({ status: 502, error: expect.stringContaining('ECONNREFUSED') });
  });

  it('records a stream the client left part way, with what had arrived', async () => {
    provider = await startFakeProvider(() => ({ text: 'a long answer that the client will not wait for' }), {
      eventGapMs: 50,
    });
    const { sink, url } = await recordTo(provider.url);
    const controller = new AbortController();
    const stream = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 }).messages.stream(
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { signal: controller.signal },
    );
    let events = 0;
    await (async () => {
      for await (const _event of stream) {
        events += 1;
        if (events === 2) controller.abort();
      }
    })().catch(() => {});
    const [answer] = await answers(sink);
    expect(answer!.error).toBe('the client closed the connection before the answer ended');
    expect(answer!.events!.length).toBeGreaterThanOrEqual(2);
    expect(answer!.events![0]!.text).toMatch(/^event: message_start/);
  });
});
