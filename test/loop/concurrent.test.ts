/**
 * Several `tapedeck run` processes on one cassette at once — parallel test files sharing a fixture — never
 * interleave or cut it: recordings are written aside and renamed whole, and updates add their exchanges under the
 * cassette's lock, each to what the file holds at that moment, so none is lost.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/replay/cassette/load.js';
import { fixtureServer, makeTempDir, removeTempDir, spawnTapedeck } from '../helpers/proxy.js';

let dir: string;
let cassette: string;
beforeEach(async () => {
  dir = await makeTempDir('tapedeck-concurrent-');
  cassette = join(dir, 'shared.jsonl');
});
afterEach(() => removeTempDir(dir));

const request = (id: number, name: string) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { n: id } } })}\n`;

/** `tapedeck run --mode <mode>` in front of the echo fixture, sent `lines`, stdin closed; resolves to its exit. */
async function runWith(mode: string, lines: string[]) {
  const run = spawnTapedeck(
    ['run', '--cassette', cassette, '--mode', mode, '--', ...fixtureServer('rpc-echo.mjs')],
    {
      env: { ...process.env, TAPEDECK_HOME: join(dir, 'home') },
    },
  );
  run.child.stdin.end(lines.join(''));
  return run.done;
}

describe('concurrent runs on one cassette', () => {
  it('record: the cassette is one whole session, never a mix, and nothing is left beside it', async () => {
    const runs = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) =>
        runWith(
          'record',
          [1, 2, 3, 4, 5].map((i) => request(i, name)),
        ),
      ),
    );
    for (const run of runs) expect(run.code).toBe(0);
    const lines = readFileSync(cassette, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.type === 'meta')).toHaveLength(1);
    expect(lines.at(-1)?.type).toBe('end');
    const names = new Set(lines.filter((l) => l.dir === 'in').map((l) => l.raw.params.name));
    expect(names.size).toBe(1);
    const seqs = lines.filter((l) => l.seq !== undefined).map((l) => l.seq as number);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('update: every run adds its new exchange, none is lost to another', async () => {
    expect((await runWith('record', [request(1, 'base')])).code).toBe(0);
    const runs = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) => runWith('update', [request(1, 'base'), request(2, name)])),
    );
    for (const run of runs) expect(run.stderr).toContain('added 1 new exchange');
    const { cassette: loaded } = await loadCassette(cassette);
    const asked = loaded.exchanges.map((x) => (x.request.params as { name: string }).name).sort();
    expect(asked).toEqual(['a', 'b', 'base', 'c', 'd']);
  });
});
