/**
 * The public API: what each entry point of package.json exports is written down in api/mcp-tapedeck.api.md,
 * generated from the sources by scripts/api-report.mjs (`npm run api`). A change to what users can import therefore
 * shows up as a diff of that file, which someone has to commit on purpose. The main entry stays short, every type a
 * public name hands out can be imported, and every index.ts names what it exports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiSurface, type EntrySurface, REPORT_PATH, renderReport } from '../../scripts/api-report.mjs';

const root = join(import.meta.dirname, '..', '..');
/** The most run-time names `import … from 'mcp-tapedeck'` may give: what most users call, not everything there is. */
const MAIN_ENTRY_LIMIT = 40;

let surface: EntrySurface[] = [];
beforeAll(() => {
  surface = apiSurface(root);
}, 120_000);

const entry = (name: string) => {
  const found = surface.find((each) => each.name === name);
  if (!found) throw new Error(`no entry point ${name} in package.json's exports`);
  return found;
};

function indexFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? indexFiles(path) : name === 'index.ts' ? [path] : [];
  });
}

describe('the public API', () => {
  it('is the one the committed report describes', () => {
    // A checkout that turned line ends into CRLF (Windows) holds the same report.
    const committed = readFileSync(join(root, REPORT_PATH), 'utf8').replace(/\r\n/g, '\n');
    expect(
      renderReport(surface),
      `the public API changed: run npm run api and review the diff of ${REPORT_PATH}`,
    ).toBe(committed);
  });

  it(`gives at most ${MAIN_ENTRY_LIMIT} run-time names from the main entry`, () => {
    const main = entry('mcp-tapedeck');
    expect(main.runtime.length).toBeGreaterThan(10);
    expect(
      main.runtime.length,
      `mcp-tapedeck exports ${main.runtime.length} run-time names: keep the main entry to what most users call and ` +
        'leave the rest to the entry point of its family',
    ).toBeLessThanOrEqual(MAIN_ENTRY_LIMIT);
  });

  it('names only types users can import: every type an export hands out is exported by some entry point', () => {
    const unexported = surface.flatMap((each) =>
      each.unexported.flatMap((item) => item.lines.map((line) => `${each.name}: ${line}`)),
    );
    expect(unexported, 'export these types, or mark the member that names them @internal').toEqual([]);
  });

  it('reports exactly what each entry point exports at run time', async () => {
    expect(surface.map((each) => each.name)).toEqual(
      expect.arrayContaining([
        'mcp-tapedeck',
        'mcp-tapedeck/trace',
        'mcp-tapedeck/trace/io',
        'mcp-tapedeck/replay',
        'mcp-tapedeck/live',
      ]),
    );
    for (const each of surface) {
      const loaded = (await import(pathToFileURL(join(root, each.source)).href)) as Record<string, unknown>;
      expect(Object.keys(loaded).sort(), each.name).toEqual(each.runtime.map((item) => item.name).sort());
    }
  }, 60_000);

  it('keeps internals out: the names that only tapedeck itself uses stay unexported', () => {
    const everything = new Set(
      surface.flatMap((each) => [...each.runtime, ...each.types].map((item) => item.name)),
    );
    for (const internal of [
      'Pump',
      'drainWithin',
      'keyQueues',
      'isRetry',
      'ReplayEngine',
      'Matcher',
      'LineFramer',
    ])
      expect(everything.has(internal), internal).toBe(false);
  });

  it('hands out one function under one name, whichever entry point it is imported from', async () => {
    const main = await import('../../src/index.js');
    const io = await import('../../src/trace/io-entry.js');
    const replay = await import('../../src/live/replay-entry.js');
    const capture = await import('../../src/capture/index.js');
    expect(main.openTrace).toBe(io.openTrace);
    expect(main.useCassette).toBe(replay.useCassette);
    expect(replay.recordTransport).toBe(capture.recordTransport);
  });

  it('lists what every index.ts exports by name (no `export *`)', () => {
    const offenders = indexFiles(join(root, 'src'))
      .filter((file) => /^export (type )?\*/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file).split(sep).join('/'));
    expect(offenders).toEqual([]);
  });
});
