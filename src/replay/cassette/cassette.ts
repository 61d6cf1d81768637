import { TapedeckError } from '../../base/errors.js';
import type { TraceEntry } from '../../trace/import/opened.js';
import { sameJson } from '../../trace/json-hash.js';
import { type PairEvent, Pairer } from '../../trace/pairing.js';
import type { MetaLine, TraceLine } from '../../trace/types.js';
import { HttpAnswerCollector } from './http-answers.js';
import { type NormalizedRequest, type Normalizer, requestHash } from './normalize.js';
import { defaultRequestHash, recordedRequest } from './recorded-exchange.js';
import { ServerScriptBuilder } from './script-builder.js';
import type { Cassette, CassetteExchange } from './types.js';

/**
 * Building a cassette (types.ts says what one is) from a trace: pairing attributes every server message, the script
 * builder turns one server's events into scripts; the index and queues here are what matching looks requests up in.
 */

/** What buildCassette reads: trace lines, the entries of `lines()`, or the batches of `batches()`. */
export type CassetteSource = TraceLine | TraceEntry | readonly TraceEntry[];

export interface CassetteOptions {
  /** Which server of a multi-server trace (mcporter records several per file). */
  server?: string;
  /** The trace's meta (openTrace gives it apart from lines()): default server name and transport for pairing. */
  meta?: MetaLine;
}

/**
 * Builds a cassette from trace lines — `TraceLine`s, the `TraceEntry`s of `openTrace(...).lines()`, or the
 * batches of `openTrace(...).batches()` (the fast way for big files).
 * Throws TapedeckError('usage') naming the servers present when `server` is unknown, or when the trace holds
 * several servers and none was chosen.
 *
 * @example
 * const trace = await openTrace('session.jsonl');
 * const cassette = await buildCassette(trace.batches(), { meta: trace.meta });
 * cassette.exchanges.map((x) => x.method) // → ['initialize', 'tools/list', 'tools/call', …]
 */
export async function buildCassette(
  lines: Iterable<CassetteSource> | AsyncIterable<CassetteSource>,
  options: CassetteOptions = {},
): Promise<Cassette> {
  // Events carry each message's parent; the pairer need not keep children lists as well.
  const pairer = new Pairer({ children: 'none' });
  const builders = new Map<string, ServerScriptBuilder>();
  const http = new HttpAnswerCollector();
  const aliases: Record<string, string> = {};
  let fallback = options.meta?.server ?? '';
  const builderFor = (server: string | undefined): ServerScriptBuilder => {
    const name = server ?? fallback;
    let builder = builders.get(name);
    if (!builder) {
      builder = new ServerScriptBuilder();
      builders.set(name, builder);
    }
    return builder;
  };
  let order = 0;
  /** The text of the line being fed, when its entry has it. */
  let text: string | undefined;
  const onEvent = (event: PairEvent) => {
    if (event.kind === 'line') return;
    const server =
      event.kind === 'unanswered' ? event.exchange.server : (event.ref.line.server as string | undefined);
    builderFor(server).push(event, order++, text);
  };
  const feed = (line: TraceLine, lineNo: number | undefined, lineText?: string) => {
    if (line.type === 'meta' && typeof line.server === 'string') fallback = line.server;
    if (line.type === 'http' || (line.type === undefined && line.stream !== undefined)) http.push(line);
    else if (line.type === 'event' && line.name === 'session') {
      if (typeof line.conn === 'string' && typeof line.sessionId === 'string')
        aliases[line.conn] = line.sessionId;
    }
    text = lineText;
    pairer.pushEach(line, lineNo, onEvent);
  };
  if (options.meta) feed(options.meta, undefined);
  const feedItem = (item: TraceLine | TraceEntry) => {
    // A TraceEntry wraps its line; a TraceLine never has both `line` and `file`.
    if ('line' in item && 'file' in item) {
      const entry = item as TraceEntry;
      feed(entry.line, entry.lineNo, entry.text);
    } else feed(item as TraceLine, undefined);
  };
  for await (const item of lines) {
    if (Array.isArray(item)) for (const one of item as readonly TraceEntry[]) feedItem(one);
    else feedItem(item as TraceLine | TraceEntry);
  }
  text = undefined;
  for (const event of pairer.finish()) {
    if (event.kind === 'unanswered') builderFor(event.exchange.server).push(event, order++);
  }
  const servers = [...builders.keys()].filter((name) => name !== '');
  const chosen = chooseServer([...builders.keys()], servers, options.server);
  const builder = builders.get(chosen) ?? new ServerScriptBuilder();
  const httpAnswers = http.finish();
  return {
    server: chosen === '' ? undefined : chosen,
    servers,
    ...builder.finish(),
    ...(httpAnswers.length > 0 ? { httpAnswers } : {}),
    ...(Object.keys(aliases).length > 0 ? { sessionAliases: aliases } : {}),
  };
}

function chooseServer(keys: string[], named: string[], wanted: string | undefined): string {
  const list = named.map((name) => JSON.stringify(name)).join(', ');
  if (wanted !== undefined) {
    if (keys.includes(wanted)) return wanted;
    if (named.length === 0) {
      throw new TapedeckError(
        'usage',
        `no server "${wanted}" in the cassette: it names no servers (leave the server option out)`,
      );
    }
    throw new TapedeckError(
      'usage',
      `no server "${wanted}" in the cassette; it holds ${list}: choose one with the server option (--server)`,
    );
  }
  if (keys.length > 1) {
    const what = keys.includes('') ? `${list} and lines without a server` : list;
    throw new TapedeckError(
      'usage',
      `the cassette holds ${keys.length} servers (${what}): choose one with the server option (--server)`,
    );
  }
  return keys[0] ?? '';
}

/** A recorded exchange with its normalized request and matching key. */
export interface KeyedExchange {
  exchange: CassetteExchange;
  normalized: NormalizedRequest;
  readonly key: string;
  /** Its place among the exchanges keyed (recorded order). */
  readonly position: number;
}

/**
 * A KeyedExchange whose key text is made only when asked for (matching goes by hash and structure). Keyed by a
 * hash worked out when the cassette was built, its normalized request is made when first asked for too; a look
 * from the hot path ({@link IndexedExchange.peek}) keeps nothing of a request held as its line's text.
 */
class IndexedExchange implements KeyedExchange {
  private text: string | undefined;
  #normalized: NormalizedRequest | undefined;

  constructor(
    readonly exchange: CassetteExchange,
    normalized: NormalizedRequest | undefined,
    private readonly normalizer: Normalizer,
    readonly position: number,
  ) {
    this.#normalized = normalized;
  }

  get normalized(): NormalizedRequest {
    this.#normalized ??= this.peek();
    return this.#normalized;
  }

  /**
   * The normalized request, kept only if it was made before or its request is kept: matching a live request looks
   * at each recorded one about once, so one read from its line again is let go with it.
   */
  peek(): NormalizedRequest {
    if (this.#normalized !== undefined) return this.#normalized;
    const { request, kept } = recordedRequest(this.exchange);
    const normalized = this.normalizer.normalize(this.exchange.method, request.params);
    if (kept) this.#normalized = normalized;
    return normalized;
  }

  get key(): string {
    this.text ??= this.normalizer.key(this.normalized);
    return this.text;
  }
}

export { requestHash } from './normalize.js';

function sameRequest(a: NormalizedRequest, b: NormalizedRequest): boolean {
  return a.method === b.method && sameJson(a.params, b.params);
}

/**
 * The cassette's exchanges in queues of equal matching keys, each in recorded order, found by the requests'
 * structural hash — the same grouping as {@link keyQueues} without building every key's text. With the default
 * normalization the hashes the cassette builder worked out key it, and an exchange's entry is made when it is
 * first asked for: building the index of a big cassette reads no request and takes two numbers per exchange.
 */
export class RequestIndex {
  /** How many exchanges the index holds (positions 0 … size - 1). */
  readonly size: number;
  /** The exchanges indexed, by position. */
  private readonly exchanges: readonly CassetteExchange[];
  /** Entries made so far, by position. */
  private readonly made: (IndexedExchange | undefined)[];
  /** Every entry, once all were made. */
  private everyEntry: KeyedExchange[] | undefined;
  /**
   * The first queue seen for each hash, in a table of open addressing: `slots` holds the position + 1 of the
   * queue's first entry (0: free), `hashes` its hash. Most requests of a big cassette are unlike any other, so
   * most queues are that one position, without an object or a Map entry of their own.
   */
  private readonly slots: Int32Array;
  private readonly hashes: Int32Array;
  /** `slots.length - 1`: the table's size is a power of two. */
  private readonly mask: number;
  /** First queues that more than one entry joined, by hash. */
  private readonly longer = new Map<number, IndexedExchange[]>();
  /** Further queues whose requests differ but share a hash with the first. */
  private readonly more = new Map<number, IndexedExchange[][]>();

  /**
   * `defaults`: the normalizer normalizes as the default one does, so the hashes the cassette builder worked out
   * hold, and requests need not be read to be keyed.
   */
  constructor(
    exchanges: readonly CassetteExchange[],
    private readonly normalizer: Normalizer,
    defaults = false,
  ) {
    this.exchanges = exchanges.slice();
    this.size = exchanges.length;
    this.made = new Array<IndexedExchange | undefined>(this.size);
    // At most half full, so a probe ends soon.
    const capacity = 2 ** Math.max(4, Math.ceil(Math.log2(2 * this.size + 1)));
    this.slots = new Int32Array(capacity);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let position = 0; position < this.size; position++) {
      const hash = (defaults ? defaultRequestHash(exchanges[position]!) : undefined) ?? this.hashAt(position);
      const slot = this.slotOf(hash);
      // The common case, a request unlike any before it: a free slot.
      if (this.slots[slot] === 0) {
        this.slots[slot] = position + 1;
        this.hashes[slot] = hash;
      } else this.join(hash, this.firstQueue(hash, slot), this.entry(position));
    }
  }

  /** Every entry, in recorded order (all made when first asked for). */
  get all(): KeyedExchange[] {
    if (this.everyEntry === undefined) {
      const all: KeyedExchange[] = [];
      for (let position = 0; position < this.size; position++) all.push(this.entry(position));
      this.everyEntry = all;
    }
    return this.everyEntry;
  }

  /** The exchange at `position`. */
  exchange(position: number): CassetteExchange {
    return this.exchanges[position]!;
  }

  /** The entry of the exchange at `position`, made the first time it is asked for. */
  entry(position: number): IndexedExchange {
    let entry = this.made[position];
    if (entry === undefined) {
      entry = new IndexedExchange(this.exchanges[position]!, undefined, this.normalizer, position);
      this.made[position] = entry;
    }
    return entry;
  }

  /** The queue of recorded exchanges whose normalized request equals `request`, or undefined. */
  queue(request: NormalizedRequest, hash = requestHash(request)): KeyedExchange[] | undefined {
    const slot = this.slotOf(hash);
    if (this.slots[slot] === 0) return undefined;
    // A queue of one is handed out as a list of its own each time (the matcher keeps no place in it).
    const first = this.firstQueue(hash, slot);
    if (sameRequest(first[0]!.peek(), request)) return first;
    return this.more.get(hash)?.find((other) => sameRequest(other[0]!.peek(), request));
  }

  /** The slot of `hash` in the table, or the free one where it would go. */
  private slotOf(hash: number): number {
    let slot = hash & this.mask;
    while (this.slots[slot] !== 0 && this.hashes[slot] !== hash) slot = (slot + 1) & this.mask;
    return slot;
  }

  /** The first queue of `hash`, whose head is at `slot`: its list, or a list of its one entry. */
  private firstQueue(hash: number, slot: number): IndexedExchange[] {
    if (this.longer.size > 0) {
      const queue = this.longer.get(hash);
      if (queue !== undefined) return queue;
    }
    return [this.entry(this.slots[slot]! - 1)];
  }

  /** Adds an entry whose hash is taken to its queue: the first one if the requests are equal, else another. */
  private join(hash: number, first: IndexedExchange[], entry: IndexedExchange): void {
    if (!sameRequest(first[0]!.peek(), entry.peek())) this.addToMore(hash, entry);
    else if (first.length > 1) first.push(entry);
    else this.longer.set(hash, [first[0]!, entry]);
  }

  /** The hash of the request at `position` under this index's normalizer; its entry keeps the normalized request. */
  private hashAt(position: number): number {
    const exchange = this.exchanges[position]!;
    const normalized = this.normalizer.normalize(exchange.method, exchange.request.params);
    this.made[position] = new IndexedExchange(exchange, normalized, this.normalizer, position);
    return requestHash(normalized);
  }

  /** An entry whose hash is shared with a different request's. */
  private addToMore(hash: number, entry: IndexedExchange): void {
    const others = this.more.get(hash);
    const normalized = entry.peek();
    const queue = others?.find((other) => sameRequest(other[0]!.peek(), normalized));
    if (queue !== undefined) queue.push(entry);
    else if (others !== undefined) others.push([entry]);
    else this.more.set(hash, [[entry]]);
  }
}

/**
 * The cassette's exchanges keyed by matching key: each queue in recorded order, so identical requests replay in
 * the order they were recorded. Keys depend on the normalizer, so the index is built per replay setup.
 *
 * @example keyQueues(cassette.exchanges, createNormalizer()).get('tools/list {}')?.length // → 2
 */
export function keyQueues(
  exchanges: readonly CassetteExchange[],
  normalizer: Normalizer,
): { all: KeyedExchange[]; byKey: Map<string, KeyedExchange[]> } {
  const all: KeyedExchange[] = [];
  const byKey = new Map<string, KeyedExchange[]>();
  for (const exchange of exchanges) {
    const normalized = normalizer.normalize(exchange.method, exchange.request.params);
    const keyed = { exchange, normalized, key: normalizer.key(normalized), position: all.length };
    all.push(keyed);
    const queue = byKey.get(keyed.key);
    if (queue) queue.push(keyed);
    else byKey.set(keyed.key, [keyed]);
  }
  return { all, byKey };
}
