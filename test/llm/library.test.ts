import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it, vi } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { useCassette } from '../../src/live/use-cassette.js';
import { useLlmCassette } from '../../src/llm/cassette.js';
import { replayTransport } from '../../src/replay/sdk/replay-transport.js';
import { useCliHarness } from '../helpers/cli.js';
import { runAgent, scriptedModel, weatherServer } from './agent.js';
import { startFakeProvider } from './fake-provider.js';

/** The library's cassettes with the model's side beside the MCP side: an agent run replayed in a test. */

const io = useCliHarness('tapedeck-llm-library-');
const QUESTION = 'Weather and time in Paris and Oslo?';
const ANSWER = 'Summary: Paris: 18°C; Paris: 11:00; Oslo: 10:00; Oslo: 5°C';

/** Records the agent once, live: the model calls into agent.llm.jsonl, the MCP session into agent.jsonl. */
async function recordOnce(stream: boolean): Promise<{ mcp: string; llm: string; requests: () => number }> {
  const mcp = join(io.dir, 'agent.jsonl');
  const llm = join(io.dir, 'agent.llm.jsonl');
  const provider = await startFakeProvider(scriptedModel);
  const model = await useLlmCassette({ file: llm, upstream: provider.url, mode: 'record' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await weatherServer().connect(serverSide);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = recordTransport(clientSide, { file: mcp, server: 'weather', redact: 'defaults' });
  await client.connect(transport);
  const anthropic = new Anthropic({ apiKey: 'sk-ant-live-key', baseURL: model.url, maxRetries: 0 });
  expect(await runAgent(anthropic, client, QUESTION, { stream })).toBe(ANSWER);
  await client.close();
  await transport.closed;
  await model.close();
  const requests = provider.requests.length;
  await provider.close();
  return { mcp, llm, requests: () => requests };
}

describe('useCassette and replayTransport with the model calls', () => {
  it('useCassette({ llm }) replays the model and the MCP server: the same final answer, offline', async () => {
    vi.stubEnv('TAPEDECK_MODE', '');
    const recorded = await recordOnce(true);
    expect(recorded.requests()).toBe(3);
    const session = await useCassette('agent', { dir: io.dir, command: [], mode: 'replay', llm: {} });
    expect(session.mode).toBe('replay');
    expect(session.llm?.path).toBe(recorded.llm);
    try {
      const model = new Anthropic({ apiKey: 'offline', baseURL: session.llm!.url, maxRetries: 0 });
      expect(await runAgent(model, session.client, QUESTION, { stream: true })).toBe(ANSWER);
      expect(session.llm!.report()).toEqual({ misses: [], unused: [] });
      expect(session.report()?.misses).toEqual([]);
      expect(session.report()?.unused).toEqual([]);
    } finally {
      await session.close();
    }
    // Closed with the session.
    await expect(fetch(`${session.llm!.url}/v1/models`)).rejects.toThrow();
    vi.unstubAllEnvs();
  });

  it('a question the recording never saw is a miss the report lists, raised by the client as NotFoundError', async () => {
    vi.stubEnv('TAPEDECK_MODE', '');
    await recordOnce(false);
    const session = await useCassette('agent', { dir: io.dir, command: [], mode: 'replay', llm: {} });
    try {
      const model = new Anthropic({ apiKey: 'offline', baseURL: session.llm!.url, maxRetries: 0 });
      await expect(runAgent(model, session.client, 'Weather in Rome?')).rejects.toBeInstanceOf(
        Anthropic.NotFoundError,
      );
      const { misses, unused } = session.llm!.report();
      expect(misses).toHaveLength(1);
      expect(unused).toHaveLength(3);
    } finally {
      await session.close();
    }
    vi.unstubAllEnvs();
  });

  it('replayTransport({ llm }) starts the model replay with the transport and stops it on close', async () => {
    const recorded = await recordOnce(false);
    const transport = replayTransport(recorded.mcp, { llm: recorded.llm });
    expect(() => transport.llm).toThrow('connect the client first');
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(transport);
    const url = transport.llm.url;
    const model = new Anthropic({ apiKey: 'offline', baseURL: url, maxRetries: 0 });
    expect(await runAgent(model, client, QUESTION)).toBe(ANSWER);
    expect(transport.llm.misses).toEqual([]);
    expect(transport.llm.unused()).toEqual([]);
    expect(transport.report().unused).toEqual([]);
    await client.close();
    await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
  });

  it('says what is wrong: no llm option, or no LLM cassette to replay', async () => {
    const recorded = await recordOnce(false);
    const plain = replayTransport(recorded.mcp);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(plain);
    expect(() => plain.llm).toThrow('answers no model calls: give it the llm option');
    await client.close();
    await expect(
      useCassette('agent', { dir: io.dir, command: [], mode: 'replay', llm: { file: 'nope.llm.jsonl' } }),
    ).rejects.toThrow(`the LLM cassette ${join(io.dir, 'nope.llm.jsonl')} does not exist: record it first`);
  });
});
