import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { TapedeckError } from '../base/errors.js';

/**
 * The SQLite driver, better-sqlite3, is an optional dependency: it is a native module, and its install either
 * downloads a prebuilt binary from outside the package registry or compiles SQLite (a minute or more, and a C++
 * toolchain). Only the collector needs it, so it is loaded here, on first use, and nothing else in tapedeck
 * depends on it being there. When it is missing the collector says so in one line, with what to do.
 *
 * The types below are the part of its API the collector uses, declared here so that tapedeck's published types
 * compile without `@types/better-sqlite3`.
 */

/** A prepared statement. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/** An open database. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` so that each call of the returned function runs in one transaction. */
  transaction<T>(fn: () => T): () => T;
  close(): unknown;
}

/** Opens a database file (created when missing). */
export type SqliteOpener = (path: string) => SqliteDatabase;

// Compile-time only: the real driver fits the declared subset (a driver update that broke it fails the typecheck).
const fits = (db: BetterSqlite3.Database): SqliteDatabase => db;
void fits;

type Loader = () => unknown;

const defaultLoader: Loader = () => createRequire(import.meta.url)('better-sqlite3');
let loader: Loader = defaultLoader;
let opener: SqliteOpener | undefined;

/**
 * Replaces how the driver module is loaded (`undefined` restores the default): lets tests see what a machine
 * without the driver sees, without uninstalling it.
 *
 * @example setSqliteLoader(() => { throw Object.assign(new Error('nope'), { code: 'MODULE_NOT_FOUND' }); });
 */
export function setSqliteLoader(load: Loader | undefined): void {
  loader = load ?? defaultLoader;
  opener = undefined;
}

/**
 * Loads the driver (once) and returns a function that opens a database with it. Fails with TapedeckError
 * `unavailable` — one line saying what is missing and how to get it — when the driver is not installed, was
 * installed without its native build, or was built for another Node.js.
 *
 * @example const db = sqliteOpener()('/home/me/.tapedeck/tapedeck.db');
 */
export function sqliteOpener(): SqliteOpener {
  if (opener !== undefined) return opener;
  let Database: typeof BetterSqlite3;
  try {
    Database = loader() as typeof BetterSqlite3;
    // The native part loads with the first database, not with the module: try it now, so that a missing build
    // is told apart from a database file that cannot be opened.
    new Database(':memory:').close();
  } catch (err) {
    throw new TapedeckError('unavailable', missingDriverMessage(err), { cause: err });
  }
  opener = (path) => new Database(path);
  return opener;
}

/** The folder whose node_modules holds the installed driver: where `npm rebuild` finds it. */
function installedRoot(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    // <root>/node_modules/better-sqlite3/package.json
    return dirname(dirname(dirname(manifest)));
  } catch {
    return undefined;
  }
}

const HOW =
  'it fetches a prebuilt binary for this platform from GitHub, or else compiles SQLite with python3, make and a C++ compiler';

function missingDriverMessage(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  const root = installedRoot();
  const rebuild = `\`npm rebuild better-sqlite3 --ignore-scripts=false\`${root === undefined ? '' : ` in ${root}`}`;
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || root === undefined) {
    return (
      'the collector needs better-sqlite3 (SQLite), an optional dependency that is not installed (its install failed ' +
      'or was skipped); install it beside tapedeck: `npm install -g better-sqlite3@12` for a global tapedeck, ' +
      `\`npm install better-sqlite3@12\` in your project otherwise (${HOW})`
    );
  }
  if (/NODE_MODULE_VERSION/.test(text)) {
    return `the collector's SQLite driver, better-sqlite3, was built for another Node.js than ${process.version}; run ${rebuild}`;
  }
  if (/bindings file|better_sqlite3\.node|ERR_DLOPEN_FAILED/.test(`${text} ${String(code)}`)) {
    return (
      'the collector needs better-sqlite3 (SQLite), which is installed without its native part (install scripts ' +
      `were off, or its build failed); run ${rebuild} (${HOW})`
    );
  }
  return `the collector's SQLite driver, better-sqlite3, does not load: ${text.split('\n')[0]}`;
}
