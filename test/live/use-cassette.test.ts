/**
 * useCassette with the real server-everything: the first use records, later ones replay without a process.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/base/errors.js';
import { cassettePath, useCassette } from '../../src/live/use-cassette.js';

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
/** A server command that cannot run: replay must never start it. */
const BROKEN = [join(import.meta.dirname, 'no-such-server-binary')];

let dir: string;
const savedMode = process.env.TAPEDECK_MODE;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-use-cassette-'));
  delete process.env.TAPEDECK_MODE;
});

afterEach(async () => {
  if (savedMode === undefined) delete process.env.TAPEDECK_MODE;
  else process.env.TAPEDECK_MODE = savedMode;
  await rm(dir, { recursive: true, force: true });
});

async function session(command: readonly string[], mode?: 'auto' | 'record' | 'replay') {
  const s = await useCassette('everything', { command, dir, ...(mode ? { mode } : {}) });
  try {
    const echo = await s.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    const sum = await s.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    return { mode: s.mode, path: s.path, echo, sum, s };
  } finally {
    await s.close();
  }
}

describe('useCassette', () => {
  it('records on first use (0600), replays afterwards without spawning, with equal results', async () => {
    const first = await session(EVERYTHING);
    expect(first.mode).toBe('record');
    expect(first.path).toBe(join(dir, 'everything.jsonl'));
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(first.echo).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    const meta = JSON.parse(readFileSync(first.path, 'utf8').split('\n')[0]!);
    expect(meta).toMatchObject({ type: 'meta', label: 'everything', redaction: { defaults: true } });

    const second = await session(BROKEN);
    expect(second.mode).toBe('replay');
    expect(second.echo).toEqual(first.echo);
    expect(second.sum).toEqual(first.sum);
    const report = second.s.report();
    expect(report?.misses).toEqual([]);
    expect(report?.unused.map((u) => u.method) ?? []).not.toContain('tools/call');
  });

  it('lets $TAPEDECK_MODE override the mode', async () => {
    await session(EVERYTHING, 'record');
    process.env.TAPEDECK_MODE = 'replay';
    const forced = await session(BROKEN, 'record');
    expect(forced.mode).toBe('replay');

    process.env.TAPEDECK_MODE = 'sideways';
    await expect(useCassette('everything', { command: BROKEN, dir })).rejects.toThrow(
      /\$TAPEDECK_MODE must be one of auto, record, replay/,
    );
  });

  it("takes the project file's mode over its own, below $TAPEDECK_MODE, and its cassetteDir", async () => {
    const project = join(dir, 'project');
    const cassettes = join(project, 'fixtures');
    await session(EVERYTHING, 'record'); // → <dir>/everything.jsonl
    await mkdir(cassettes, { recursive: true });
    await copyFile(join(dir, 'everything.jsonl'), join(cassettes, 'everything.jsonl'));
    writeFileSync(join(project, 'tapedeck.config.json'), '{"mode":"replay","cassetteDir":"fixtures"}');
    const cwd = process.cwd();
    process.chdir(project);
    try {
      const s = await useCassette('everything', { command: BROKEN, mode: 'record' });
      expect([s.mode, s.path]).toEqual(['replay', join(cassettes, 'everything.jsonl')]);
      await s.close();
      writeFileSync(join(project, 'tapedeck.config.json'), '{"mode":"update"}');
      await expect(useCassette('everything', { command: BROKEN, dir: cassettes })).rejects.toThrow(
        `useCassette: "mode" in ${join(project, 'tapedeck.config.json')} must be one of auto, record, replay, passthrough; got 'update' (update needs tapedeck run)`,
      );
      process.env.TAPEDECK_MODE = 'replay';
      const forced = await useCassette('everything', { command: BROKEN, dir: cassettes });
      expect(forced.mode).toBe('replay');
      await forced.close();
    } finally {
      process.chdir(cwd);
    }
  });

  it('replay mode without a cassette fails, naming how to record one', async () => {
    await expect(useCassette('missing', { command: BROKEN, dir, mode: 'replay' })).rejects.toThrow(
      /no such cassette: .*missing\.jsonl/,
    );
  });

  it('records with rules of its own and replays with them, so a request carrying the secret still matches', async () => {
    const secret = 'ACME-87654321';
    const redact = { patterns: ['ACME-[0-9]{8}'], where: { cwd: dir, home: dir, env: {} } };
    const call = async (command: readonly string[]) => {
      const s = await useCassette('secret', { command, dir, redact });
      try {
        const echo = await s.client.callTool({ name: 'echo', arguments: { message: secret } });
        return { echo, mode: s.mode, report: s.report() };
      } finally {
        await s.close();
      }
    };
    const recorded = await call(EVERYTHING);
    expect(recorded.mode).toBe('record');
    expect(recorded.echo).toEqual({ content: [{ type: 'text', text: `Echo: ${secret}` }] });
    const text = readFileSync(join(dir, 'secret.jsonl'), 'utf8');
    expect(text).not.toContain(secret);

    const replayed = await call(BROKEN);
    expect(replayed.mode).toBe('replay');
    expect(replayed.report?.misses).toEqual([]);
    expect(JSON.stringify(replayed.echo)).toMatch(/Echo: \[REDACTED:[^\]]+\]/);
  });

  it('puts cassettes in __cassettes__ next to the calling test', async () => {
    expect(await cassettePath('x', { from: import.meta.url })).toBe(
      join(import.meta.dirname, '__cassettes__', 'x.jsonl'),
    );
    expect(await cassettePath('x.ndjson', { dir: '/tmp/c' })).toBe('/tmp/c/x.ndjson');
    await expect(cassettePath('x', {})).rejects.toThrow(TapedeckError);
  });
});
