/**
 * `tapedeck verify` as a process, against real peers: a session of the official SDK client with
 * server-everything, recorded through `tapedeck record`, verifies against server-everything.
 */

import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  EVERYTHING_SERVER,
  everythingServer,
  makeTempDir,
  recorded,
  removeTempDir,
} from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';

let dir: string;
let cassette: string;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-verify-everything-');
  cassette = `${dir}/everything.jsonl`;
  const { client } = await connectClient(
    recorded(everythingServer(), { file: cassette }),
    { capabilities: { sampling: {} } },
    (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: 'assistant',
        model: 'verify-model',
        content: { type: 'text', text: `canned answer to ${request.params.messages.length} message` },
      })),
  );
  // Calls whose answers do not vary run to run (DESIGN §7 lists the ones that do).
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'verify me' } });
  await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22 } });
  await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 20 } });
  await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
    undefined,
    { onprogress: () => {} },
  );
  await client.listPrompts();
  await client.close();
});

afterAll(() => removeTempDir(dir));

describe('tapedeck verify against server-everything', () => {
  it('passes against the server it was recorded from: exit 0', async () => {
    const result = await spawnTapedeck([
      'verify',
      cassette,
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    ]).done;
    expect(result.stderr).toBe('');
    expect(result.stdout.toString()).toBe('verified 7 exchanges: 7 match, 0 differ\n');
    expect(result.code).toBe(0);
  });

  it('--json reports every exchange, with the recorded request in short', async () => {
    const result = await spawnTapedeck([
      'verify',
      cassette,
      '--json',
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    ]).done;
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout.toString());
    expect(report).toMatchObject({
      version: 1,
      ok: true,
      summary: { exchanges: 7, match: 7, differ: 0, skipped: 0, corruptLines: 0 },
    });
    expect(report.exchanges.map((x: { request: string }) => x.request)).toEqual([
      'initialize',
      'tools/list',
      'tools/call echo {"message":"verify me"}',
      'tools/call get-sum {"a":20,"b":22}',
      'tools/call trigger-sampling-request {"maxTokens":20,"prompt":"Say hi"}',
      'tools/call trigger-long-running-operation {"duration":1,"steps":2}',
      'prompts/list',
    ]);
  });
});
