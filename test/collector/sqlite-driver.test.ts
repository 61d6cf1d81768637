import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/collector/open-store.js';
import {
  setSqliteLoader,
  sqliteDriver,
  sqliteOpener,
  withoutSqliteWarning,
} from '../../src/collector/sqlite.js';
import { useCliHarness } from '../helpers/cli.js';
import { call, meta, push } from './store/engines.js';

/** Whether this Node.js has a complete node:sqlite (22.13 and later). */
function builtinMissing(): string | undefined {
  try {
    sqliteOpener('node:sqlite');
    return undefined;
  } catch {
    return `(skipped: Node.js ${process.version} has no complete node:sqlite; it comes with 22.13, CI runs it on Node.js 24)`;
  }
}
const NO_BUILTIN = builtinMissing();

const notInstalled = () => {
  throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
};

describe('loading node:sqlite', () => {
  it("holds back only SQLite's experimental-feature warning, and lets every other warning out", async () => {
    const seen: string[] = [];
    const listen = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
    process.on('warning', listen);
    try {
      const value = withoutSqliteWarning(() => {
        // What Node.js 22 emits on the first load of node:sqlite.
        process.emitWarning(
          'SQLite is an experimental feature and might change at any time',
          'ExperimentalWarning',
        );
        process.emitWarning(new Error('SQLite is fine'));
        process.emitWarning('Fetch is an experimental feature', { type: 'ExperimentalWarning' });
        return 42;
      });
      expect(value).toBe(42);
      // The filter is gone once the load returns.
      process.emitWarning(
        'SQLite is an experimental feature and might change at any time',
        'ExperimentalWarning',
      );
      // Warnings reach listeners on a later tick.
      await new Promise((done) => setImmediate(done));
    } finally {
      process.removeListener('warning', listen);
    }
    expect(seen).toEqual([
      'Error: SQLite is fine',
      'ExperimentalWarning: Fetch is an experimental feature',
      'ExperimentalWarning: SQLite is an experimental feature and might change at any time',
    ]);
  });
});

describe.skipIf(NO_BUILTIN !== undefined)(`the collector on node:sqlite ${NO_BUILTIN ?? ''}`, () => {
  const io = useCliHarness('tapedeck-node-sqlite-');
  afterEach(() => setSqliteLoader(undefined));

  it('is the driver picked where Node.js has it, and needs no better-sqlite3', async () => {
    setSqliteLoader(notInstalled);
    expect(sqliteDriver()).toBe('node:sqlite');
    const store = openSqliteStore(join(io.dir, 'c.db'));
    try {
      const row = await store.create({ format: 'tapedeck', state: 'uploading' });
      const lines = call(1, 'echo');
      await push(store, row, `${meta()}\n${lines.join('\n')}\n`);
      expect((await store.pageLines(row.n, 0, 10, {})).map((line) => line.text)).toEqual(lines);
    } finally {
      await store.close();
    }
  });
});
