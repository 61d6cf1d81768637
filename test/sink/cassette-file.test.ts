/**
 * How `tapedeck run` settles a recording onto its cassette: a probe (discovery alone) never writes it, the session
 * after a probe gets the probe's discovery, and writes go through the cassette's lock. In-process, on files.
 */
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/replay/cassette/load.js';
import { probeStashPath, removeStaleRecordings, settleRecording } from '../../src/sink/cassette-file.js';
import { lockPathFor, withCassetteLock } from '../../src/sink/cassette-lock.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { Json, TraceLine } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { req, res, traceLines } from '../replay/helpers.js';

const io = useCliHarness('tapedeck-cassette-file-');
const DISCOVER: ['in' | 'out', Json][] = [
  ['in', req('server-discover-probe-1', 'server/discover', {})],
  ['out', res('server-discover-probe-1', { supportedVersions: ['2026-07-28'], capabilities: {} })],
];
const SESSION: ['in' | 'out', Json][] = [
  ['in', req(0, 'tools/list', {})],
  ['out', res(0, { tools: [] })],
  ['in', req(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })],
  ['out', res(1, { content: [{ type: 'text', text: 'echo: hi' }] })],
];

function write(path: string, steps: ['in' | 'out', Json][]): string {
  const lines: TraceLine[] = [
    ...traceLines(steps),
    { t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 },
  ];
  writeFileSync(path, lines.map(encodeLine).join(''), { mode: 0o600 });
  return path;
}

describe('settling a recording', () => {
  const env = () => ({ TAPEDECK_HOME: join(io.dir, 'home') });

  it('is nothing when nothing was recorded', async () => {
    const cassette = join(io.dir, 's.jsonl');
    expect(
      await settleRecording(join(io.dir, '.s.jsonl.1.a.recording'), cassette, { startedAt: 0, env: env() }),
    ).toEqual({ kind: 'nothing' });
    expect(existsSync(cassette)).toBe(false);
  });

  it('keeps a probe apart: the cassette stays as it was, the discovery waits for the session (0600)', async () => {
    const cassette = write(join(io.dir, 's.jsonl'), SESSION);
    const before = readFileSync(cassette);
    const probe = write(join(io.dir, '.s.jsonl.1.a.recording'), DISCOVER);
    expect(await settleRecording(probe, cassette, { startedAt: Date.now(), env: env() })).toEqual({
      kind: 'probe',
      kept: true,
    });
    expect(readFileSync(cassette)).toEqual(before);
    expect(existsSync(probe)).toBe(false);
    expect(statSync(probeStashPath(cassette, env())).mode & 0o777).toBe(0o600);
  });

  it("writes the session with the probe's discovery first, numbered before it, and replays both", async () => {
    const cassette = join(io.dir, 's.jsonl');
    await settleRecording(write(join(io.dir, '.s.jsonl.1.a.recording'), DISCOVER), cassette, {
      startedAt: Date.now(),
      env: env(),
    });
    const session = write(join(io.dir, '.s.jsonl.2.b.recording'), SESSION);
    expect(await settleRecording(session, cassette, { startedAt: Date.now(), env: env() })).toEqual({
      kind: 'written',
      requests: 2,
      probe: true,
    });
    const lines = readFileSync(cassette, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.seq)).toEqual([undefined, 1, 2, 3, 4, 5, 6, undefined]);
    expect(lines.slice(1, 3).map((l) => l.conn)).toEqual(['probe', 'probe']);
    const { cassette: loaded } = await loadCassette(cassette);
    expect(loaded.exchanges.map((x) => x.method)).toEqual(['server/discover', 'tools/list', 'tools/call']);
    expect(existsSync(probeStashPath(cassette, env()))).toBe(false);
    expect(
      readdirSync(io.dir).filter((name) => name.endsWith('.recording') || name.endsWith('.lock')),
    ).toEqual([]);
  });

  it("leaves out a probe's discovery kept long before the session started", async () => {
    const cassette = join(io.dir, 's.jsonl');
    await settleRecording(write(join(io.dir, '.s.jsonl.1.a.recording'), DISCOVER), cassette, {
      startedAt: Date.now(),
      env: env(),
    });
    const stash = probeStashPath(cassette, env());
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(stash, old, old);
    const session = write(join(io.dir, '.s.jsonl.2.b.recording'), SESSION);
    expect(await settleRecording(session, cassette, { startedAt: Date.now(), env: env() })).toMatchObject({
      kind: 'written',
      probe: false,
    });
  });

  it('removes recordings left by runs whose process is gone, and keeps a live one', async () => {
    const cassette = join(io.dir, 's.jsonl');
    const dead = write(join(io.dir, '.s.jsonl.999999999.a.recording'), SESSION);
    const live = write(join(io.dir, `.s.jsonl.${process.pid}.b.recording`), SESSION);
    await removeStaleRecordings(cassette);
    expect([existsSync(dead), existsSync(live)]).toEqual([false, true]);
  });
});

describe("the cassette's lock", () => {
  it('lets one writer in at a time', async () => {
    const cassette = join(io.dir, 's.jsonl');
    const order: string[] = [];
    const writer = (name: string) =>
      withCassetteLock(cassette, async () => {
        order.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`${name} out`);
      });
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i]!.replace(' in', ' out'));
    expect(existsSync(lockPathFor(cassette))).toBe(false);
  });

  it('takes over a lock whose process is gone, and names a lock held too long', async () => {
    const cassette = join(io.dir, 's.jsonl');
    writeFileSync(lockPathFor(cassette), '999999999\n');
    expect(await withCassetteLock(cassette, async () => 'written')).toBe('written');
    writeFileSync(lockPathFor(cassette), `${process.pid}\n`);
    await expect(withCassetteLock(cassette, async () => 'never', { waitMs: 100 })).rejects.toThrow(
      `cannot write ${cassette}: another tapedeck run has held ${lockPathFor(cassette)} for over 0.1 s (remove it if no run is writing)`,
    );
  });
});
