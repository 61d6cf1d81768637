/**
 * `tapedeck mcp` attacked through its data folder: links planted in place of a trajectory, a rotated segment, a
 * `.recording` marker or the marker's temporary file. Nothing is written through a link and nothing outside the
 * folder is read back to the agent.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, REPO_ROOT, removeTempDir } from '../helpers/peers.js';
import { type McpPeer, startMcp } from './mcp-peer.js';

const RC = 'export PATH=/usr/bin:/bin\n';
const SECRET = 'outside-the-data-folder-7f3a';

/** A finished tapedeck trace holding SECRET in one request, with the given traceId. */
function traceWith(traceId: string, segment = 0, end = true): string {
  const lines: unknown[] = [
    { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'x', traceId, segment },
    {
      t: '2026-01-01T00:00:00.001Z',
      seq: 1 + segment * 10,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read', arguments: { q: SECRET } },
      },
    },
    {
      t: '2026-01-01T00:00:00.002Z',
      seq: 2 + segment * 10,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 1, result: {} },
    },
  ];
  if (end)
    lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000, reason: 'process_exit' });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

const search = (q: string) => ({ method: 'tools/call', params: { name: 'search', arguments: { q } } });

describe('tapedeck mcp never follows a link in its data folder', () => {
  let tmp: string;
  let data: string;
  let outside: string;
  let peer: McpPeer;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-mcp-links-');
    data = join(tmp, 'data');
    outside = join(tmp, 'outside');
    mkdirSync(data, { recursive: true, mode: 0o700 });
    mkdirSync(outside);
    peer = await startMcp(data, tmp);
  });

  afterAll(async () => {
    await peer?.close();
    await removeTempDir(tmp);
  });

  it('refuses to record into a trajectory file that is a link, and leaves what it points at alone', async () => {
    const rc = join(outside, 'bashrc');
    writeFileSync(rc, RC);
    symlinkSync(rc, join(data, 'victim.jsonl'));
    const started = await peer.call('start_recording', { name: 'victim' });
    expect(started.isError).toBe(true);
    expect(started.text).toContain('is a symbolic link');
    const recorded = await peer.call('record_event', { request: search('x'), response: { result: {} } });
    expect(recorded.isError).toBe(true);
    expect(readFileSync(rc, 'utf8')).toBe(RC);
    // A dangling link (the file it names does not exist yet) is refused too, and nothing is created there.
    const ghost = join(outside, 'created-by-tapedeck');
    symlinkSync(ghost, join(data, 'dangling.jsonl'));
    expect((await peer.call('start_recording', { name: 'dangling' })).isError).toBe(true);
    expect(readdirSync(outside)).toEqual(['bashrc']);
  });

  it('never writes a marker through a link planted at its temporary name', async () => {
    const rc = join(outside, 'profile');
    writeFileSync(rc, RC);
    for (const suffix of ['.tmp', `.${peer.pid}.tmp`])
      symlinkSync(rc, join(data, `marked.recording${suffix}`));
    expect(await peer.call('start_recording', { name: 'marked' })).toEqual({
      text: 'Recording started: marked',
      isError: false,
    });
    await peer.call('stop_recording');
    expect(readFileSync(rc, 'utf8')).toBe(RC);
  });

  it('neither lists nor reads trajectories, shack files or segments that are links to files outside', async () => {
    const foreign = join(outside, 'foreign.jsonl');
    writeFileSync(foreign, traceWith('t-foreign'));
    symlinkSync(foreign, join(data, 'leak.jsonl'));
    const shack = join(outside, 'shack.json');
    writeFileSync(
      shack,
      readFileSync(join(REPO_ROOT, 'test/fixtures/interop/shack/my_session.json'), 'utf8').replace(
        '"q": "replay"',
        `"q": "${SECRET}"`,
      ),
    );
    symlinkSync(shack, join(data, 'leak_shack.json'));
    // A real trajectory in the folder, and a link beside it posing as its older rotated segment.
    writeFileSync(join(data, 'own.jsonl'), traceWith('t-own', 1).replace(SECRET, 'inside'), { mode: 0o600 });
    writeFileSync(join(outside, 'older.jsonl'), traceWith('t-own', 0, false));
    symlinkSync(join(outside, 'older.jsonl'), join(data, 'own.1.jsonl'));

    const listed = await peer.json<{ trajectories: { name: string }[] }>('list_trajectories');
    expect(listed.trajectories.map((t) => t.name)).not.toContain('leak');
    expect(listed.trajectories.map((t) => t.name)).not.toContain('leak_shack');
    for (const name of ['leak', 'leak_shack']) {
      const page = await peer.call('get_trajectory', { name });
      expect(page.isError).toBe(true);
      expect(page.text).not.toContain(SECRET);
      const stats = await peer.call('trajectory_stats', { name });
      expect(stats.isError).toBe(true);
    }
    const own = await peer.call('get_trajectory', { name: 'own' });
    expect(own.isError).toBe(false);
    expect(own.text).toContain('inside');
    expect(own.text).not.toContain(SECRET);
    const found = await peer.call('search_trajectories', { query: SECRET });
    expect(JSON.parse(found.text)).toMatchObject({ total: 0, hits: [] });
  });

  it('does not take over a recording through a marker that is a link', async () => {
    const foreign = join(outside, 'unfinished.jsonl');
    writeFileSync(foreign, traceWith('t-unfinished', 0, false));
    const marker = join(outside, 'marker.json');
    writeFileSync(marker, JSON.stringify({ name: 'adopted', pid: 2 ** 22 + 7, startedAt: '2026-01-01' }));
    symlinkSync(marker, join(data, 'adopted.recording'));
    symlinkSync(foreign, join(data, 'adopted.jsonl'));
    // A fresh server looks for recordings a dead server left behind.
    const fresh = await startMcp(data, tmp);
    try {
      const recorded = await fresh.call('record_event', { request: search('x'), response: { result: {} } });
      expect(recorded.isError).toBe(true);
      expect(readFileSync(foreign, 'utf8')).toBe(traceWith('t-unfinished', 0, false));
    } finally {
      await fresh.close();
    }
  });
});
