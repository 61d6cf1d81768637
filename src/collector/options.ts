import type { Scheduler } from '../base/scheduler.js';
import type { CollectorStore } from './store.js';

/**
 * The collector's knobs as data, with their defaults in one place. The CLI (`tapedeck serve`) fills these from
 * flags; `record --live` and tests build them directly.
 */

/** A token bucket: `burst` requests at once, refilled at `perSecond`; per client address. */
export interface RateLimit {
  burst: number;
  perSecond: number;
}

/** What retention keeps: traces newer than `maxAgeMs` (by last activity), at most `maxBytes` of lines in all. */
export interface Retention {
  maxAgeMs?: number | undefined;
  maxBytes?: number | undefined;
  /** How often retention runs after the first run at start. */
  intervalMs: number;
}

/** The live websocket: heartbeat and how far a slow viewer may fall behind before lines are dropped for it. */
export interface LiveOptions {
  heartbeatMs: number;
  /** Bytes waiting in a socket's send buffer past which live lines are dropped (and counted) for that viewer. */
  maxBufferedBytes: number;
  /** Lines per frame while a snapshot is sent. */
  snapshotLines: number;
}

/**
 * What one upload may hold in memory, and how many large ones run at once. A body is never held whole: it is split
 * into lines as it arrives (or spooled to disk for the formats that need a second pass), so what an upload holds is
 * at most one line (or one JSON document of a format read whole) plus one batch of lines on its way to the store.
 */
export interface UploadLimits {
  /** The longest line — and JSON document of a format read whole (shack, HAR) — accepted; past it 413, at once. */
  maxLineBytes: number;
  /** A batch is written (one transaction) once its lines hold this many bytes, or `batchLines` lines. */
  batchBytes: number;
  /** Large uploads and appends ingested at once; others wait, their bodies unread, for one to finish. */
  concurrent: number;
  /** A body is large past this many bytes, or when it does not declare its length. */
  largeBytes: number;
}

export interface CollectorOptions {
  /**
   * The SQLite database file (created 0600, its folder 0700), or with startCollector a `postgres://` URL (see
   * docs/team-collector.md).
   */
  dbPath: string;
  /** @internal An opened store to use instead of opening `dbPath` (a test's store, or a Postgres one). */
  store?: CollectorStore;
  /** Where uploads in formats read in two passes are spooled; default the database file's folder. */
  spoolDir?: string;
  /** The write token. */
  token: string;
  /** Shown to people as where the token lives (the startup line). */
  tokenPath?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Reads need the token too; default: only when `host` is not a loopback address. */
  requireReadToken?: boolean;
  /** Host names accepted in `Host` / `Origin` besides local ones (only with a non-loopback host). */
  allowHosts?: readonly string[];
  /** Largest request body: uploads and appends (413 past it). Small JSON bodies have their own, lower limit. */
  maxBodyBytes?: number;
  /** Memory bounds of uploads (see UploadLimits); defaults in COLLECTOR_DEFAULTS.uploads. */
  uploads?: Partial<UploadLimits>;
  rateLimit?: RateLimit;
  retention?: Partial<Retention>;
  live?: Partial<LiveOptions>;
  /** Where the built web viewer is (index.html and assets); default `<package>/dist/viewer`. */
  viewerDir?: string;
  /** The clock of stored times, retention and share expiry; default the scheduler's. */
  now?: () => number;
  /** @internal The clock and timers of heartbeats, retention runs and share expiry (see src/base/scheduler.ts). */
  scheduler?: Scheduler;
}

export const COLLECTOR_DEFAULTS = {
  host: '127.0.0.1',
  port: 7420,
  maxBodyBytes: 512 * 1024 * 1024,
  /** Bodies of the small JSON requests (create a live trace, create a share). */
  maxJsonBytes: 64 * 1024,
  rateLimit: { burst: 600, perSecond: 200 } satisfies RateLimit,
  retention: { intervalMs: 60 * 60 * 1000 } satisfies Retention,
  live: { heartbeatMs: 15_000, maxBufferedBytes: 4 * 1024 * 1024, snapshotLines: 1000 } satisfies LiveOptions,
  /** Lines written per transaction while ingesting. */
  batchLines: 5000,
  uploads: {
    // Twice the recorder's default --max-message-bytes: a line it writes always fits, with room for escaping.
    maxLineBytes: 32 * 1024 * 1024,
    batchBytes: 8 * 1024 * 1024,
    concurrent: 2,
    largeBytes: 1024 * 1024,
  } satisfies UploadLimits,
  /** Pages of `GET …/lines`: default and largest `limit`. */
  pageLines: 500,
  maxPageLines: 5000,
  /** Share links: default and longest lifetime. */
  shareTtlMs: 7 * 24 * 60 * 60 * 1000,
  maxShareTtlMs: 365 * 24 * 60 * 60 * 1000,
} as const;
