import { lstatSync } from 'node:fs';
import { buildCassette } from '../replay/cassette/cassette.js';
import type { Cassette, CassetteExchange } from '../replay/cassette/types.js';
import type { TraceEntry } from '../trace/import/opened.js';
import { loadTrace, noFollowTraceFiles } from '../trace/io.js';
import { isObject, type JsonObject, type RpcId } from '../trace/jsonrpc.js';
import type { Json, MessageLine, MetaLine } from '../trace/types.js';
import type { TrajectoryFile } from './store.js';

/**
 * A trajectory read into memory for lookups and browsing: its lines, its cassette (the same one `tapedeck replay`
 * plays), and the way back from a recorded line to what the agent gave. Reads are cached per file until it changes.
 */

export interface LoadedTrajectory {
  file: TrajectoryFile;
  meta: MetaLine;
  entries: TraceEntry[];
  cassette: Cassette;
  /** The trace had no `end` line: it is being recorded, or its recording was interrupted. */
  open: boolean;
}

interface CacheSlot {
  stamp: string;
  loaded: LoadedTrajectory;
}

const CACHE_SIZE = 8;

/**
 * @example const loaded = await cache.load(store.locate('my_session')); loaded.cassette.exchanges.length
 */
export class TrajectoryCache {
  private readonly slots = new Map<string, CacheSlot>();

  async load(file: TrajectoryFile): Promise<LoadedTrajectory> {
    const info = lstatSync(file.path);
    const stamp = `${info.size}:${info.mtimeMs}`;
    const slot = this.slots.get(file.path);
    if (slot !== undefined && slot.stamp === stamp) return slot.loaded;
    // Never through a link: not the file, not a rotated segment beside it (a link there is left out).
    const trace = await loadTrace(file.path, {}, noFollowTraceFiles);
    // A trajectory that holds several servers (an mcporter file copied in) replays its first one.
    const server = firstServer(trace.entries);
    const cassette = await buildCassette(trace.entries, {
      meta: trace.meta,
      ...(server !== undefined ? { server } : {}),
    });
    const open = !trace.entries.some((entry) => entry.line.type === 'end');
    const loaded: LoadedTrajectory = { file, meta: trace.meta, entries: trace.entries, cassette, open };
    this.slots.delete(file.path);
    this.slots.set(file.path, { stamp, loaded });
    while (this.slots.size > CACHE_SIZE) this.slots.delete(this.slots.keys().next().value as string);
    return loaded;
  }
}

function firstServer(entries: readonly TraceEntry[]): string | undefined {
  for (const { line } of entries) if (typeof line.server === 'string') return line.server;
  return undefined;
}

/** The line an exchange's request was read from (the cassette keeps the line's own `raw` object). */
export function requestLineOf(loaded: LoadedTrajectory, exchange: CassetteExchange): MessageLine | undefined {
  return lineHolding(loaded, exchange.message);
}

/** The line an exchange's response was read from, or undefined when it was never answered. */
export function responseLineOf(
  loaded: LoadedTrajectory,
  exchange: CassetteExchange,
): MessageLine | undefined {
  return exchange.response === undefined ? undefined : lineHolding(loaded, exchange.response);
}

function lineHolding(loaded: LoadedTrajectory, raw: JsonObject): MessageLine | undefined {
  for (const { line } of loaded.entries) if (line.type === undefined && line.raw === raw) return line;
  return undefined;
}

/**
 * A recorded response as the agent gave it: the object it passed to `record_event` (a bare value unwrapped from
 * `result`). For traces tapedeck did not record through `record_event`, the JSON-RPC response without `jsonrpc` and
 * `id`. `liveId`, when given, stands for the id in a response that was recorded with one.
 *
 * @example givenResponse(line, exchange.response) // → { result: { hits: ['doc1'] } }
 */
export function givenResponse(line: MessageLine | undefined, raw: JsonObject, liveId?: RpcId): Json {
  const given = line?.given;
  if (isObject(given) && given.bare === true) return raw.result ?? null;
  if (isObject(given) && Array.isArray(given.keys)) return pick(raw, given.keys, liveId);
  const { jsonrpc: _v, id: _id, ...rest } = raw;
  return rest;
}

/** A recorded request as the agent gave it (its id is the event number it was recorded as). */
export function givenRequest(line: MessageLine | undefined, exchange: CassetteExchange): Json {
  const raw = isObject(line?.raw) ? line.raw : exchange.message;
  const given = line?.given;
  if (isObject(given) && Array.isArray(given.keys)) return pick(raw, given.keys, undefined);
  const { jsonrpc: _v, ...rest } = raw;
  return rest;
}

function pick(raw: JsonObject, keys: Json[], liveId: RpcId | undefined): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) {
    if (typeof key !== 'string') continue;
    if (key === 'id' && liveId !== undefined) out.id = liveId;
    else if (key in raw) out[key] = raw[key] as Json;
  }
  return out;
}

/** When an exchange was recorded, as ISO-8601, or null when the trace does not say. */
export function recordedAt(exchange: CassetteExchange): string | null {
  return exchange.time === undefined ? null : new Date(exchange.time).toISOString();
}
