/**
 * `tapedeck show` on a stateless 2026-07-28 trace: the real v2 SDK client (`@modelcontextprotocol/client` 2.4.0)
 * against a v2 SDK server, recorded with `tapedeck record --upstream`. That era has no session id on the wire, so the
 * recorder mints a key per client; `show` groups the timeline by it and `show --session KEY` shows one session.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEraEchoServer } from '../helpers/era2026.js';
import { makeTempDir, readTrace, removeTempDir } from '../helpers/peers.js';
import { recordUpstream, spawnTapedeck } from '../helpers/proxy.js';

const ERA = '2026-07-28';
const CLIENTS = ['alice-client', 'bob-client', 'alice-client'];

async function session(url: string, name: string): Promise<void> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: ERA } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: `hi from ${name}` } });
  await client.close();
}

const show = async (...args: string[]) => {
  const run = await spawnTapedeck(['show', ...args], {
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' },
  }).done;
  return { code: run.code, stdout: run.stdout.toString('utf8'), stderr: run.stderr };
};

describe('show groups a stateless-era HTTP trace by the session keys the recorder minted', () => {
  let tmp: string | undefined;
  let trace = '';
  /** Minted key (as show prints it) by client name. */
  const keys = new Map<string, string>();

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-show-sessions-');
    const server = await startEraEchoServer('era-show');
    try {
      const { recorder, url } = await recordUpstream(server.url, tmp);
      // Alice, Bob, then Alice again: her second visit is filed under her first key.
      for (const name of CLIENTS) await session(url, name);
      recorder.child.kill('SIGINT');
      expect((await recorder.done).code).toBe(0);
    } finally {
      await server.close();
    }
    trace = join(tmp, readdirSync(tmp).find((file) => file.endsWith('.jsonl'))!);
    for (const line of readTrace(trace))
      if (line.type === 'event' && line.name === 'session') {
        const client = (line.client as { name: string }).name;
        keys.set(client, /:([^:\]]+)\]$/.exec(String(line.sessionId))?.[1] ?? String(line.sessionId));
      }
  }, 60_000);

  afterAll(async () => {
    await removeTempDir(tmp);
  });

  it('mints one key per client', () => {
    expect([...keys.keys()]).toEqual(['alice-client', 'bob-client']);
    expect(keys.get('alice-client')).not.toBe(keys.get('bob-client'));
  });

  it('heads each run of one session’s rows with its key and client, and ends with a table of the sessions', async () => {
    const { code, stdout } = await show(trace);
    expect(code).toBe(0);
    const alice = keys.get('alice-client')!;
    const bob = keys.get('bob-client')!;
    // Bob's rows follow Alice's first visit; Alice's second visit is headed by her key again.
    expect(stdout).toContain(`⚑ session [REDACTED:mcp-session-id:${alice}] · stateless ${ERA}`);
    expect(stdout).toContain(`⚑ session [REDACTED:mcp-session-id:${bob}] · stateless ${ERA}`);
    const header = `┄ session ${alice} · stateless ${ERA} · alice-client 1.0.0`;
    expect(stdout.split('\n').filter((row) => row === header)).toHaveLength(1);
    expect(stdout.indexOf(header)).toBeGreaterThan(stdout.indexOf('hi from bob-client'));
    const table = stdout.slice(stdout.indexOf('2 sessions'));
    expect(table.split('\n').slice(1, 3)).toEqual([
      `  ${alice} · stateless ${ERA} · alice-client 1.0.0 · 12 messages`,
      `  ${bob} · stateless ${ERA} · bob-client 1.0.0 · 6 messages`,
    ]);
  });

  it('shows one session with --session KEY: its requests and answers, the HTTP lines they came in', async () => {
    const bob = await show('--session', keys.get('bob-client')!, trace);
    expect(bob.code).toBe(0);
    expect(bob.stdout).toContain('hi from bob-client');
    expect(bob.stdout).not.toContain('alice-client');
    expect(bob.stdout).not.toContain('2 sessions');
    // server/discover, tools/list and tools/call: each request, its answer and both HTTP lines.
    expect(bob.stdout.match(/→ http h\d+ POST/g)).toHaveLength(3);
    expect(bob.stdout.match(/✓ \d+ms/g)).toHaveLength(3);
    const alice = await show('--session', keys.get('alice-client')!, '--raw', trace);
    const lines = alice.stdout
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as { raw?: unknown });
    expect(lines.filter((line) => line.raw !== undefined)).toHaveLength(12);
    expect(alice.stdout).not.toContain('bob-client');
  });

  it('names the sessions a trace holds when --session names none of them', async () => {
    const { code, stderr } = await show('--session', 'nope', trace);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `tapedeck: no session 'nope' in this trace: its sessions are ${keys.get('alice-client')}, ${keys.get('bob-client')}`,
    );
  });
});
