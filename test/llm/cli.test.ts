import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';
import { type FakeProvider, startFakeProvider } from './fake-provider.js';

const io = useCliHarness('tapedeck-llm-cli-');
let provider: FakeProvider;

beforeEach(async () => {
  provider = await startFakeProvider(() => ({ text: 'Hello there' }));
});
afterEach(async () => {
  await provider.close();
});

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('tapedeck record --llm', () => {
  it('records through the listener into --file until SIGTERM, the file private', async () => {
    const file = join(io.dir, 'agent-llm.jsonl');
    const running = io.run(['record', '--llm', provider.url, '--listen', '127.0.0.1:0', '--file', file]);
    await until(() => /recording (http:\S+)/.test(io.stderr), 'the listening line');
    const url = /recording (http:\S+)/.exec(io.stderr)![1]!;
    const client = new OpenAI({
      apiKey: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      baseURL: `${url}/v1`,
      maxRetries: 0,
    });
    const answer = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Hello there');
    // As the signal arrives: each listener is told its name.
    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'meta', kind: 'llm', transport: 'http' });
    expect(lines.slice(1, 3)).toMatchObject([
      { type: 'llm', dir: 'in', call: 'l1', api: 'openai.chat', model: 'gpt-test', seq: 1 },
      { type: 'llm', dir: 'out', call: 'l1', status: 200, text: 'Hello there', stopReason: 'stop', seq: 2 },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'producer_shutdown' });
    expect(readFileSync(file, 'utf8')).not.toContain('abcdefghijklmnop');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses --llm with a server command, in one line', async () => {
    expect(await io.run(['record', '--llm', provider.url, '--', 'node', 'server.js'])).toBe(2);
    expect(io.stderr.trim().split('\n')).toHaveLength(1);
    expect(io.stderr).toContain('--llm');
  });

  it('names a bad --llm URL', async () => {
    expect(await io.run(['record', '--llm', 'ftp://x'])).toBe(2);
    expect(io.stderr).toContain("--llm must be an http:// or https:// URL; got the scheme 'ftp:'");
  });
});
