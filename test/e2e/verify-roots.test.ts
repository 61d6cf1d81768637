/**
 * Verify keeps the recording's order around the server's own requests. server-filesystem (started with one folder)
 * asks a roots-offering client for its roots as soon as the handshake is done and then serves the folder the roots
 * name instead. Recorded through `tapedeck record` with an SDK client that answers roots/list with a temp folder,
 * the session verifies as a match: verify waits for roots/list before its first call, and gives the server the
 * recorded moment to apply the answer. A cassette that has the server ask once more than it does reports the wait
 * that ran out, and `verify --update` leaves it unchanged.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMessageLine } from '../../src/trace/types.js';
import {
  connectClient,
  FILESYSTEM_SERVER,
  filesystemServer,
  makeTempDir,
  readTrace,
  recorded,
  removeTempDir,
  rpc,
} from '../helpers/peers.js';
import { spawnTapedeck, waitFor } from '../helpers/proxy.js';

describe('verify of a server-filesystem session whose client offered roots', () => {
  let tmp: string | undefined;
  let dataDir: string;
  let otherDir: string;
  let cassette: string;
  const verify = (file: string, flags: string[] = []) =>
    spawnTapedeck(['verify', file, ...flags, '--', process.execPath, FILESYSTEM_SERVER, otherDir]).done;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-verify-roots-');
    dataDir = join(tmp, 'data');
    otherDir = join(tmp, 'other');
    await mkdir(dataDir);
    await mkdir(otherDir);
    await writeFile(join(dataDir, 'hello.txt'), 'Hello from the roots folder.\n');
    cassette = join(tmp, 'filesystem.jsonl');
    let asked = false;
    const { client, transport } = await connectClient(
      recorded(filesystemServer(otherDir), { file: cassette }),
      { capabilities: { roots: { listChanged: true } } },
      (c) =>
        c.setRequestHandler(ListRootsRequestSchema, async () => {
          asked = true;
          return { roots: [{ uri: pathToFileURL(dataDir).href, name: 'data' }] };
        }),
    );
    // As a person would: the first call comes once the server has taken the roots in (it says so on stderr).
    await waitFor(
      () => asked && transport.stderrText.includes('Updated allowed directories from MCP roots'),
      10_000,
      'server-filesystem to apply the roots',
    );
    await client.callTool({ name: 'list_allowed_directories', arguments: {} });
    await client.callTool({ name: 'read_text_file', arguments: { path: join(dataDir, 'hello.txt') } });
    await client.callTool({ name: 'list_directory', arguments: { path: dataDir } });
    await client.close();
  });

  afterAll(() => removeTempDir(tmp));

  it('holds the roots the client offered, not the folder the server was started with', () => {
    const texts = readTrace(cassette).flatMap((line) => {
      const result = isMessageLine(line)
        ? (rpc(line.raw).result as { content?: { text?: string }[] })
        : undefined;
      return result?.content?.[0]?.text === undefined ? [] : [result.content[0].text];
    });
    expect(texts[0]).toBe(`Allowed directories:\n${dataDir}`);
    expect(texts[1]).toBe('Hello from the roots folder.\n');
  });

  it('verifies as a match: the first call waits for roots/list and its answer to be applied', async () => {
    const exit = await verify(cassette);
    expect(exit.stdout.toString('utf8')).toContain('verified 4 exchanges: 4 match, 0 differ');
    expect(exit.code).toBe(0);
  });

  it('verifies as a match with the recorded gaps kept too', async () => {
    const exit = await verify(cassette, ['--timing', 'recorded']);
    expect(exit.stdout.toString('utf8')).toContain('4 match, 0 differ');
    expect(exit.code).toBe(0);
  });

  it('says when the server did not ask what the recording has it ask, and --update then changes nothing', async () => {
    // The recording with roots/list asked (and answered) twice: the live server asks once.
    const lines = readFileSync(cassette, 'utf8').split('\n');
    const twice = lines.flatMap((line) => {
      const isRoots = line.includes('"method":"roots/list"') || line.includes('"roots":[{');
      return isRoots ? [line, line.replace(/"id":0([,}])/, '"id":77$1')] : [line];
    });
    const doubled = join(tmp!, 'doubled.jsonl');
    writeFileSync(doubled, twice.join('\n'), { mode: 0o600 });
    const exit = await verify(doubled, ['--update']);
    const stdout = exit.stdout.toString('utf8');
    expect(stdout).toContain(
      '! the server had not asked roots/list after 5000 ms, and the recording has it before tools/call list_allowed_directories',
    );
    expect(exit.stderr).toContain('not updated: the server did not send in time a request the recording has');
    expect(readFileSync(doubled, 'utf8')).toBe(twice.join('\n'));
    expect(exit.code).toBe(1);
  });
});
