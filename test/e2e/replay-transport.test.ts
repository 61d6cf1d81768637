/**
 * The library route over stdio: recordTransport around the SDK's StdioClientTransport records a live
 * server-everything session to a file; replayTransport serves that file in-process to a fresh client.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { replayTransport } from '../../src/replay/sdk/replay-transport.js';
import { loadTrace } from '../../src/trace/io.js';
import { EVERYTHING_SERVER, makeTempDir, REPO_ROOT, removeTempDir } from '../helpers/peers.js';

async function calls(client: Client) {
  const progress: number[] = [];
  return {
    tools: await client.listTools(),
    echo: await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }),
    long: await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.1, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    ),
    prompt: await client.getPrompt({ name: 'simple-prompt' }),
    progress,
  };
}

describe('recordTransport around a stdio client transport, replayTransport of its file', () => {
  let tmp: string | undefined;
  let file: string;
  let live: Awaited<ReturnType<typeof calls>>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-');
    file = join(tmp, 'sdk.jsonl');
    const inner = new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'stdio'],
      stderr: 'ignore',
      cwd: REPO_ROOT,
    });
    const recording = recordTransport(inner, { file, server: 'everything' });
    const client = new Client({ name: 'recorder', version: '1.0.0' });
    await client.connect(recording);
    live = await calls(client);
    await client.close();
    await recording.closed;
  });

  afterAll(() => removeTempDir(tmp));

  it('writes a stdio trace of the session', async () => {
    const trace = await loadTrace(file);
    expect(trace.meta).toMatchObject({ transport: 'stdio', server: 'everything' });
    expect(trace.entries.at(-1)?.line).toMatchObject({ type: 'end' });
  });

  it('replays it in-process with the same results and every exchange used', async () => {
    const transport = replayTransport(file);
    const client = new Client({ name: 'replayer', version: '3.0.0' });
    await client.connect(transport);
    const replayed = await calls(client);
    await client.close();
    expect(replayed).toEqual({ ...live, progress: [1, 2, 3] });
    expect(live.progress.length).toBeGreaterThanOrEqual(2);
    expect(transport.report()).toMatchObject({ used: 5, total: 5, misses: [], unused: [] });
  });
});
