/**
 * CI mode when the environment does not reach tapedeck: the official SDK's StdioClientTransport passes a server only
 * a short default environment (HOME, PATH …), so `TAPEDECK_MODE=replay` set in CI never reaches a `tapedeck run` a
 * test's client starts. The project file does: with `{"mode":"replay"}` in tapedeck.config.json, the same client
 * with its default environment gets the cassette, no server is started, and an unrecorded call fails loudly.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, TAPEDECK_BIN } from '../helpers/peers.js';
import { fixtureServer } from '../helpers/proxy.js';
import { firstText } from './peers.js';

let project: string;
let marker: string;
beforeEach(async () => {
  project = await makeTempDir('tapedeck-ci-mode-');
  marker = join(project, 'server-starts.txt');
});
afterEach(() => removeTempDir(project));

const starts = () =>
  existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0;

/**
 * The SDK client as a test writes it: `tapedeck run` where the server command goes, the working folder the
 * project, and `env` only when given (otherwise the SDK's default environment).
 */
async function session(env?: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      TAPEDECK_BIN,
      'run',
      '--cassette',
      'cassettes/everything.jsonl',
      '--',
      ...fixtureServer('changed-server.mjs', '--marker', marker),
    ],
    cwd: project,
    stderr: 'pipe',
    ...(env ? { env } : {}),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'ci-mode-test', version: '1.0.0' });
  await client.connect(transport);
  const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    client,
    async finish() {
      await client.close();
      return { code: await exited, stderr };
    },
  };
}

describe('CI mode through the project file', () => {
  it('replays for an SDK client with its default environment, where TAPEDECK_MODE cannot reach', async () => {
    // Recorded once on a developer's machine (the environment passed explicitly, as docs/replay.md shows).
    const first = await session({ PATH: process.env.PATH ?? '', TAPEDECK_HOME: join(project, 'home') });
    expect(firstText(await first.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe(
      'The sum of 2 and 3 is 5.',
    );
    expect((await first.finish()).code).toBe(0);
    expect(starts()).toBe(1);

    // CI: the mode is set once, in the project; the client config is untouched and passes no environment on.
    writeFileSync(join(project, 'tapedeck.config.json'), '{ "mode": "replay" }\n');
    const ci = await session();
    expect(firstText(await ci.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe(
      'The sum of 2 and 3 is 5.',
    );
    await expect(ci.client.callTool({ name: 'add', arguments: { a: 5, b: 5 } })).rejects.toThrow(
      'no recorded answer for tools/call add {"a":5,"b":5}',
    );
    const { code, stderr } = await ci.finish();
    expect(stderr).toContain(
      `tapedeck: replaying ${join(project, 'cassettes', 'everything.jsonl')}: "mode": "replay" in ${join(project, 'tapedeck.config.json')}`,
    );
    expect(stderr).toContain('tapedeck: miss: no recorded answer for tools/call add {"a":5,"b":5}');
    expect(code).toBe(1);
    expect(starts()).toBe(1);
  });

  it('without the project file the same client records against the live server (what CI must not do)', async () => {
    const run = await session();
    await run.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    const { stderr } = await run.finish();
    expect(stderr).toContain('recording');
    expect(starts()).toBe(1);
  });
});
