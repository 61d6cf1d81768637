/**
 * The project file, tapedeck.config.json: found by walking up, checked key by key, and its cassetteDir used for
 * relative cassette paths — and `tapedeck run` / `replay` stopping with one line (exit 2) on a bad one.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findProjectFile,
  PROJECT_FILE_NAME,
  projectFor,
  resolveCassettePath,
} from '../../src/live/project-file.js';
import { parseProjectFile } from '../../src/live/project-file-parse.js';
import { useCliHarness } from '../helpers/cli.js';

/** The real working folder, taken before the harness stands in for process.cwd(). */
const startedIn = process.cwd();
const io = useCliHarness('tapedeck-project-');
const FILE = '/repo/tapedeck.config.json';
const parse = (text: string) => parseProjectFile(FILE, text, (dir) => `/repo/${dir}`);

describe('reading a project file', () => {
  it('takes mode and cassetteDir (comments and trailing commas allowed)', () => {
    expect(parse('// CI\n{ "mode": "Replay", "cassetteDir": "test/__cassettes__", }')).toEqual({
      path: FILE,
      mode: 'replay',
      cassetteDir: '/repo/test/__cassettes__',
    });
    expect(parse('{ "$schema": "./schema.json" }')).toEqual({ path: FILE });
  });

  it.each([
    [
      '{"mode": "rewind"}',
      `${FILE}: "mode" must be one of auto, record, replay, update, passthrough; got "rewind"`,
    ],
    ['{"mode": 3}', `${FILE}: "mode" must be one of auto, record, replay, update, passthrough; got number 3`],
    [
      '{"cassetteDir": ""}',
      `${FILE}: "cassetteDir" must be a folder path, relative to the file's folder; got ""`,
    ],
    ['{"modes": "replay"}', `${FILE}: unknown key "modes"; a project file holds mode, cassetteDir, lint`],
    ['["replay"]', `${FILE}: expected a JSON object such as {"mode": "replay"}; got an array`],
    [
      '{\n  "mode": "replay"\n  "cassetteDir": "x"\n}',
      `${FILE}: not valid JSON at line 3, column 3: CommaExpected`,
    ],
  ])('refuses %j in one line naming the file and the key', (text, message) => {
    expect(() => parse(text)).toThrow(message);
  });

  it('is found by walking up from the working folder, then from the cassette folder', async () => {
    const project = join(io.dir, 'project');
    const deep = join(project, 'packages', 'app', 'src');
    const elsewhere = join(io.dir, 'elsewhere');
    mkdirSync(deep, { recursive: true });
    mkdirSync(elsewhere);
    writeFileSync(join(project, PROJECT_FILE_NAME), '{"mode":"replay","cassetteDir":"fixtures"}');
    expect((await findProjectFile([deep]))?.path).toBe(join(project, PROJECT_FILE_NAME));
    expect(await findProjectFile([elsewhere])).toBeUndefined();
    // A client that starts tapedeck from another folder: the cassette's own folder leads to the file.
    const found = await projectFor(join(project, 'fixtures', 's.jsonl'), elsewhere);
    expect(found.project?.mode).toBe('replay');
    expect(found.cassette).toBe(join(project, 'fixtures', 's.jsonl'));
  });

  it('resolves a relative cassette inside cassetteDir, an absolute one as it is', async () => {
    const project = { path: FILE, cassetteDir: '/repo/fixtures' };
    expect(await resolveCassettePath('s.jsonl', project)).toBe('/repo/fixtures/s.jsonl');
    expect(await resolveCassettePath('/abs/s.jsonl', project)).toBe('/abs/s.jsonl');
    expect(await resolveCassettePath('s.jsonl', undefined, '/work')).toBe('/work/s.jsonl');
  });
});

describe('a bad project file stops run and replay before anything runs', () => {
  it.each([['run'], ['replay']])('%s exits 2 with the file and the key in one line', async (command) => {
    writeFileSync(join(io.dir, PROJECT_FILE_NAME), '{"mode":"sometimes"}');
    process.chdir(io.dir);
    try {
      const args =
        command === 'run'
          ? ['run', '--cassette', 's.jsonl', '--', 'node', 'server.js']
          : ['replay', join(io.dir, 's.jsonl')];
      expect(await io.run(args)).toBe(2);
    } finally {
      // Back to the folder the run started in (process.cwd() is the harness's stand-in here, not the real one).
      process.chdir(startedIn);
    }
    expect(io.stderr).toBe(
      `tapedeck: ${join(io.dir, PROJECT_FILE_NAME)}: "mode" must be one of auto, record, replay, update, passthrough; got "sometimes"\n`,
    );
  });
});
