/**
 * Rewriting a trace in place never goes through a symbolic link: `redact --in-place`, `verify --update`,
 * `run --mode update` and `run --mode record` refuse a trace that is a link, and leave out a rotated segment that
 * is one — a fixture folder checked out from someone else's repository must not get the content of a file outside
 * it copied in, nor have that file overwritten.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appendToCassette } from '../../src/live/run.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { Direction, Json } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { call, req, res, traceLines } from '../replay/helpers.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changed-server.mjs', import.meta.url));
const SECRET = 'private-note-9d2c41';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const INIT_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'recorder', version: '1.0.0' },
};
const INIT_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'changed-server', version: '1.0.0' },
  instructions: 'changed-server 1.0.0',
};
const SESSION: [Direction, Json][] = [
  ['in', req(0, 'initialize', INIT_PARAMS)],
  ['out', res(0, INIT_RESULT)],
  ['in', req(1, 'tools/call', call('greet', { name: SECRET }))],
  ['out', res(1, text(`Hello, ${SECRET}!`))],
];

const io = useCliHarness('tapedeck-in-place-links-');

/** A cassette outside the fixture folder, and a link to it inside; returns both paths and the outside text. */
function linkedCassette(name = 'session.jsonl') {
  const outside = join(io.dir, 'outside');
  const fixtures = join(io.dir, 'fixtures');
  mkdirSync(outside, { recursive: true });
  mkdirSync(fixtures, { recursive: true });
  const target = join(outside, 'private.jsonl');
  const lines = traceLines(SESSION);
  lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
  const original = lines.map(encodeLine).join('');
  writeFileSync(target, original);
  const link = join(fixtures, name);
  symlinkSync(target, link);
  return { target, link, fixtures, original };
}

/** No regular file in `folder` holds the secret, and `link` is still a link to a file left as it was. */
function expectUntouched(found: ReturnType<typeof linkedCassette>) {
  expect(lstatSync(found.link).isSymbolicLink()).toBe(true);
  expect(readFileSync(found.target, 'utf8')).toBe(found.original);
  for (const name of readdirSync(found.fixtures)) {
    const path = join(found.fixtures, name);
    if (lstatSync(path).isFile()) expect(readFileSync(path, 'utf8')).not.toContain(SECRET);
  }
}

describe('rewriting a trace in place through a symbolic link', () => {
  it('redact --in-place refuses a trace that is a link', async () => {
    const found = linkedCassette();
    expect(await io.run(['redact', found.link, '--in-place'])).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: ${found.link} is a symbolic link: tapedeck does not follow links when it writes or reads its own files; remove the link, or name the file it points to\n`,
    );
    expectUntouched(found);
  });

  it('redact --in-place leaves out a rotated segment that is a link, and the link stays as it is', async () => {
    const found = linkedCassette('session.1.jsonl');
    // The newest segment is a real file of the same trace; the older one is the link.
    const newest = traceLines([['in', req(5, 'tools/list')]]).map((line) =>
      line.type === 'meta' ? { ...line, traceId: 'tr-9', segment: 1 } : line,
    );
    const older = readFileSync(found.target, 'utf8').replace(
      '"label":"test"',
      '"label":"test","traceId":"tr-9"',
    );
    writeFileSync(found.target, older);
    found.original = older;
    const active = join(found.fixtures, 'session.jsonl');
    writeFileSync(active, newest.map(encodeLine).join(''));
    await io.run(['redact', active, '--in-place']);
    expectUntouched(found);
    expect(lstatSync(active).isFile()).toBe(true);
  });

  it('verify --update refuses a cassette that is a link, before starting the server', async () => {
    const found = linkedCassette();
    const marker = join(io.dir, 'started');
    expect(
      await io.run(['verify', found.link, '--update', '--', process.execPath, SERVER, '--marker', marker]),
    ).toBe(1);
    expect(io.stderr).toContain(`tapedeck: ${found.link} is a symbolic link`);
    expect(() => readFileSync(marker)).toThrow();
    expectUntouched(found);
  });

  it.each(['update', 'record'])(
    'run --mode %s refuses a cassette that is a link: a usage error, exit 2',
    async (mode) => {
      const found = linkedCassette();
      const marker = join(io.dir, 'started');
      expect(
        await io.run([
          'run',
          '--cassette',
          found.link,
          '--mode',
          mode,
          '--',
          process.execPath,
          SERVER,
          '--marker',
          marker,
        ]),
      ).toBe(2);
      expect(io.stderr).toBe(
        `tapedeck: --cassette ${found.link} is a symbolic link: tapedeck neither writes through a link nor replaces it; name the file it points to, or another path\n`,
      );
      expect(() => readFileSync(marker)).toThrow();
      expectUntouched(found);
    },
  );

  it('appendToCassette refuses a cassette that is a link', async () => {
    const found = linkedCassette();
    const t = new Date().toISOString();
    await expect(
      appendToCassette(found.link, [
        { t, dir: 'in', raw: req(9, 'tools/call', call('add', { a: 1, b: 2 })) },
      ]),
    ).rejects.toThrow(`${found.link} is a symbolic link`);
    expectUntouched(found);
  });
});

describe('a file flag naming a symbolic link', () => {
  /** A trace to read, and a link (to a file that does not exist yet) where the command would write. */
  function setup() {
    const input = join(io.dir, 'in.jsonl');
    const lines = traceLines(SESSION);
    lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
    writeFileSync(input, lines.map(encodeLine).join(''));
    const target = join(io.dir, 'elsewhere.txt');
    const link = join(io.dir, 'out-link');
    symlinkSync(target, link);
    return { input, target, link };
  }

  it.each([
    ['convert -o', (f: Files) => ['convert', f.input, '--to', 'mcporter', '-o', f.link], '-o'],
    ['redact -o', (f: Files) => ['redact', f.input, '-o', f.link], '-o'],
    ['report -o', (f: Files) => ['report', f.input, '-o', f.link], '-o'],
    ['scan --reporter', (f: Files) => ['scan', f.input, '--reporter', `junit:${f.link}`], '--reporter'],
    ['serve --db', (f: Files) => ['serve', '--db', f.link, '--port', '0'], '--db'],
    ['record --file', (f: Files) => ['record', '--file', f.link, 'node', 'server.js'], '--file'],
    [
      'run --cassette (auto, to record)',
      (f: Files) => ['run', '--cassette', f.link, 'node', 's.js'],
      '--cassette',
    ],
  ])(
    '%s is a usage error in one line, exit 2: nothing written, the link left as it is',
    async (_what, argv, flag) => {
      const files = setup();
      expect(await io.run(argv(files))).toBe(2);
      const lines = io.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^tapedeck: ${flag} \\S*out-link is a symbolic link: `));
      expect(io.stdout).toBe('');
      expect(lstatSync(files.link).isSymbolicLink()).toBe(true);
      expect(() => lstatSync(files.target)).toThrow();
    },
  );
});

type Files = { input: string; target: string; link: string };
