import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndexer } from '../../../src/collector/columns.js';
import { ingestJsonl } from '../../../src/collector/ingest.js';
import { openSqliteStore, openStore } from '../../../src/collector/open-store.js';
import { type SqliteDriver, sqliteOpener } from '../../../src/collector/sqlite.js';
import type { CollectorStore, TraceRow, WriteMode } from '../../../src/collector/store.js';
import { freshSchema, NO_POSTGRES } from '../../helpers/postgres.js';
import { scratchDir } from '../../helpers/scratch.js';

/** One engine the store contract runs on: how to open a fresh, empty store of it (and remove it after). */
export interface Engine {
  name: string;
  /** Why it cannot run here, or undefined. */
  skip: string | undefined;
  open(now?: () => number): Promise<{ store: CollectorStore; dispose: () => Promise<void> }>;
}

/** Why a SQLite driver cannot run on this Node.js, or undefined. */
function driverMissing(driver: SqliteDriver): string | undefined {
  try {
    sqliteOpener(driver);
    return undefined;
  } catch {
    return driver === 'node:sqlite'
      ? `(skipped: Node.js ${process.version} has no complete node:sqlite; it comes with 22.13, CI runs it on Node.js 24)`
      : '(skipped: better-sqlite3 is not built for this Node.js)';
  }
}

function sqliteEngine(driver: SqliteDriver): Engine {
  return {
    name: `sqlite (${driver})`,
    skip: driverMissing(driver),
    async open(now) {
      const dir = scratchDir('tapedeck-store-');
      const store = openSqliteStore(join(dir, 'tapedeck.db'), now, driver);
      return {
        store,
        dispose: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const ENGINES: Engine[] = [
  sqliteEngine('better-sqlite3'),
  sqliteEngine('node:sqlite'),
  {
    name: 'postgres',
    skip: NO_POSTGRES,
    async open(now) {
      const schema = await freshSchema();
      const store = await openStore(schema.url, now);
      return {
        store,
        dispose: async () => {
          await store.close();
          await schema.drop();
        },
      };
    },
  },
];

/** Writes JSONL text into a trace through the collector's ingestion (one transaction per `batchLines`). */
export async function push(
  store: CollectorStore,
  row: TraceRow,
  jsonl: string,
  mode: WriteMode = 'upload',
  batchLines = 1000,
) {
  async function* chunks() {
    yield new TextEncoder().encode(jsonl);
  }
  return ingestJsonl(chunks(), { store, n: row.n, mode, indexer: new LineIndexer(), batchLines });
}

/** A meta line. */
export const meta = (label = 'contract') =>
  JSON.stringify({
    v: 1,
    type: 'meta',
    startedAt: '2026-03-01T00:00:00.000Z',
    label,
    kind: 'mcp',
    traceId: 't1',
    segment: 0,
    transport: 'stdio',
    server: 'srv',
  });

/** A tools/call request and its answer (an error when `fail`), as seq `seq` and `seq + 1`. */
export function call(seq: number, tool: string, fail = false): string[] {
  const t = '2026-03-01T00:00:01.000Z';
  const id = seq;
  const result = fail
    ? `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"no"}}`
    : `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"ok"}]}}`;
  return [
    `{"t":"${t}","seq":${seq},"dir":"in","raw":{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{}}}}`,
    `{"t":"${t}","seq":${seq + 1},"dir":"out","raw":${result}}`,
  ];
}
