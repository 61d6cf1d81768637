/**
 * `tapedeck run` in every mode, as the official SDK client sees it: the built CLI stands where the server command
 * goes, in front of the fixture server, which appends a line to a marker file whenever it starts — so a test can
 * prove that replay started no server.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, REPO_ROOT, removeTempDir, TAPEDECK_BIN } from '../helpers/peers.js';
import { fixtureServer } from '../helpers/proxy.js';

let dir: string;
let cassette: string;
let marker: string;

beforeEach(async () => {
  dir = await makeTempDir('tapedeck-run-');
  cassette = join(dir, 'cassettes', 'session.jsonl');
  marker = join(dir, 'started.txt');
});
afterEach(() => removeTempDir(dir));

/** How many times the fixture server was started. */
const starts = () =>
  existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0;

interface Session {
  client: Client;
  /** Closes the client and resolves with `tapedeck run`'s exit code and stderr. */
  finish(): Promise<{ code: number | null; stderr: string }>;
}

/** The SDK client connected to `tapedeck run <flags> -- <fixture server>`, with `env` added. */
async function runSession(flags: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAPEDECK_BIN, 'run', ...flags, '--', ...fixtureServer('changed-server.mjs', '--marker', marker)],
    // The SDK passes only a default environment on; the run gets its settings, and a home of its own.
    env: {
      PATH: process.env.PATH ?? '',
      XDG_CONFIG_HOME: join(dir, 'xdg'),
      TAPEDECK_HOME: join(dir, 'home'),
      ...env,
    },
    stderr: 'pipe',
    cwd: REPO_ROOT,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'tapedeck-run-e2e', version: '1.0.0' },
    { capabilities: { sampling: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content;
    const prompt = content && 'text' in content ? content.text : '?';
    return { role: 'assistant', model: 'm', content: { type: 'text', text: `sampled ${prompt}` } };
  });
  await client.connect(transport);
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exit = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    client,
    async finish() {
      await client.close();
      return { code: await exit, stderr };
    },
  };
}

const textOf = (result: unknown) =>
  ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

/** The calls of the recorded session. */
async function recordedCalls(client: Client): Promise<string[]> {
  return [
    textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })),
    textOf(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })),
    textOf(await client.callTool({ name: 'ask', arguments: { prompt: 'hi' } })),
  ];
}
const RECORDED = ['The sum of 2 and 3 is 5.', 'Hello, Ada!', 'the model said: sampled hi'];

async function recordCassette(): Promise<void> {
  const session = await runSession(['--cassette', cassette, '--mode', 'record']);
  expect(await recordedCalls(session.client)).toEqual(RECORDED);
  expect((await session.finish()).code).toBe(0);
}

describe('tapedeck run', () => {
  it('auto records a cassette that does not exist, then replays it without starting the server', async () => {
    const first = await runSession(['--cassette', cassette]);
    expect(await recordedCalls(first.client)).toEqual(RECORDED);
    const recording = await first.finish();
    expect(recording.code).toBe(0);
    expect(recording.stderr).toBe(
      `tapedeck: recording ${cassette}: no cassette there yet\ntapedeck: recorded 4 requests into ${cassette}\n`,
    );
    expect(statSync(cassette).mode & 0o777).toBe(0o600);
    expect(starts()).toBe(1);

    const second = await runSession(['--cassette', cassette]);
    expect(second.client.getServerVersion()).toEqual({ name: 'changed-server', version: '1.0.0' });
    expect(await recordedCalls(second.client)).toEqual(RECORDED);
    const replay = await second.finish();
    expect(replay.stderr).toBe(
      `tapedeck: replaying ${cassette}: cassette exists (4 exchanges)\ntapedeck: replayed 4/4 exchanges\n`,
    );
    expect(replay.code).toBe(0);
    expect(starts()).toBe(1);
  });

  it('TAPEDECK_MODE=replay wins over --mode, and an unrecorded call fails loudly: error, stderr line, exit 1', async () => {
    await recordCassette();
    const before = readFileSync(cassette);
    const session = await runSession(['--cassette', cassette, '--mode', 'record', '--allow-unused'], {
      TAPEDECK_MODE: 'replay',
    });
    expect(textOf(await session.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe(
      RECORDED[0],
    );
    await expect(session.client.callTool({ name: 'add', arguments: { a: 5, b: 5 } })).rejects.toThrow(
      'no recorded answer for tools/call add {"a":5,"b":5}',
    );
    const { code, stderr } = await session.finish();
    expect(stderr).toContain('tapedeck: miss: no recorded answer for tools/call add {"a":5,"b":5}');
    expect(stderr).toContain('1 miss');
    expect(code).toBe(1);
    expect(starts()).toBe(1);
    expect(readFileSync(cassette)).toEqual(before);
  });

  it('replay set by tapedeck.config.json: a miss names the file and its setting, not the --mode it overrides', async () => {
    await recordCassette();
    // Found from the cassette's folder upward (the run's working folder is the repository).
    const config = join(dir, 'tapedeck.config.json');
    writeFileSync(config, '{ "mode": "replay" }\n');
    const session = await runSession(['--cassette', cassette, '--mode', 'record', '--allow-unused']);
    await expect(session.client.callTool({ name: 'add', arguments: { a: 5, b: 5 } })).rejects.toThrow(
      'no recorded answer for tools/call add {"a":5,"b":5}',
    );
    const { code, stderr } = await session.finish();
    expect(stderr).toContain(
      `tapedeck: replaying ${cassette}: "mode": "replay" in ${config} (4 exchanges)\n`,
    );
    expect(stderr).toMatch(
      new RegExp(
        `tapedeck: miss: no recorded answer for tools/call add .*\\(record it in mode update, or re-record in mode record: set "mode" in ${config.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, which wins over --mode\\)\n`,
      ),
    );
    expect(stderr).not.toContain('--mode record)');
    expect(code).toBe(1);
    expect(starts()).toBe(1);
  });

  it('replay set by tapedeck.config.json with no cassette yet: refused in one line naming the file', async () => {
    const config = join(dir, 'tapedeck.config.json');
    writeFileSync(config, '{ "mode": "replay" }\n');
    const run = spawnSync(
      process.execPath,
      [TAPEDECK_BIN, 'run', '--cassette', cassette, '--', ...fixtureServer('changed-server.mjs')],
      { cwd: dir, encoding: 'utf8', input: '' },
    );
    expect({ code: run.status, stderr: run.stderr }).toEqual({
      code: 1,
      stderr: `tapedeck: no cassette at ${cassette} to replay: record it first ("mode": "record" or "auto" in ${config}, which wins over --mode)\n`,
    });
    expect(starts()).toBe(0);
  });

  it('--repeat last serves a request again once its recordings are used up; without it the miss names the flag', async () => {
    await recordCassette();
    const add = { name: 'add', arguments: { a: 2, b: 3 } };
    const strict = await runSession(['--cassette', cassette, '--mode', 'replay', '--allow-unused']);
    expect(textOf(await strict.client.callTool(add))).toBe(RECORDED[0]);
    await expect(strict.client.callTool(add)).rejects.toThrow(
      'its one recording was already served (--repeat last serves the last one again)',
    );
    expect((await strict.finish()).code).toBe(1);

    const repeating = await runSession([
      '--cassette',
      cassette,
      '--mode',
      'replay',
      '--allow-unused',
      '--repeat',
      'last',
    ]);
    expect([
      textOf(await repeating.client.callTool(add)),
      textOf(await repeating.client.callTool(add)),
    ]).toEqual([RECORDED[0], RECORDED[0]]);
    expect((await repeating.finish()).code).toBe(0);
  });

  it('TAPEDECK_CASSETTE names the cassette', async () => {
    await recordCassette();
    const session = await runSession(['--cassette', join(dir, 'elsewhere.jsonl')], {
      TAPEDECK_CASSETTE: cassette,
    });
    expect(await recordedCalls(session.client)).toEqual(RECORDED);
    expect((await session.finish()).code).toBe(0);
    expect(starts()).toBe(1);
    expect(existsSync(join(dir, 'elsewhere.jsonl'))).toBe(false);
  });

  it('update replays what matches, forwards what is new to the live server, and appends it', async () => {
    await recordCassette();
    const size = readFileSync(cassette, 'utf8').split('\n').length;
    const session = await runSession(['--cassette', cassette, '--mode', 'update']);
    expect(await recordedCalls(session.client)).toEqual(RECORDED);
    expect(starts()).toBe(1);
    expect(textOf(await session.client.callTool({ name: 'add', arguments: { a: 5, b: 5 } }))).toBe(
      'The sum of 5 and 5 is 10.',
    );
    // The live server's own sampling request is relayed to the client, and its progress too.
    expect(textOf(await session.client.callTool({ name: 'ask', arguments: { prompt: 'new' } }))).toBe(
      'the model said: sampled new',
    );
    let progress = 0;
    const counted = await session.client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, {
      onprogress: () => progress++,
    });
    expect(textOf(counted)).toBe('counted to 3');
    expect(progress).toBeGreaterThanOrEqual(2);
    const { code, stderr } = await session.finish();
    expect(stderr).toContain('started the live server');
    expect(stderr).toContain(`added 3 new exchanges to ${cassette}`);
    expect(stderr).toContain('replayed 4/4 exchanges, 3 forwarded to the live server');
    expect(code).toBe(0);
    expect(starts()).toBe(2);
    expect(readFileSync(cassette, 'utf8').split('\n').length).toBeGreaterThan(size + 6);

    const replay = await runSession(['--cassette', cassette], { TAPEDECK_MODE: 'replay' });
    expect(await recordedCalls(replay.client)).toEqual(RECORDED);
    expect(textOf(await replay.client.callTool({ name: 'add', arguments: { a: 5, b: 5 } }))).toBe(
      'The sum of 5 and 5 is 10.',
    );
    expect(textOf(await replay.client.callTool({ name: 'ask', arguments: { prompt: 'new' } }))).toBe(
      'the model said: sampled new',
    );
    expect(textOf(await replay.client.callTool({ name: 'count', arguments: { steps: 3 } }))).toBe(
      'counted to 3',
    );
    const replayed = await replay.finish();
    expect(replayed.stderr).toContain('replayed 7/7 exchanges');
    expect(replayed.code).toBe(0);
    expect(starts()).toBe(2);
  });

  it('passthrough runs the server and records nothing', async () => {
    const session = await runSession(['--cassette', cassette, '--mode', 'passthrough']);
    expect(await recordedCalls(session.client)).toEqual(RECORDED);
    expect((await session.finish()).code).toBe(0);
    expect(starts()).toBe(1);
    expect(existsSync(cassette)).toBe(false);
  });

  it('--max-age warns about an old cassette and still serves it; --expired record records it again', async () => {
    await recordCassette();
    const lines = readFileSync(cassette, 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), startedAt: '2020-01-01T00:00:00.000Z' });
    writeFileSync(cassette, lines.join('\n'));

    const warned = await runSession(['--cassette', cassette, '--max-age', '30d']);
    expect(await recordedCalls(warned.client)).toEqual(RECORDED);
    const { code, stderr } = await warned.finish();
    expect(stderr).toMatch(
      /tapedeck: warning: .*session\.jsonl was recorded \d+ days ago, more than --max-age 30 days; re-record it/,
    );
    expect(code).toBe(0);
    expect(starts()).toBe(1);

    const rerecorded = await runSession(['--cassette', cassette, '--max-age', '30d', '--expired', 'record']);
    expect(await recordedCalls(rerecorded.client)).toEqual(RECORDED);
    expect((await rerecorded.finish()).code).toBe(0);
    expect(starts()).toBe(2);
    const meta = JSON.parse(readFileSync(cassette, 'utf8').split('\n')[0]!);
    expect(Date.now() - Date.parse(meta.startedAt)).toBeLessThan(60_000);
  });

  it('--expired record never turns a replay asked for by name into a recording', async () => {
    await recordCassette();
    const lines = readFileSync(cassette, 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), startedAt: '2020-01-01T00:00:00.000Z' });
    writeFileSync(cassette, lines.join('\n'));
    const before = readFileSync(cassette);
    const session = await runSession(['--cassette', cassette, '--max-age', '30d', '--expired', 'record'], {
      TAPEDECK_MODE: 'replay',
    });
    expect(await recordedCalls(session.client)).toEqual(RECORDED);
    const { code, stderr } = await session.finish();
    expect(stderr).toContain(
      'not re-recorded in replay mode (--expired record applies to mode auto: TAPEDECK_MODE=auto, which wins over --mode and tapedeck.config.json)',
    );
    expect(code).toBe(0);
    expect(starts()).toBe(1);
    expect(readFileSync(cassette)).toEqual(before);
  });

  it('record keeps the cassette as it was when the server never starts or says nothing', async () => {
    await recordCassette();
    const before = readFileSync(cassette);
    const record = (...server: string[]) =>
      spawnSync(
        process.execPath,
        [TAPEDECK_BIN, 'run', '--cassette', cassette, '--mode', 'record', '--', ...server],
        {
          input: '',
          encoding: 'utf8',
          env: { ...process.env, TAPEDECK_HOME: join(dir, 'home') },
        },
      );
    const missing = record('tapedeck-no-such-server-command');
    expect(missing.status).toBe(127);
    expect(missing.stderr).toContain(
      `nothing was recorded (no MCP message crossed): ${cassette} is as it was`,
    );
    const silent = record(process.execPath, '-e', 'process.exit(4)');
    expect(silent.status).toBe(4);
    expect(readFileSync(cassette)).toEqual(before);

    const fresh = join(dir, 'never.jsonl');
    const none = spawnSync(
      process.execPath,
      [TAPEDECK_BIN, 'run', '--cassette', fresh, '--', 'tapedeck-no-such-server-command'],
      {
        input: '',
        encoding: 'utf8',
      },
    );
    expect(none.stderr).toContain(`no cassette written to ${fresh}`);
    expect(existsSync(fresh)).toBe(false);
  });
});
