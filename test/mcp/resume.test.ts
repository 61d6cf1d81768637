/**
 * A recording survives the server being killed: every acknowledged event is on disk, and the next server takes
 * the recording over (or start_recording with its name continues it).
 */
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/io.js';
import { makeTempDir, readTrace, removeTempDir } from '../helpers/peers.js';
import { type McpPeer, startMcp } from './mcp-peer.js';

const event = (q: string) => ({
  request: { method: 'tools/call', params: { name: 'search', arguments: { q } } },
  response: { result: { hits: [q] } },
});

async function kill(peer: McpPeer): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    peer.transport.onclose = () => resolve();
  });
  process.kill(peer.pid, 'SIGKILL');
  await closed;
}

describe('a recording interrupted by killing the server', () => {
  let tmp: string;
  let data: string;
  const peers: McpPeer[] = [];
  const start = async () => {
    const peer = await startMcp(data, tmp);
    peers.push(peer);
    return peer;
  };

  beforeEach(async () => {
    tmp = await makeTempDir('tapedeck-mcp-resume-');
    data = join(tmp, 'trajectories');
  });

  afterEach(async () => {
    for (const peer of peers.splice(0)) await peer.close().catch(() => {});
    await removeTempDir(tmp);
  });

  it('is taken over by the next server, which appends to it and saves it', async () => {
    const first = await start();
    await first.call('start_recording', { name: 'long' });
    await first.call('record_event', event('one'));
    await first.call('record_event', event('two'));
    await kill(first);
    const path = join(data, 'long.jsonl');
    expect(readTrace(path).at(-1)?.type).toBeUndefined(); // no end line
    expect(existsSync(join(data, 'long.recording'))).toBe(true);
    // The kill may land mid-write: a torn last line is cut off before appending.
    appendFileSync(path, '{"t":"2026-11-30T00:00:00.000Z","seq":5,"dir":"in","raw":{"jsonr');

    const second = await start();
    expect(await second.json('list_trajectories')).toMatchObject({
      trajectories: [{ name: 'long', events: 2, recording: true }],
    });
    const other = await second.call('start_recording', { name: 'other' });
    expect(other.text).toContain("a recording is already active: 'long' (2 event(s))");
    expect(await second.call('record_event', event('three'))).toEqual({
      text: 'Event recorded (total in session: 3)',
      isError: false,
    });
    expect((await second.call('stop_recording')).text).toBe(
      `Recording 'long' saved with 3 event(s) at ${path}`,
    );
    expect(existsSync(join(data, 'long.recording'))).toBe(false);

    const lines = readTrace(path);
    expect(lines.map((l) => l.type ?? (l as { dir: string }).dir)).toEqual([
      'meta',
      'in',
      'out',
      'in',
      'out',
      'in',
      'out',
      'end',
    ]);
    expect(lines.slice(1, -1).map((l) => (l as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines.at(-1)).toMatchObject({ type: 'end', counts: { in: 3, out: 3 } });
    const diagnostics: string[] = [];
    await openTrace(path, { mode: 'strict', onDiagnostic: (d) => diagnostics.push(d.message) });
    expect(diagnostics).toEqual([]);
    expect(
      await second.json('replay_lookup', { trajectory: 'long', request: event('two').request }),
    ).toMatchObject({ matched: true, response: { result: { hits: ['two'] } } });
  });

  it('is continued by start_recording with its name when no marker says who recorded it', async () => {
    const first = await start();
    await first.call('start_recording', { name: 'side' });
    await first.call('record_event', event('one'));
    await kill(first);
    rmSync(join(data, 'side.recording'));

    const second = await start();
    expect((await second.call('record_event', event('x'))).isError).toBe(true);
    expect(await second.call('start_recording', { name: 'side' })).toEqual({
      text: 'Recording started: side (continuing its 1 earlier event(s))',
      isError: false,
    });
    expect((await second.call('record_event', event('two'))).text).toBe(
      'Event recorded (total in session: 2)',
    );
    expect((await second.call('stop_recording')).text).toContain("Recording 'side' saved with 2 event(s)");
    // Starting a finished trajectory again records it anew.
    expect((await second.call('start_recording', { name: 'side' })).text).toBe('Recording started: side');
    expect((await second.call('stop_recording')).text).toContain("Recording 'side' saved with 0 event(s)");
  });

  it('is left alone while the server recording it still runs', async () => {
    const first = await start();
    await first.call('start_recording', { name: 'busy' });
    const second = await start();
    const clash = await second.call('start_recording', { name: 'busy' });
    expect(clash.isError).toBe(true);
    expect(clash.text).toBe(
      `'busy' is being recorded by another tapedeck mcp server (pid ${first.pid}); choose another name`,
    );
    expect((await second.call('record_event', event('x'))).isError).toBe(true);
  });
});
