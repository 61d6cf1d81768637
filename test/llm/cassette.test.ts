import { existsSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { useLlmCassette } from '../../src/llm/cassette.js';
import { useCliHarness } from '../helpers/cli.js';
import { startFakeProvider } from './fake-provider.js';

const io = useCliHarness('tapedeck-llm-cassette-');

async function ask(url: string, question: string): Promise<string> {
  const client = new OpenAI({
    apiKey: 'sk-proj-test-key-0123456789abcdef',
    baseURL: `${url}/v1`,
    maxRetries: 0,
  });
  const stream = await client.chat.completions.create({
    model: 'gpt-test',
    stream: true,
    messages: [{ role: 'user', content: question }],
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

describe('useLlmCassette', () => {
  it('records the first time and replays after, with no provider', async () => {
    // The mode by default (auto), whatever the machine's environment says.
    vi.stubEnv('TAPEDECK_MODE', '');
    const file = join(io.dir, 'fixtures', 'agent-llm.jsonl');
    const provider = await startFakeProvider((_api, body) => ({
      text: `You said ${JSON.stringify(body.messages)}`,
    }));
    const first = await useLlmCassette({ file, upstream: provider.url });
    expect(first.mode).toBe('record');
    const live = await ask(first.url, 'hello');
    await first.close();
    await provider.close();
    expect(existsSync(file)).toBe(true);

    const second = await useLlmCassette({ file, upstream: provider.url });
    expect(second.mode).toBe('replay');
    expect(await ask(second.url, 'hello')).toBe(live);
    await expect(ask(second.url, 'something new')).rejects.toThrow(/no recorded answer matches/);
    const report = await second.close();
    expect(report.misses).toHaveLength(1);
    expect(report.unused).toEqual([]);
  });

  it('says what is missing when there is nothing to replay and nowhere to record from', async () => {
    await expect(useLlmCassette({ file: join(io.dir, 'none.jsonl') })).rejects.toThrow(
      /none\.jsonl does not exist yet and there is no upstream to record it from/,
    );
  });
});
