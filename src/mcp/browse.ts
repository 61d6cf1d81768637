import { canonicalJson } from '../replay/cassette/normalize.js';
import { type JsonObject, toolName } from '../trace/jsonrpc.js';
import { computeStats, type TraceStats } from '../trace/stats.js';
import type { Json } from '../trace/types.js';
import {
  givenRequest,
  givenResponse,
  type LoadedTrajectory,
  recordedAt,
  requestLineOf,
  responseLineOf,
  type TrajectoryCache,
} from './loaded.js';
import type { TrajectoryStore } from './store.js';

/**
 * The read-only tools beyond shack-session-replay's: a trajectory page by page, a search across all of them by
 * tool name or text, and statistics (the same numbers `tapedeck stats --json` prints).
 */

export interface TrajectorySummary {
  name: string;
  format: 'tapedeck' | 'shack';
  events: number;
  /** Being recorded (or interrupted while recording: no `end` line yet). */
  recording: boolean;
  error?: string;
}

/** Every trajectory with its event count; a file that cannot be read is listed with why. */
export async function listTrajectories(
  store: TrajectoryStore,
  cache: TrajectoryCache,
  active: string | undefined,
): Promise<TrajectorySummary[]> {
  const out: TrajectorySummary[] = [];
  for (const file of store.list()) {
    try {
      const loaded = await cache.load(file);
      out.push({
        name: file.name,
        format: file.format,
        events: loaded.cassette.exchanges.length,
        recording: file.name === active || (file.format === 'tapedeck' && loaded.open),
      });
    } catch (err) {
      out.push({ name: file.name, format: file.format, events: 0, recording: false, error: message(err) });
    }
  }
  return out;
}

export interface TrajectoryEvent {
  /** 1-based position in the trajectory. */
  index: number;
  method: string;
  tool?: string;
  request: Json;
  /** Absent for a request the recording never saw answered. */
  response?: Json;
  recorded_at: string | null;
  latency_ms?: number;
}

export interface TrajectoryPage {
  name: string;
  format: string;
  events: number;
  offset: number;
  items: TrajectoryEvent[];
  /** The offset of the next page, or null on the last one. */
  next_offset: number | null;
}

export const PAGE_DEFAULTS = { limit: 50, maxLimit: 500 } as const;

/** One page of a trajectory's events: `offset` events skipped (0-based), at most `limit` returned. */
export function trajectoryPage(loaded: LoadedTrajectory, offset = 0, limit: number = PAGE_DEFAULTS.limit) {
  if (!Number.isInteger(offset) || offset < 0)
    throw new Error(`offset must be a whole number from 0; got ${offset}`);
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_DEFAULTS.maxLimit)
    throw new Error(`limit must be a whole number from 1 to ${PAGE_DEFAULTS.maxLimit}; got ${limit}`);
  const all = loaded.cassette.exchanges;
  const items = all.slice(offset, offset + limit).map((exchange) => eventOf(loaded, exchange.ordinal));
  const next = offset + items.length;
  const page: TrajectoryPage = {
    name: loaded.file.name,
    format: loaded.file.format,
    events: all.length,
    offset,
    items,
    next_offset: next < all.length ? next : null,
  };
  return page;
}

function eventOf(loaded: LoadedTrajectory, ordinal: number): TrajectoryEvent {
  const exchange = loaded.cassette.exchanges[ordinal]!;
  const event: TrajectoryEvent = {
    index: ordinal + 1,
    method: exchange.method,
    request: givenRequest(requestLineOf(loaded, exchange), exchange),
    recorded_at: recordedAt(exchange),
  };
  const tool = toolName(exchange.request);
  if (tool !== undefined) event.tool = tool;
  if (exchange.response !== undefined) {
    event.response = givenResponse(responseLineOf(loaded, exchange), exchange.response);
    if (exchange.respondedAtMs !== undefined) event.latency_ms = exchange.respondedAtMs;
  }
  return event;
}

export interface SearchHit {
  trajectory: string;
  index: number;
  method: string;
  tool?: string;
  /** Where the text was found. */
  in: 'tool' | 'method' | 'request' | 'response';
  snippet: string;
}

export const SEARCH_DEFAULTS = { maxHits: 50, snippet: 40 } as const;

/**
 * Events whose tool name, method, request or response contains `query` (case-insensitive), across every
 * trajectory; at most `maxHits` hits, with how many there are in all.
 */
export async function searchTrajectories(
  store: TrajectoryStore,
  cache: TrajectoryCache,
  query: string,
): Promise<{ query: string; total: number; hits: SearchHit[]; skipped: string[] }> {
  const needle = query.toLowerCase();
  if (needle.trim() === '') throw new Error('query must not be empty: give a tool name or text to look for');
  const hits: SearchHit[] = [];
  const skipped: string[] = [];
  let total = 0;
  for (const file of store.list()) {
    let loaded: LoadedTrajectory;
    try {
      loaded = await cache.load(file);
    } catch (err) {
      skipped.push(`${file.name}: ${message(err)}`);
      continue;
    }
    for (const exchange of loaded.cassette.exchanges) {
      const tool = toolName(exchange.request);
      const places: [SearchHit['in'], string][] = [
        ['tool', tool ?? ''],
        ['method', exchange.method],
        ['request', canonicalJson(exchange.request.params ?? {})],
        [
          'response',
          exchange.response === undefined ? '' : canonicalJson(withoutEnvelope(exchange.response)),
        ],
      ];
      const place = places.find(([, text]) => text.toLowerCase().includes(needle));
      if (place === undefined) continue;
      total++;
      if (hits.length >= SEARCH_DEFAULTS.maxHits) continue;
      const hit: SearchHit = {
        trajectory: file.name,
        index: exchange.ordinal + 1,
        method: exchange.method,
        in: place[0],
        snippet: snippet(place[1], needle),
      };
      if (tool !== undefined) hit.tool = tool;
      hits.push(hit);
    }
  }
  return { query, total, hits, skipped };
}

function snippet(text: string, needle: string): string {
  const at = text.toLowerCase().indexOf(needle);
  const from = Math.max(0, at - SEARCH_DEFAULTS.snippet);
  const to = Math.min(text.length, at + needle.length + SEARCH_DEFAULTS.snippet);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/** The statistics `tapedeck stats --json` prints for this trajectory. */
export function trajectoryStats(loaded: LoadedTrajectory): Promise<TraceStats> {
  return computeStats([loaded.meta, ...loaded.entries.map((entry) => entry.line)]);
}

function withoutEnvelope(message: JsonObject): JsonObject {
  const { jsonrpc: _v, id: _id, ...rest } = message;
  return rest;
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
