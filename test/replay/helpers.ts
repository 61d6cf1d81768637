import { fileURLToPath } from 'node:url';
import { buildCassette, type CassetteOptions } from '../../src/replay/cassette/cassette.js';
import type { Cassette } from '../../src/replay/cassette/types.js';
import { linkedChannels } from '../../src/replay/engine/channel.js';
import { ReplayEngine, type ReplayEvent } from '../../src/replay/engine/engine.js';
import type { ReplayOptions } from '../../src/replay/options.js';
import { loadTrace } from '../../src/trace/io.js';
import { isObject, type JsonObject } from '../../src/trace/jsonrpc.js';
import type { Direction, Json, MessageLine, MetaLine, TraceLine } from '../../src/trace/types.js';

export const INTEROP = fileURLToPath(new URL('../fixtures/interop/', import.meta.url));

/** A cassette from one of the interop fixtures, e.g. `mcp-tape/everything-stdio.jsonl`. */
export async function fixtureCassette(
  name: string,
  options: Omit<CassetteOptions, 'meta'> = {},
): Promise<Cassette> {
  const trace = await loadTrace(INTEROP + name);
  return buildCassette(trace.entries, { ...options, meta: trace.meta });
}

/**
 * Trace lines from a compact script: `['in', message, atMs?]`. Times default to 1 ms apart, so offsets are known.
 *
 * @example traceLines([['in', { jsonrpc: '2.0', id: 1, method: 'tools/list' }], ['out', { jsonrpc: '2.0', id: 1, result: {} }]])
 */
export function traceLines(
  steps: [Direction, Json, number?][],
  extra: Partial<MessageLine> = {},
): TraceLine[] {
  const meta: MetaLine = { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'test' };
  let at = 0;
  const lines: TraceLine[] = [meta];
  steps.forEach(([dir, raw, ms], i) => {
    at = ms ?? at + 1;
    lines.push({
      t: new Date(Date.parse(meta.startedAt) + at).toISOString(),
      seq: i + 1,
      dir,
      raw,
      ...extra,
    });
  });
  return lines;
}

/** A request message. */
export function req(id: number | string, method: string, params?: JsonObject): JsonObject {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A result response. */
export function res(id: number | string, result: Json): JsonObject {
  return { jsonrpc: '2.0', id, result };
}

/** A notification. */
export function note(method: string, params?: JsonObject): JsonObject {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** `tools/call` params. */
export function call(name: string, args: JsonObject = {}, extra: JsonObject = {}): JsonObject {
  return { name, arguments: args, ...extra };
}

/**
 * A fake client on a linked channel to a replay engine: sends requests, collects everything the engine sends, and
 * answers server→client requests with `answer(message)` (undefined = never answer).
 */
export function fakeClient(
  cassette: Cassette,
  options: ReplayOptions = {},
  answer: (request: JsonObject) => Json | undefined = () => undefined,
) {
  const [server, client] = linkedChannels();
  const engine = new ReplayEngine(cassette, server, options);
  const received: JsonObject[] = [];
  const events: ReplayEvent[] = [];
  engine.onEvent((event) => events.push(event));
  const waiting = new Map<string, (message: JsonObject) => void>();
  client.onMessage((message) => {
    if (!isObject(message)) return;
    received.push(message);
    const isRequest = typeof message.method === 'string' && 'id' in message;
    if (isRequest) {
      const result = answer(message);
      if (result !== undefined) client.send({ jsonrpc: '2.0', id: message.id ?? null, result });
      return;
    }
    if ('result' in message || 'error' in message) waiting.get(JSON.stringify(message.id))?.(message);
  });
  return {
    engine,
    received,
    events,
    /** Sends a request and resolves with its response (rejects after 2 s: tests never hang). */
    request(id: number | string, method: string, params?: JsonObject): Promise<JsonObject> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response to ${method} (id ${id})`)), 2000);
        waiting.set(JSON.stringify(id), (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        client.send(req(id, method, params));
      });
    },
    notify(method: string, params?: JsonObject): void {
      client.send(note(method, params));
    },
    send(message: Json): void {
      client.send(message);
    },
    /** Everything received that is not a response, by method. */
    methods(): string[] {
      return received.filter((m) => typeof m.method === 'string').map((m) => m.method as string);
    },
  };
}

/** Lets queued microtasks and zero-delay work run. */
export function settle(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
