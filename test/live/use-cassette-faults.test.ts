/**
 * useCassette's faults in both modes with the real server-everything: recording, the live answers are spoiled on
 * their way to the client and the cassette keeps them whole beside a `fault` event; replaying, the same faults
 * give the client the same outcome.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useCassette } from '../../src/live/use-cassette.js';
import { loadTrace } from '../../src/trace/io.js';

const EVERYTHING = [
  process.execPath,
  join(
    import.meta.dirname,
    '..',
    '..',
    'node_modules',
    '@modelcontextprotocol',
    'server-everything',
    'dist',
    'index.js',
  ),
  'stdio',
];
const FAULTS = ['error=-32070@tools/call:echo', 'tool-error@tools/call:get-sum#2'];

let dir: string;
const savedMode = process.env.TAPEDECK_MODE;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-use-cassette-faults-'));
  delete process.env.TAPEDECK_MODE;
});
afterEach(async () => {
  if (savedMode === undefined) delete process.env.TAPEDECK_MODE;
  else process.env.TAPEDECK_MODE = savedMode;
  await rm(dir, { recursive: true, force: true });
});

async function session(mode: 'record' | 'replay') {
  const s = await useCassette('everything', { command: EVERYTHING, dir, mode, faults: FAULTS, seed: 3 });
  try {
    const echo = await s.client.callTool({ name: 'echo', arguments: { message: 'hello' } }).then(
      () => 'answered',
      (error: { code?: number }) => `error ${error.code}`,
    );
    const first = await s.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    const second = await s.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    return { echo, first: first.isError === true, second: second.isError === true, faults: s.faults(), s };
  } finally {
    await s.close();
  }
}

describe('useCassette with faults', () => {
  it('spoils the live answers while recording, keeps them whole in the cassette, and replays the same faults', async () => {
    const recorded = await session('record');
    expect(recorded).toMatchObject({ echo: 'error -32070', first: false, second: true });
    expect(recorded.faults.map((f) => `${f.kind} ${f.target}`)).toEqual(['error echo', 'tool-error get-sum']);

    const trace = await loadTrace(recorded.s.path);
    const events = trace.entries.filter((e) => e.line.type === 'event' && e.line.name === 'fault');
    expect(events.map((e) => e.line.kind)).toEqual(['error', 'tool-error']);
    const answers = trace.entries
      .map((e) => JSON.stringify(e.line))
      .filter((text) => text.includes('"dir":"out"'));
    expect(answers.some((text) => text.includes('Echo: hello'))).toBe(true);

    const replayed = await session('replay');
    expect(replayed).toMatchObject({ echo: 'error -32070', first: false, second: true });
    expect(replayed.s.report()?.misses).toEqual([]);
  });
});
