import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { TapedeckError } from '../base/errors.js';

/**
 * The collector's SQLite driver. On Node.js 22.13 and later it is `node:sqlite`, built into Node.js: nothing to
 * install or build. On Node.js 20 it is better-sqlite3, an optional dependency: a native module, whose install
 * either downloads a prebuilt binary from outside the package registry or compiles SQLite (a minute or more, and
 * a C++ toolchain). Only the collector needs SQLite, so the driver is loaded here, on first use, and nothing else in
 * tapedeck depends on it being there. When none is there the collector says so in one line, with what to do.
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

/** The two ways tapedeck reaches SQLite: the one built into Node.js (22.13 and later) and better-sqlite3. */
export type SqliteDriver = 'node:sqlite' | 'better-sqlite3';

const requireHere = createRequire(import.meta.url);

/**
 * Runs `load` (which loads `node:sqlite`) without the one-time "SQLite is an experimental feature" warning some Node.js versions print
 * on its first load (22.x does, 24.x does not): the user did not ask for an experimental feature, tapedeck did,
 * and the module's API is what tapedeck is written against. Only that warning is held back; any other warning
 * emitted meanwhile goes out as usual.
 *
 * @example const sqlite = withoutSqliteWarning(() => require('node:sqlite'));
 */
export function withoutSqliteWarning<T>(load: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = function filtered(warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const name = typeof warning === 'string' ? type : warning.name;
    if (name === 'ExperimentalWarning' && /^SQLite\b/.test(text)) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}

const loadBuiltin: Loader = () => withoutSqliteWarning(() => requireHere('node:sqlite'));
const loadBetter: Loader = () => requireHere('better-sqlite3');

const defaults: Record<SqliteDriver, Loader> = { 'node:sqlite': loadBuiltin, 'better-sqlite3': loadBetter };
const loaders: Record<SqliteDriver, Loader> = { ...defaults };
const openers = new Map<SqliteDriver, SqliteOpener>();

/**
 * Replaces how a driver module is loaded (`undefined` restores the default; better-sqlite3 unless `driver` says
 * otherwise): lets tests see what a machine without a driver sees, without uninstalling it.
 *
 * @example setSqliteLoader(() => { throw Object.assign(new Error('nope'), { code: 'MODULE_NOT_FOUND' }); });
 */
export function setSqliteLoader(load: Loader | undefined, driver: SqliteDriver = 'better-sqlite3'): void {
  loaders[driver] = load ?? defaults[driver];
  openers.clear();
}

/**
 * Loads a driver (once) and returns a function that opens a database with it. Without `driver`: `node:sqlite` when
 * the running Node.js has it complete (22.13 and later), so that nothing native has to be built, else better-sqlite3.
 * Fails with TapedeckError `unavailable` — one line saying what is missing and how to get it — when neither
 * loads (better-sqlite3 not installed, installed without its native build, or built for another Node.js).
 *
 * @example const db = sqliteOpener()('/home/me/.tapedeck/tapedeck.db');
 */
export function sqliteOpener(driver?: SqliteDriver): SqliteOpener {
  if (driver === 'node:sqlite') return builtinOpener();
  if (driver === undefined) {
    try {
      return builtinOpener();
    } catch {
      // This Node.js has no complete node:sqlite: better-sqlite3 it is.
    }
  }
  return betterOpener();
}

/** The name of the driver `sqliteOpener()` picks here (loading it). */
export function sqliteDriver(): SqliteDriver {
  const open = sqliteOpener();
  return open === openers.get('node:sqlite') ? 'node:sqlite' : 'better-sqlite3';
}

/** The minimal shape of node:sqlite's API that the adapter below uses (its types ship with @types/node 22.13+). */
interface BuiltinStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate?(...params: unknown[]): IterableIterator<unknown>;
}
interface BuiltinDatabase {
  prepare(sql: string): BuiltinStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction?: boolean;
}
interface BuiltinModule {
  DatabaseSync: new (path: string) => BuiltinDatabase;
  StatementSync: { prototype: Partial<BuiltinStatement> };
}

function builtinOpener(): SqliteOpener {
  const known = openers.get('node:sqlite');
  if (known !== undefined) return known;
  const mod = loaders['node:sqlite']() as BuiltinModule;
  // Statement iteration came with 22.13, when node:sqlite stopped needing a flag; before it, better-sqlite3.
  if (
    typeof mod?.DatabaseSync !== 'function' ||
    typeof mod.StatementSync?.prototype?.iterate !== 'function'
  ) {
    throw new TapedeckError('unavailable', `node:sqlite in Node.js ${process.version} is not complete`);
  }
  const opener: SqliteOpener = (path) => new BuiltinSqlite(new mod.DatabaseSync(path));
  openers.set('node:sqlite', opener);
  return opener;
}

function betterOpener(): SqliteOpener {
  const known = openers.get('better-sqlite3');
  if (known !== undefined) return known;
  let Database: typeof BetterSqlite3;
  try {
    Database = loaders['better-sqlite3']() as typeof BetterSqlite3;
    // The native part loads with the first database, not with the module: try it now, so that a missing build
    // is told apart from a database file that cannot be opened.
    new Database(':memory:').close();
  } catch (err) {
    throw new TapedeckError('unavailable', missingDriverMessage(err), { cause: err });
  }
  const opener: SqliteOpener = (path) => new Database(path);
  openers.set('better-sqlite3', opener);
  return opener;
}

/** node:sqlite behind the subset of better-sqlite3's API the collector is written against. */
class BuiltinSqlite implements SqliteDatabase {
  private depth = 0;

  constructor(private readonly db: BuiltinDatabase) {}

  prepare(sql: string): SqliteStatement {
    const statement = this.db.prepare(sql);
    return {
      run: (...params) => {
        const result = statement.run(...params);
        return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
      },
      get: (...params) => statement.get(...params),
      all: (...params) => statement.all(...params),
      iterate: (...params) =>
        (statement.iterate as (...p: unknown[]) => IterableIterator<unknown>)(...params),
    };
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** `PRAGMA source`: the first column of the first row when `simple`, else every row (as better-sqlite3). */
  pragma(source: string, options?: { simple?: boolean }): unknown {
    const statement = this.db.prepare(`PRAGMA ${source}`);
    if (options?.simple !== true) return statement.all();
    const row = statement.get() as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }

  /** As better-sqlite3: BEGIN/COMMIT around `fn`, ROLLBACK when it throws; a nested call is a savepoint. */
  transaction<T>(fn: () => T): () => T {
    return () => {
      const savepoint = this.depth > 0 ? `tapedeck_${this.depth}` : undefined;
      this.db.exec(savepoint === undefined ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
      this.depth += 1;
      try {
        const result = fn();
        this.db.exec(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`);
        return result;
      } catch (err) {
        if (savepoint === undefined) {
          // SQLite may have rolled back already (some errors end the transaction themselves).
          if (this.db.isTransaction !== false) {
            try {
              this.db.exec('ROLLBACK');
            } catch {}
          }
        } else {
          this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        }
        throw err;
      } finally {
        this.depth -= 1;
      }
    };
  }

  close(): void {
    this.db.close();
  }
}

/** The folder whose node_modules holds the installed driver: where `npm rebuild` finds it. */
function installedRoot(): string | undefined {
  try {
    const manifest = requireHere.resolve('better-sqlite3/package.json');
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
      `\`npm install better-sqlite3@12\` in your project otherwise (${HOW}); or run tapedeck on Node.js 22.13 or later, ` +
      'which has SQLite built in'
    );
  }
  if (/NODE_MODULE_VERSION/.test(text)) {
    return `the collector's SQLite driver, better-sqlite3, was built for another Node.js than ${process.version}; run ${rebuild}`;
  }
  if (/bindings file|better_sqlite3\.node|ERR_DLOPEN_FAILED/.test(`${text} ${String(code)}`)) {
    return (
      'the collector needs better-sqlite3 (SQLite), which is installed without its native part (install scripts ' +
      `were off, or its build failed); run ${rebuild} (${HOW}); or run tapedeck on Node.js 22.13 or later, which has ` +
      'SQLite built in'
    );
  }
  return `the collector's SQLite driver, better-sqlite3, does not load: ${text.split('\n')[0]}`;
}
