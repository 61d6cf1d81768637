import { type AlignEntry, entriesOf, Outcomes, type SideInput, serversOf } from './align-entries.js';
import type { Exchange } from './exchange.js';
import type { IgnorePath } from './ignore-paths.js';
import { DIFF_DEFAULTS, type DiffOptions, type StructuralDiff, structuralDiff } from './json-diff.js';
import { commonSubsequence } from './lcs.js';
import { createNormalizer, DEFAULT_NORMALIZATION, type NormalizationRules } from './normalize.js';
import { alignNamedLists } from './outcome.js';
import { pairTrace } from './pairing.js';
import type { Json, TraceLine } from './types.js';

/**
 * Two traces lined up request by request: what a session asked and got in one recording against another (two runs of
 * an agent, a server before and after a change).
 *
 * Every client request, with its answer, is an item keyed as replay matches requests: method + canonical params after
 * the default normalization (ids, progress tokens, `_meta` protocol and trace-context keys, `initialize`'s client
 * facts) and the user's ignore paths. A longest common subsequence of the two key sequences lines the items up, so
 * inserted and deleted requests do not shift everything after them; identical requests pair in order. Within each
 * run of unmatched items, a request of one trace and a request of the other with the same method and tool name /
 * resource uri / prompt name (again in order) are one `changed` item with a params diff — a changed argument — rather
 * than a removed and an added one. Matched items are `same` when their answers are equal after the same
 * normalization and ignore paths (lists of named things lined up by name), else `changed` with a result diff.
 * Ignored locations never make an item `changed`. A request that moved reads as removed at its old place and added
 * at its new one.
 */

/** What happened to a request between trace a and trace b. */
export type AlignKind = 'same' | 'changed' | 'added' | 'removed';

export interface AlignOptions {
  /**
   * Locations left out of requests (`$.params.arguments.timestamp`) and of answers (`$.result.content[0].text`),
   * compiled (strings compile with `compileIgnorePath`, src/replay/cassette/paths.ts).
   */
  ignore?: readonly IgnorePath[];
  /** What request normalization drops (default: DEFAULT_NORMALIZATION, as replay). */
  rules?: NormalizationRules;
  /** Only this server's requests, for traces that hold several (mcporter). Traces naming no server are taken whole. */
  server?: string | undefined;
  /** How many diff entries each item keeps and how long a value may be before it is shortened. */
  diff?: Partial<DiffOptions>;
  /** The traces' names in error messages, e.g. their paths. */
  labels?: readonly [string, string];
}

/** One difference inside a request or an answer: the value in trace a and in trace b (absent: no property). */
export interface ValueChange {
  /** A JSONPath such as `$.params.arguments.b` or `$.result.content[0].text`. */
  path: string;
  a?: Json;
  b?: Json;
}

export interface ValueDiff {
  /** The first differences, in key order (at most `diff.maxEntries`). */
  entries: ValueChange[];
  /** How many differences there are in all. */
  total: number;
}

/** One client request lined up: in both traces, or in one only. */
export interface AlignedItem {
  kind: AlignKind;
  /** The request with its answer in trace a (undefined when `added`). */
  a: Exchange | undefined;
  /** The request with its answer in trace b (undefined when `removed`). */
  b: Exchange | undefined;
  /** 0-based position among trace a's client requests (undefined when `added`). */
  aIndex: number | undefined;
  bIndex: number | undefined;
  /** The server the request went to, when the trace names one. */
  server: string | undefined;
  method: string;
  /** Tool name, resource uri or prompt name, when the request has one. */
  target: string | undefined;
  /** How the normalized params differ (`changed` items paired by method and target); undefined when equal. */
  params: ValueDiff | undefined;
  /** How the answers differ (`{ result }` or `{ error }`, rooted at `$`); undefined when equal or one-sided. */
  result: ValueDiff | undefined;
  /** b's latency minus a's, when both were answered with timestamps. */
  latencyDeltaMs: number | undefined;
}

export interface AlignSummary {
  same: number;
  changed: number;
  added: number;
  removed: number;
  /** Client requests taken from each trace. */
  requests: { a: number; b: number };
  /** Sum of the latency deltas of the items in both traces. */
  latencyDeltaMs: number;
  /** No item is changed, added or removed. */
  identical: boolean;
}

export interface TraceAlignment {
  /** In trace order: matched items in order, the unmatched ones between them where they were. */
  items: AlignedItem[];
  summary: AlignSummary;
  /** The traces hold several servers and none was chosen: keys and items carry the server. */
  multiServer: boolean;
}

export const ALIGN_DEFAULTS = {
  labels: ['the first trace', 'the second trace'] as readonly [string, string],
  diff: DIFF_DEFAULTS,
};

/**
 * Lines up the client requests of two traces (lines as read, meta lines included, in order).
 * Throws TapedeckError('usage') when `server` names a server one trace holds no requests for.
 *
 * @example
 * const { items, summary } = alignTraces(linesOfA, linesOfB, { ignore: [compileIgnorePath('$.result.content[0].text')] });
 * for (const item of items) if (item.kind === 'changed') console.log(item.method, item.target, item.result?.entries);
 * summary.identical; // → false when anything was changed, added or removed
 */
export function alignTraces(
  a: Iterable<TraceLine>,
  b: Iterable<TraceLine>,
  options: AlignOptions = {},
): TraceAlignment {
  return align(clientRequests(a), clientRequests(b), options);
}

/**
 * Lines up two lists of exchanges, as pairing produces them (`collectExchanges(lines).exchanges` plus `.unanswered`);
 * server→client exchanges are skipped, the rest taken in request order.
 *
 * @example
 * const side = (lines) => { const p = collectExchanges(lines); return [...p.exchanges, ...p.unanswered]; };
 * alignExchanges(side(linesOfA), side(linesOfB)).summary // → { same: 4, changed: 1, added: 0, removed: 0, … }
 */
export function alignExchanges(
  a: readonly Exchange[],
  b: readonly Exchange[],
  options: AlignOptions = {},
): TraceAlignment {
  const side = (exchanges: readonly Exchange[]): SideInput => {
    const client = exchanges.filter((x) => x.dir === 'in').sort((x, y) => x.ordinal - y.ordinal);
    return { exchanges: client, servers: client.map((x) => x.server) };
  };
  return align(side(a), side(b), options);
}

/** A trace's client requests in order, each with its server (the message's, else the latest meta's). */
function clientRequests(lines: Iterable<TraceLine>): SideInput {
  const exchanges: Exchange[] = [];
  const servers: (string | undefined)[] = [];
  let fallback: string | undefined;
  for (const event of pairTrace(lines)) {
    if (event.kind === 'line' && event.line.type === 'meta') {
      if (typeof event.line.server === 'string') fallback = event.line.server;
    } else if (event.kind === 'request' && event.exchange.dir === 'in') {
      exchanges.push(event.exchange);
      servers.push(event.exchange.server ?? fallback);
    }
  }
  return { exchanges, servers };
}

function align(sideA: SideInput, sideB: SideInput, options: AlignOptions): TraceAlignment {
  const rules = options.rules ?? DEFAULT_NORMALIZATION;
  const ignore = options.ignore ?? [];
  const normalizer = createNormalizer({ rules, ignore });
  const [labelA, labelB] = options.labels ?? ALIGN_DEFAULTS.labels;
  const multiServer =
    options.server === undefined && (serversOf(sideA).size > 1 || serversOf(sideB).size > 1);
  const common = { normalizer, server: options.server, scoped: multiServer };
  const a = entriesOf(sideA, { ...common, label: labelA });
  const b = entriesOf(sideB, { ...common, label: labelB });
  const compare = comparer(new Outcomes(rules, ignore), { ...ALIGN_DEFAULTS.diff, ...options.diff });

  const items: AlignedItem[] = [];
  let i = 0;
  let j = 0;
  const matches = commonSubsequence(
    a.map((entry) => entry.key),
    b.map((entry) => entry.key),
  );
  for (const [mi, mj] of [...matches, [a.length, b.length] as const]) {
    items.push(...gap(a.slice(i, mi), b.slice(j, mj), compare));
    const x = a[mi];
    const y = b[mj];
    if (x && y) items.push(compare(x, y, false));
    i = mi + 1;
    j = mj + 1;
  }
  return { items, summary: summarize(items, a.length, b.length), multiServer };
}

type Compare = (x: AlignEntry, y: AlignEntry, paired: boolean) => AlignedItem;

/** The unmatched runs between two matches: same method and target pair up as `changed`, in order. */
function gap(removed: AlignEntry[], added: AlignEntry[], compare: Compare): AlignedItem[] {
  const out: AlignedItem[] = [];
  const pairs =
    removed.length > 0 && added.length > 0
      ? commonSubsequence(
          removed.map((entry) => entry.target),
          added.map((entry) => entry.target),
        )
      : [];
  let p = 0;
  let q = 0;
  for (const [pi, qj] of [...pairs, [removed.length, added.length] as const]) {
    while (p < pi) out.push(oneSided('removed', removed[p++] as AlignEntry));
    while (q < qj) out.push(oneSided('added', added[q++] as AlignEntry));
    const x = removed[pi];
    const y = added[qj];
    if (x && y) out.push(compare(x, y, true));
    p = pi + 1;
    q = qj + 1;
  }
  return out;
}

function comparer(outcomes: Outcomes, diff: DiffOptions): Compare {
  return (x, y, paired) => {
    const before = outcomes.of(x);
    const after = outcomes.of(y);
    let result: ValueDiff | undefined;
    if (before.text !== after.text) {
      const [left, right] = alignNamedLists(before.value, after.value);
      result = changes(structuralDiff(left as Json, right as Json, '$', diff));
    }
    const params = paired ? changes(structuralDiff(x.params, y.params, '$.params', diff)) : undefined;
    const latencyA = x.exchange.latencyMs;
    const latencyB = y.exchange.latencyMs;
    return {
      kind: result || params ? 'changed' : 'same',
      a: x.exchange,
      b: y.exchange,
      aIndex: x.index,
      bIndex: y.index,
      server: x.server ?? y.server,
      method: x.exchange.method,
      target: x.tool ?? y.tool,
      params,
      result,
      latencyDeltaMs: latencyA !== undefined && latencyB !== undefined ? latencyB - latencyA : undefined,
    };
  };
}

function oneSided(kind: 'added' | 'removed', entry: AlignEntry): AlignedItem {
  const inA = kind === 'removed';
  return {
    kind,
    a: inA ? entry.exchange : undefined,
    b: inA ? undefined : entry.exchange,
    aIndex: inA ? entry.index : undefined,
    bIndex: inA ? undefined : entry.index,
    server: entry.server,
    method: entry.exchange.method,
    target: entry.tool,
    params: undefined,
    result: undefined,
    latencyDeltaMs: undefined,
  };
}

/** A structural diff in a/b terms; undefined when there is no difference. */
function changes(diff: StructuralDiff): ValueDiff | undefined {
  if (diff.total === 0) return undefined;
  const entries = diff.entries.map(({ path, recorded, live }) => {
    const change: ValueChange = { path };
    if (recorded !== undefined) change.a = recorded;
    if (live !== undefined) change.b = live;
    return change;
  });
  return { entries, total: diff.total };
}

function summarize(items: readonly AlignedItem[], a: number, b: number): AlignSummary {
  const summary: AlignSummary = {
    same: 0,
    changed: 0,
    added: 0,
    removed: 0,
    requests: { a, b },
    latencyDeltaMs: 0,
    identical: true,
  };
  for (const item of items) {
    summary[item.kind]++;
    if (item.latencyDeltaMs !== undefined) summary.latencyDeltaMs += item.latencyDeltaMs;
  }
  summary.identical = summary.changed + summary.added + summary.removed === 0;
  return summary;
}
