import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useLlmCassette } from '../../src/llm/cassette.js';
import { useCliHarness } from '../helpers/cli.js';
import { startFakeProvider } from './fake-provider.js';

const io = useCliHarness('tapedeck-llm-run-');

/** An MCP cassette of one ping. */
function writePing(path: string): void {
  const t = new Date().toISOString();
  const lines = [
    { v: 1, type: 'meta', startedAt: t, label: 'session', transport: 'stdio' },
    { t, seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } },
    { t, seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: {} } },
    { t, type: 'end', durationMs: 1, reason: 'process_exit' },
  ];
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
}

async function until<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i += 1) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

describe('tapedeck run --llm', () => {
  it('replays the model calls beside the MCP session, by the same mode, and reports them at the end', async () => {
    // The MCP cassette: one ping. The LLM cassette beside it, recorded through the proxy.
    const cassette = join(io.dir, 'session.jsonl');
    writePing(cassette);
    const provider = await startFakeProvider(() => ({ text: 'from the recording' }));
    const recording = await useLlmCassette({
      file: join(io.dir, 'session.llm.jsonl'),
      upstream: provider.url,
    });
    const client = (url: string) =>
      new OpenAI({ apiKey: 'sk-proj-0123456789abcdefghij', baseURL: `${url}/v1`, maxRetries: 0 });
    await client(recording.url).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
    });
    await recording.close();
    await provider.close();

    const stdin = new PassThrough();
    const running = io.run(
      ['run', '--cassette', cassette, '--mode', 'replay', '--llm', provider.url, '--listen', '127.0.0.1:0'],
      stdin,
    );
    const url = await until(
      () => /replaying 1 model calls from \S+ on (http:\S+)/.exec(io.stderr)?.[1],
    ).catch((err) => {
      throw new Error(`${err.message}: ${io.stderr}`);
    });
    const answer = await client(url).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(answer.choices[0]!.message.content).toBe('from the recording');
    stdin.write('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    await until(() => (io.stdout.includes('"id":7') ? true : undefined));
    stdin.end();
    expect(await running).toBe(0);
    expect(io.stderr).toContain('replayed 1/1 model calls, 0 missed');
  });

  it('names the missing LLM cassette when the MCP one exists', async () => {
    const cassette = join(io.dir, 'only-mcp.jsonl');
    writePing(cassette);
    expect(
      await io.run(['run', '--cassette', cassette, '--mode', 'replay', '--llm', 'http://127.0.0.1:9']),
    ).toBe(1);
    expect(io.stderr).toContain(
      'only-mcp.llm.jsonl does not exist: the model calls of this run were never recorded',
    );
  });
});
