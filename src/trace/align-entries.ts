import { TapedeckError } from '../base/errors.js';
import { canonicalJson } from './canonical-json.js';
import type { Exchange } from './exchange.js';
import { type IgnorePath, removePaths } from './ignore-paths.js';
import { type JsonObject, type RpcResponse, requestTarget } from './jsonrpc.js';
import type { NormalizationRules, Normalizer } from './normalize.js';
import { answerOutcome } from './outcome.js';
import type { Json } from './types.js';

/**
 * One side of an alignment: the client requests of a trace, each with the replay matching key, what it is about (for
 * pairing a changed request with the one it replaced) and, on demand, its answer in comparable form.
 */

/** A client request of one trace, ready to be lined up. */
export interface AlignEntry {
  exchange: Exchange;
  /** 0-based position among the side's client requests. */
  index: number;
  /** The message's server, else the trace's (meta), else undefined. */
  server: string | undefined;
  /** The normalized params (`{}` when absent). */
  params: JsonObject;
  /** Matching key: server (when the traces hold several) + method + canonical normalized params. */
  key: string;
  /** Method and tool name / resource uri / prompt name: who may stand in for whom in a changed request. */
  target: string;
  tool: string | undefined;
}

/** The client requests of a trace, in request order, with the server each belongs to. */
export interface SideInput {
  exchanges: readonly Exchange[];
  servers: readonly (string | undefined)[];
}

export interface SideOptions {
  normalizer: Normalizer;
  /** Only this server's requests; a side that names no servers at all is taken whole. */
  server: string | undefined;
  /** Prefix keys with the server: the traces hold several and none was chosen. */
  scoped: boolean;
  /** The side's name in error messages. */
  label: string;
}

/** The distinct servers a side names (undefined for requests that name none). */
export function serversOf(input: SideInput): Set<string | undefined> {
  return new Set(input.servers);
}

/**
 * The side's entries. Throws TapedeckError('usage') when `server` is set and the side names servers, but not it.
 *
 * @example entriesOf({ exchanges, servers }, { normalizer, server: undefined, scoped: false, label: 'a.jsonl' })
 */
export function entriesOf(input: SideInput, options: SideOptions): AlignEntry[] {
  const { normalizer, server, scoped } = options;
  const named = [...serversOf(input)].filter((name): name is string => name !== undefined);
  const filter = server !== undefined && named.length > 0;
  if (filter && !named.includes(server)) {
    const list = named.map((name) => JSON.stringify(name)).join(', ');
    throw new TapedeckError(
      'usage',
      `no server "${server}" in ${options.label}; it holds ${list}: choose one with the server option (--server)`,
    );
  }
  const entries: AlignEntry[] = [];
  input.exchanges.forEach((exchange, i) => {
    const from = input.servers[i];
    if (filter && from !== server) return;
    const normalized = normalizer.normalize(exchange.method, exchange.request.params);
    const key = normalizer.key(normalized);
    const about = requestTarget(exchange.request);
    entries.push({
      exchange,
      index: entries.length,
      server: from,
      params: normalized.params,
      key: scoped ? `${from ?? ''}\u0000${key}` : key,
      target: `${scoped ? `${from ?? ''}\u0000` : ''}${exchange.method}\u0000${about ?? ''}`,
      tool: about,
    });
  });
  return entries;
}

/** An entry's answer as compared: `{ result }`, `{ error }`, or `{}` when none came; worked out once per entry. */
export class Outcomes {
  private readonly cache = new WeakMap<AlignEntry, { value: JsonObject; text: string }>();

  constructor(
    private readonly rules: NormalizationRules,
    private readonly ignore: readonly IgnorePath[],
  ) {}

  of(entry: AlignEntry): { value: JsonObject; text: string } {
    let found = this.cache.get(entry);
    if (!found) {
      const response = entry.exchange.response;
      const value = response ? removePaths(answerOutcome(messageOf(response), this.rules), this.ignore) : {};
      found = { value: value as JsonObject, text: canonicalJson(value) };
      this.cache.set(entry, found);
    }
    return found;
  }
}

/** The response as `{ result }` / `{ error }` JSON, without the id and envelope. */
function messageOf(response: RpcResponse): JsonObject {
  if (!response.error) return { result: response.result ?? null };
  const error: JsonObject = { message: response.error.message };
  if (response.error.code !== undefined) error.code = response.error.code;
  if (response.error.data !== undefined) error.data = response.error.data as Json;
  return { error };
}
