/**
 * `tapedeck verify` catching a changed server build, and `--update` taking the new build's answers: the session is
 * recorded with the official SDK client through `tapedeck record`, the "new build" is the fixture server with a flag.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, makeTempDir, recorded, removeTempDir } from '../helpers/peers.js';
import { fixtureServer, spawnTapedeck } from '../helpers/proxy.js';

const server = (...flags: string[]) => fixtureServer('changed-server.mjs', ...flags);
let dir: string;
let cassette: string;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-verify-changed-');
  cassette = `${dir}/changed.jsonl`;
  const [command, ...args] = server();
  const { client } = await connectClient(
    recorded({ command: command!, args }, { file: cassette }),
    { capabilities: { sampling: {} } },
    (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: 'assistant',
        model: 'm',
        content: { type: 'text', text: 'recorded words' },
      })),
  );
  await client.listTools();
  await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  await client.callTool({ name: 'ask', arguments: { prompt: 'hi' } });
  await client.close();
});

afterAll(() => removeTempDir(dir));

const verify = (flags: string[], ...serverFlags: string[]) =>
  spawnTapedeck(['verify', cassette, ...flags, '--', ...server(...serverFlags)]).done;

describe('tapedeck verify against a changed server build', () => {
  it('passes against the build it was recorded from', async () => {
    const result = await verify([]);
    expect(result.stdout.toString()).toBe('verified 5 exchanges: 5 match, 0 differ\n');
    expect(result.code).toBe(0);
  });

  it('prints the path, the recorded and the live value of a changed answer, exit 1', async () => {
    const result = await verify([], '--change', 'add');
    expect(result.stdout.toString()).toBe(
      [
        `✗ #2 tools/call add {"a":2,"b":3} (line ${lineOf('"method":"tools/call"')})`,
        '    $.result.content[0].text',
        '      recorded "The sum of 2 and 3 is 5."',
        '      live     "The sum of 2 and 3 is 6."',
        'verified 5 exchanges: 4 match, 1 differ',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(1);
  });

  it('catches a removed tool in tools/list and in its call', async () => {
    const result = await verify(['--json'], '--remove', 'greet');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout.toString());
    expect(report.ok).toBe(false);
    const differ = report.exchanges.filter((x: { status: string }) => x.status === 'differ');
    expect(differ.map((x: { request: string }) => x.request)).toEqual([
      'tools/list',
      'tools/call greet {"name":"Ada"}',
    ]);
    // Tools are lined up by name: the removed one is one difference, not a shifted list.
    expect(differ[0].diff.entries).toEqual([
      { path: '$.result.tools[1]', recorded: expect.objectContaining({ name: 'greet' }) },
    ]);
    expect(differ[1].diff.entries).toContainEqual({ path: '$.result.isError', live: true });
  });

  it('--ignore leaves a path out', async () => {
    const result = await verify(['--ignore', '$.result.content[0].text'], '--change', 'add');
    expect(result.code).toBe(0);
  });

  it('--update rewrites the cassette from the live run, so a second verify passes', async () => {
    const before = readFileSync(cassette, 'utf8');
    const oldMeta = JSON.parse(before.split('\n')[0]!);
    const updated = await verify(['--update'], '--change', 'add');
    expect(updated.stdout.toString()).toContain('verified 5 exchanges: 4 match, 1 differ\n');
    expect(updated.stdout.toString()).toContain(`updated ${cassette} from the live run (5 exchanges)\n`);
    expect(updated.code).toBe(0);
    expect(statSync(cassette).mode & 0o777).toBe(0o600);
    const lines = readFileSync(cassette, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'meta', producer: { name: 'tapedeck' }, transport: 'stdio' });
    expect(lines[0].traceId).not.toBe(oldMeta.traceId);
    expect(Date.parse(lines[0].startedAt)).toBeGreaterThan(Date.parse(oldMeta.startedAt));
    expect(lines[0].command.slice(-2)).toEqual(['--change', 'add']);
    expect(lines.at(-1)).toMatchObject({ type: 'end', exitCode: 0 });

    const again = await verify([], '--change', 'add');
    expect(again.stdout.toString()).toBe('verified 5 exchanges: 5 match, 0 differ\n');
    expect(again.code).toBe(0);
    // The recorded sampling answer came through the update: the tool's answer still quotes it.
    expect(readFileSync(cassette, 'utf8')).toContain('the model said: recorded words');
    expect((await verify([])).code).toBe(1);
  });

  it('--update replaces every segment of a rotated cassette', async () => {
    // The recording cut in two, as rotation leaves it: the older half in changed.1.jsonl, both with one traceId.
    const [metaText, ...rest] = readFileSync(cassette, 'utf8').trimEnd().split('\n');
    const meta = JSON.parse(metaText!);
    const half = Math.ceil(rest.length / 2);
    const rotated = join(dir, 'rotated');
    mkdirSync(rotated, { mode: 0o700 });
    const newest = join(rotated, 'changed.jsonl');
    const older = join(rotated, 'changed.1.jsonl');
    const segment = (n: number, lines: string[]) =>
      `${[JSON.stringify({ ...meta, segment: n }), ...lines].join('\n')}\n`;
    writeFileSync(older, segment(0, rest.slice(0, half)), { mode: 0o600 });
    writeFileSync(newest, segment(1, rest.slice(half)), { mode: 0o600 });
    const run = (flags: string[]) => spawnTapedeck(['verify', newest, ...flags, '--', ...server()]).done;

    const updated = await run(['--update']);
    expect(updated.stdout.toString()).toContain(`updated ${newest} from the live run (5 exchanges)\n`);
    expect(updated.code).toBe(0);
    expect(existsSync(older)).toBe(false);
    const again = await run([]);
    expect(again.stdout.toString()).toBe('verified 5 exchanges: 5 match, 0 differ\n');
  });
});

/** The line number of the first line of the cassette holding `text`. */
function lineOf(text: string): number {
  return (
    readFileSync(cassette, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes(text)) + 1
  );
}
