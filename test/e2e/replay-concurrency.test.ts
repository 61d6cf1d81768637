/**
 * Many requests in flight at once: 16 different calls with 5 identical ones interleaved, recorded live from
 * server-everything, then replayed to a fresh client that sends them all at once. Each gets its own recorded answer;
 * the identical ones (`trigger-url-elicitation` answers with a random elicitation id) get theirs in recorded order.
 * `--match ordered` turns away a request that comes before its turn.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, everythingServer, makeTempDir, recorded, removeTempDir } from '../helpers/peers.js';
import { connectSession, outcome, replayCommand } from '../helpers/replay.js';

const CAPABILITIES = { capabilities: { elicitation: { form: {}, url: {} } } };
const SAME = {
  name: 'trigger-url-elicitation',
  arguments: { url: 'https://example.com/auth', message: 'same' },
};

/** 21 calls: different ones, with the identical one at every fourth place. */
function calls(): { name: string; arguments: Record<string, unknown> }[] {
  const list: { name: string; arguments: Record<string, unknown> }[] = [];
  for (let i = 0; i < 16; i++) {
    if (i % 4 === 0) list.push(SAME);
    list.push(
      i % 2 === 0
        ? { name: 'echo', arguments: { message: `call ${i}` } }
        : { name: 'get-sum', arguments: { a: i, b: 100 } },
    );
  }
  list.push(SAME);
  return list;
}

function acceptUrlElicitation(client: Client): void {
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept' }));
}

/** Sends every call before any answer comes back. */
function allAtOnce(client: Client) {
  return Promise.all(calls().map((call) => outcome(() => client.callTool(call))));
}

/** The elicitation id in a trigger-url-elicitation result. */
function elicitationId(result: unknown): string | undefined {
  return /Elicitation ID: ([0-9a-f-]{36})/.exec(JSON.stringify(result))?.[1];
}

describe('tapedeck replay with many requests in flight', () => {
  let tmp: string | undefined;
  let cassette: string;
  let live: unknown[];

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-');
    cassette = join(tmp, 'concurrent.jsonl');
    const { client } = await connectClient(
      recorded(everythingServer(), { file: cassette }),
      CAPABILITIES,
      acceptUrlElicitation,
    );
    try {
      live = await allAtOnce(client);
    } finally {
      await client.close();
    }
  });

  afterAll(() => removeTempDir(tmp));

  it('answers each of 21 concurrent calls with its recorded result, identical calls in recorded order', async () => {
    const ids = live.map(elicitationId).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(5);
    expect(JSON.stringify(live[1])).toContain('call 0');

    const session = await connectSession(replayCommand(cassette), CAPABILITIES, acceptUrlElicitation);
    const replayed = await allAtOnce(session.client);
    const { code, stderr } = await session.finish();
    expect(replayed).toEqual(live);
    expect(stderr).toBe('tapedeck: replayed 22/22 exchanges\n');
    expect(code).toBe(0);
  });

  it('--match ordered turns away a request that comes before its turn', async () => {
    const session = await connectSession(replayCommand(cassette, ['--match', 'ordered']), CAPABILITIES);
    const early = await outcome(() =>
      session.client.callTool({ name: 'get-sum', arguments: { a: 15, b: 100 } }),
    );
    const { code, stderr } = await session.finish();
    const message =
      'out of order: got tools/call get-sum {"a":15,"b":100}, expected tools/call trigger-url-elicitation {"message":"same","url":"https://example.com/auth"} next (--match ordered; --match keyed accepts any order)';
    expect(early).toEqual({ error: `MCP error -32090: ${message}` });
    expect(stderr).toContain(`tapedeck: miss: ${message}\n`);
    expect(code).toBe(1);
  });
});
