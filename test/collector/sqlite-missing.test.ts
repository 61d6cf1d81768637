import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSqliteLoader } from '../../src/collector/sqlite.js';
import { useCliHarness } from '../helpers/cli.js';
import { closedPort, sampleTrace } from './helpers.js';

/**
 * A machine where better-sqlite3 (an optional dependency) could not be installed or built, seen through the
 * loader seam: the module is still on disk here, but the collector is shown what such a machine shows it.
 */
const notInstalled = () => {
  throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
};
/** A Node.js without node:sqlite (20, or 22 before 22.13): the collector then needs better-sqlite3. */
const noBuiltin = () => {
  throw Object.assign(new Error('No such built-in module: node:sqlite'), {
    code: 'ERR_UNKNOWN_BUILTIN_MODULE',
  });
};
/** What better-sqlite3 throws when its install script never ran: the module loads, its native part does not. */
const notBuilt = () =>
  function Database() {
    throw new Error(
      'Could not locate the bindings file. Tried:\n → /x/node_modules/better-sqlite3/build/better_sqlite3.node',
    );
  };

describe('the collector without its SQLite driver', () => {
  const io = useCliHarness('tapedeck-no-sqlite-');
  beforeEach(() => setSqliteLoader(noBuiltin, 'node:sqlite'));
  afterEach(() => {
    setSqliteLoader(undefined);
    setSqliteLoader(undefined, 'node:sqlite');
  });

  it('serve says in one line that better-sqlite3 is not installed and how to get it, exit 1', async () => {
    setSqliteLoader(notInstalled);
    expect(await io.run(['serve', '--db', join(io.dir, 'c.db'), '--port', '0'])).toBe(1);
    expect(io.stderr.split('\n')).toHaveLength(2);
    expect(io.stderr).toMatch(
      /^tapedeck: the collector needs better-sqlite3 \(SQLite\), an optional dependency that is not installed .*`npm install -g better-sqlite3@12`.*python3, make and a C\+\+ compiler\); or run tapedeck on Node\.js 22\.13 or later, which has SQLite built in\n$/,
    );
  });

  it('serve says it is installed without its native part when the install scripts were off', async () => {
    setSqliteLoader(notBuilt);
    expect(await io.run(['serve', '--db', join(io.dir, 'c.db'), '--port', '0'])).toBe(1);
    expect(io.stderr).toMatch(
      /^tapedeck: the collector needs better-sqlite3 \(SQLite\), which is installed without its native part .*`npm rebuild better-sqlite3 --ignore-scripts=false` in \/.*\n$/,
    );
    expect(io.stderr.split('\n')).toHaveLength(2);
  });

  it('record --live (its own collector) says the same before it records anything', async () => {
    setSqliteLoader(notInstalled);
    const out = join(io.dir, 'traces');
    const code = await io.run(['record', '--live', '--out', out, '--', process.execPath, '-e', '0']);
    expect(code).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: the collector needs better-sqlite3 .*\n$/);
    expect(io.stderr.split('\n')).toHaveLength(2);
  });

  it('every other command works and never loads the driver (push only talks HTTP)', async () => {
    let loads = 0;
    setSqliteLoader(() => {
      loads += 1;
      return notInstalled();
    });
    const trace = join(io.dir, 'clean.jsonl');
    writeFileSync(trace, sampleTrace({ label: 'clean', calls: 2 }));
    expect(await io.run(['show', trace])).toBe(0);
    expect(await io.run(['stats', trace, '--json'])).toBe(0);
    expect(await io.run(['ls', io.dir])).toBe(0);
    expect(await io.run(['scan', trace])).toBe(0);
    const port = await closedPort();
    // No collector listens there: push fails on the connection, not on SQLite.
    expect(await io.run(['push', trace, '--to', `http://127.0.0.1:${port}`, '--token', 't'])).toBe(1);
    expect(io.stderr).not.toMatch(/sqlite/i);
    expect(loads).toBe(0);
  });
});
