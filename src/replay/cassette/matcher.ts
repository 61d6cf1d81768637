import { describeRequest } from '../../trace/describe.js';
import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import { type MatchOptions, type ReplayOptions, withDefaults } from '../options.js';
import { type KeyedExchange, RequestIndex } from './cassette.js';
import { explainMiss, type Miss } from './miss.js';
import { requestStateOf, responseState } from './mrtr.js';
import {
  createNormalizer,
  DEFAULT_NORMALIZATION,
  type NormalizedRequest,
  type Normalizer,
} from './normalize.js';
import type { Cassette, CassetteExchange } from './types.js';

/**
 * Matching live requests to recorded exchanges, with the bookkeeping of what was served: keyed queues (identical
 * requests in recorded order), `ordered` mode, `repeat`, MRTR rounds, misses that explain themselves, and the
 * used / unused report.
 */

export type MatchResult =
  | {
      kind: 'hit';
      exchange: CassetteExchange;
      /** Served again after its queue ran out (`repeat: 'last'` or a method in `repeatMethods`). */
      repeated: boolean;
      request: NormalizedRequest;
    }
  | { kind: 'miss'; miss: Miss };

/** The 2026-era discovery request: answered wherever it is asked, never required. */
const DISCOVER = 'server/discover';

export interface UnusedExchange {
  ordinal: number;
  method: string;
  /** The request in short, e.g. `tools/call echo {"message":"hi"}`. */
  summary: string;
  lineNo: number | undefined;
}

export interface MatchReport {
  used: number;
  total: number;
  unused: UnusedExchange[];
  repeats: number;
  misses: Miss[];
  /** One line, e.g. `used 7 of 9 recorded exchanges; unused: #3 tools/call echo {"message":"hi"} (line 12), …`. */
  summary: string;
}

/**
 * @example
 * const matcher = new Matcher(cassette, { match: 'ordered' });
 * const result = matcher.match('tools/call', { name: 'get-sum', arguments: { a: 1, b: 2 } });
 * if (result.kind === 'miss') console.error(result.miss.message);
 * matcher.report().summary // → 'used 1 of 9 recorded exchanges; unused: …'
 */
export class Matcher {
  readonly normalizer: Normalizer;
  private readonly options: MatchOptions;
  private readonly index: RequestIndex;
  /** Per entry (by position): served. */
  private readonly used: Uint8Array;
  private usedCount = 0;
  /** Exchange → entry position, made when first needed (explaining a miss). */
  private positions: Map<CassetteExchange, number> | undefined;
  /** `requestState` a served `input_required` handed out → the exchange that handed it out. */
  private readonly states = new Map<string, number>();
  /**
   * Served exchanges whose responses were not yet looked at for a `requestState`, in the order served: reading one
   * parses the response, so it waits until a live request carries a state to look up.
   */
  private readonly unread: KeyedExchange[] = [];
  private readonly misses: Miss[] = [];
  private repeats = 0;
  /** Per key queue: everything before this index is used (see firstUnused). */
  private readonly heads = new WeakMap<KeyedExchange[], number>();
  /** Everything before this ordinal is used (the `ordered` cursor). */
  private cursor = 0;

  constructor(cassette: Cassette, options: ReplayOptions | MatchOptions = {}) {
    this.options = withDefaults(options);
    const { ignore, normalize, normalization, redact } = this.options;
    this.normalizer = createNormalizer({
      rules: normalization,
      ignore,
      ...(normalize ? { normalize } : {}),
      ...(redact ? { redact } : {}),
    });
    // With the default settings the hashes worked out when the cassette was built key it as they are.
    const defaults = normalization === DEFAULT_NORMALIZATION && ignore.length === 0 && !normalize && !redact;
    this.index = new RequestIndex(cassette.exchanges, this.normalizer, defaults);
    this.used = new Uint8Array(this.index.size);
  }

  /** Finds the recorded exchange for a live request and marks it served, or explains the miss. */
  match(method: string, params: JsonObject | undefined): MatchResult {
    const live = this.normalizer.normalize(method, params);
    const candidates = this.candidates(live);
    const head = this.firstUnused(candidates);
    const chosen = this.preferRound(candidates, head, params) ?? candidates[head];
    // Discovery stands outside the recorded order: a stdio client may ask it in a probe process of its own.
    const expected = this.options.match === 'ordered' && method !== DISCOVER ? this.expected() : undefined;
    if (chosen) {
      if (expected && chosen !== expected)
        return this.miss(explainMiss('out-of-order', live, this.context(expected, 0)));
      this.serve(chosen);
      return { kind: 'hit', exchange: chosen.exchange, repeated: false, request: live };
    }
    const last = candidates[candidates.length - 1];
    if (last && (this.options.repeat === 'last' || this.options.repeatMethods.includes(method))) {
      this.repeats++;
      return { kind: 'hit', exchange: last.exchange, repeated: true, request: live };
    }
    const reason = last ? 'used-up' : 'unknown';
    return this.miss(explainMiss(reason, live, this.context(expected, candidates.length)));
  }

  /** True once every recorded exchange was served. */
  get done(): boolean {
    return this.usedCount === this.index.size;
  }

  /**
   * What was used and what was not. An unused `server/discover` is neither listed nor counted: a 2026-era stdio
   * client asks it in a probe process of its own (another replay process answered it), and a client that already
   * knows the server's era does not ask it at all.
   */
  report(): MatchReport {
    const entries = this.index.all;
    const unused = entries
      .filter((entry) => this.used[entry.position] === 0 && entry.exchange.method !== DISCOVER)
      .map(({ exchange, normalized }) => ({
        ordinal: exchange.ordinal,
        method: exchange.method,
        summary: describeRequest(this.show(normalized)),
        lineNo: exchange.lineNo,
      }));
    const total = entries.filter(
      (entry) => this.used[entry.position] === 1 || entry.exchange.method !== DISCOVER,
    ).length;
    let summary = `used ${this.usedCount} of ${total} recorded exchange${total === 1 ? '' : 's'}`;
    if (unused.length > 0) {
      const shown = unused
        .slice(0, 5)
        .map((u) => `#${u.ordinal} ${u.summary}${u.lineNo ? ` (line ${u.lineNo})` : ''}`);
      if (unused.length > shown.length) shown.push(`and ${unused.length - shown.length} more`);
      summary += `; unused: ${shown.join(', ')}`;
    }
    return { used: this.usedCount, total, unused, repeats: this.repeats, misses: [...this.misses], summary };
  }

  /** Recorded exchanges the live request may be served from, in recorded order. */
  private candidates(live: NormalizedRequest): KeyedExchange[] {
    const matchers = this.options.matchers;
    if (matchers.length === 0) return this.index.queue(live) ?? [];
    const key = this.normalizer.key(live);
    // Custom matchers can accept what the key does not, so every recording of the method is a candidate.
    return this.index.all.filter((entry) => {
      if (entry.normalized.method !== live.method) return false;
      for (const matcher of matchers) {
        const verdict = matcher(live, entry.normalized);
        if (verdict !== undefined) return verdict;
      }
      return entry.key === key;
    });
  }

  /** An MRTR retry echoing a `requestState` we served goes to the round after the one that handed it out. */
  private preferRound(
    candidates: KeyedExchange[],
    head: number,
    params: JsonObject | undefined,
  ): KeyedExchange | undefined {
    const state = requestStateOf(params);
    const previous = state === undefined ? undefined : this.stateOwner(state);
    if (previous === undefined) return undefined;
    for (let i = head; i < candidates.length; i++) {
      const entry = candidates[i]!;
      if (this.used[entry.position] === 0 && entry.exchange.mrtr?.previous === previous) return entry;
    }
    return undefined;
  }

  /**
   * Index of the first unused candidate. A key's queue is mostly served front to back, so where its used prefix
   * ends is remembered per queue: serving N identical requests costs O(N), not O(N²).
   */
  private firstUnused(candidates: KeyedExchange[]): number {
    const start = this.heads.get(candidates) ?? 0;
    let i = start;
    while (i < candidates.length && this.used[candidates[i]!.position] === 1) i++;
    // Most queues hold one request: nothing to remember there, or while the head has not moved.
    if (i !== start && candidates.length > 1) this.heads.set(candidates, i);
    return i;
  }

  private serve(entry: KeyedExchange): void {
    if (this.used[entry.position] === 0) this.usedCount++;
    this.used[entry.position] = 1;
    this.unread.push(entry);
    while (this.cursor < this.index.size && this.used[this.cursor] === 1) this.cursor++;
  }

  /** The ordinal of the served exchange that handed out `state` (the last one served, if several did). */
  private stateOwner(state: string): number | undefined {
    for (const entry of this.unread) {
      const handed = responseState(entry.exchange);
      if (handed !== undefined) this.states.set(handed, entry.exchange.ordinal);
    }
    this.unread.length = 0;
    return this.states.get(state);
  }

  private isUsed(exchange: CassetteExchange): boolean {
    if (this.positions === undefined) {
      this.positions = new Map();
      for (const entry of this.index.all) this.positions.set(entry.exchange, entry.position);
    }
    const position = this.positions.get(exchange);
    return position !== undefined && this.used[position] === 1;
  }

  /** The next exchange `ordered` expects: the first unused one, discovery left out. */
  private expected(): KeyedExchange | undefined {
    for (let i = this.cursor; i < this.index.size; i++) {
      if (this.used[i] === 0 && this.index.exchange(i).method !== DISCOVER) return this.index.entry(i);
    }
    return undefined;
  }

  private context(expected: KeyedExchange | undefined, recorded: number) {
    return {
      entries: this.index.all,
      used: (exchange: CassetteExchange) => this.isUsed(exchange),
      expected,
      recorded,
      diff: this.options.diff,
      names: this.options.settingNames,
      show: (request: NormalizedRequest) => this.show(request),
    };
  }

  /**
   * A request as misses and the unused list show it: redacted as the trace would hold it (path rules see
   * `$.params`) when the replay was given `shown`, else as it is.
   */
  show(request: NormalizedRequest): NormalizedRequest {
    const shown = this.options.shown;
    if (shown === undefined) return request;
    const message = shown.message({ method: request.method, params: request.params });
    const params = isObject(message) && isObject(message.params) ? message.params : request.params;
    return params === request.params ? request : { method: request.method, params };
  }

  private miss(miss: Miss): MatchResult {
    this.misses.push(miss);
    return { kind: 'miss', miss };
  }
}
