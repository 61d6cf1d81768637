import type { OpenedTrace } from './import/opened.js';
import { isObject, type JsonObject, toolName } from './jsonrpc.js';
import { type Exchange, type PairEvent, Pairer } from './pairing.js';
import type {
  CallStats,
  DirectionStats,
  NotificationStats,
  ServerStats,
  TraceStats,
  UnansweredStats,
} from './stats-shape.js';
import type { Direction, Json, TraceLine } from './types.js';

export type {
  CallStats,
  DirectionStats,
  LatencyStats,
  MethodStats,
  NotificationStats,
  ServerStats,
  ToolStats,
  TraceStats,
  UnansweredStats,
} from './stats-shape.js';

/**
 * UTF-8 byte length of a string without encoding it (this module stays free of `node:` imports).
 *
 * @example utf8Length('é') // → 2
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Nearest-rank percentile of ascending-sorted numbers.
 *
 * @example percentile([1, 2, 3, 4], 0.5) // → 2
 */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

function emptyDirection(): DirectionStats {
  return { messages: 0, bytes: 0, requests: 0, responses: 0, notifications: 0, invalid: 0 };
}

interface CallAccumulator {
  stats: CallStats;
  latencies: Latencies;
}

/** Latencies as they come, in a typed array that grows: no boxed number per value, nothing to convert at the end. */
class Latencies {
  values = new Float64Array(64);
  length = 0;

  push(ms: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
  }
}

type MethodAccumulator = CallAccumulator & { dir: Direction; method: string };

function str(value: Json | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Accumulates {@link TraceStats} from pairing events. Feed it every event of a {@link Pairer} (or use
 * {@link computeStats}), then call `result()`.
 *
 * @example const c = new StatsCollector(); for (const ev of pairTrace(lines)) c.add(ev); c.result().durationMs
 */
export class StatsCollector {
  private label: string | null = null;
  private startedAt: string | null = null;
  /** The first and last lines with a time: their `t` is read at the end (a TimedLine makes its text then). */
  private first: { t?: unknown } | null = null;
  private last: { t?: unknown } | null = null;
  private end: Extract<TraceLine, { type: 'end' }> | undefined;
  private readonly servers = new Map<string, ServerStats>();
  private readonly messages = { in: emptyDirection(), out: emptyDirection() };
  private readonly lines = { text: 0, stderr: 0, http: 0, events: 0 };
  private readonly methods = new Map<string, MethodAccumulator>();
  private readonly tools = new Map<string, CallAccumulator & { name: string }>();
  private readonly methodIndex = new Map<string | null, Record<Direction, Map<string, MethodAccumulator>>>();
  private readonly toolIndex = new Map<string | null, Map<string, CallAccumulator & { name: string }>>();
  private readonly notifications = new Map<string, NotificationStats>();
  private readonly unanswered: UnansweredStats[] = [];
  private orphans = 0;

  /**
   * Counts one pairing event. `rawBytes`, when the reader measured it, is the UTF-8 length of
   * `JSON.stringify(raw)` of the event's line (a line read by scanMessageLine has only a reduced `raw`).
   */
  add(ev: PairEvent, rawBytes?: number): void {
    if (ev.kind === 'line') this.addLine(ev.line);
    else if (ev.kind === 'unanswered') this.addOutcome(ev.exchange);
    else this.addMessage(ev, rawBytes);
  }

  private addMessage(ev: Exclude<PairEvent, { kind: 'line' | 'unanswered' }>, rawBytes?: number): void {
    const { ref } = ev;
    const dir = this.messages[ref.line.dir];
    if (ref.item === undefined || ref.item === 0) {
      dir.messages++;
      dir.bytes += rawBytes ?? utf8Length(JSON.stringify(ref.line.raw));
      this.first ??= ref.line;
      this.last = ref.line;
    }
    const server = str(ref.line.server as Json | undefined);
    switch (ev.kind) {
      case 'request': {
        dir.requests++;
        this.methodOf(ev.exchange).stats.calls++;
        const tool = this.toolOf(ev.exchange);
        if (tool) tool.stats.calls++;
        return;
      }
      case 'response':
        dir.responses++;
        this.noteServer(ev.exchange);
        this.addOutcome(ev.exchange);
        return;
      case 'orphan':
        dir.responses++;
        this.orphans++;
        return;
      case 'notification': {
        dir.notifications++;
        const { method } = ev.notification;
        const key = `${server}\u0000${method}\u0000${ref.line.dir}`;
        const entry = this.notifications.get(key) ?? { server, dir: ref.line.dir, method, count: 0 };
        entry.count++;
        this.notifications.set(key, entry);
        return;
      }
      case 'invalid':
        dir.invalid++;
        return;
    }
  }

  private addLine(line: TraceLine): void {
    switch (line.type) {
      case 'meta':
        this.label ??= line.label;
        this.startedAt ??= line.startedAt;
        return;
      case 'end':
        this.end = line;
        return;
      case 'text':
      case 'stderr':
      case 'http':
        this.lines[line.type]++;
        break;
      case 'event':
        this.lines.events++;
        break;
    }
    if (typeof line.t === 'string') {
      this.first ??= line;
      this.last = line;
    }
  }

  /** Found by server, direction and method in nested maps: no key text built per message. */
  private methodOf(exchange: Exchange): CallAccumulator {
    const server = exchange.server ?? null;
    let byDir = this.methodIndex.get(server);
    if (byDir === undefined) {
      byDir = { in: new Map(), out: new Map() };
      this.methodIndex.set(server, byDir);
    }
    let method = byDir[exchange.dir].get(exchange.method);
    if (!method) {
      method = {
        stats: emptyCall(server),
        latencies: new Latencies(),
        dir: exchange.dir,
        method: exchange.method,
      };
      byDir[exchange.dir].set(exchange.method, method);
      this.methods.set(`${server}\u0000${exchange.method}\u0000${exchange.dir}`, method);
    }
    return method;
  }

  private toolOf(exchange: Exchange): CallAccumulator | undefined {
    if (exchange.dir !== 'in') return undefined;
    const name = toolName(exchange.request);
    if (name === undefined) return undefined;
    const server = exchange.server ?? null;
    let byName = this.toolIndex.get(server);
    if (byName === undefined) {
      byName = new Map();
      this.toolIndex.set(server, byName);
    }
    let tool = byName.get(name);
    if (!tool) {
      tool = { stats: emptyCall(server), latencies: new Latencies(), name };
      byName.set(name, tool);
      this.tools.set(`${server}\u0000${name}`, tool);
    }
    return tool;
  }

  private addOutcome(exchange: Exchange): void {
    this.countOutcome(exchange, this.methodOf(exchange));
    const tool = this.toolOf(exchange);
    if (tool) this.countOutcome(exchange, tool);
    if (exchange.outcome === 'unanswered') {
      this.unanswered.push({
        server: exchange.server ?? null,
        conn: exchange.conn ?? null,
        dir: exchange.dir,
        id: exchange.id,
        method: exchange.method,
        tool: toolName(exchange.request) ?? null,
        t: exchange.requestRef.line.t ?? null,
        cancelled: exchange.cancelled,
      });
    }
  }

  private countOutcome(exchange: Exchange, acc: CallAccumulator): void {
    const s = acc.stats;
    if (exchange.outcome === 'error') s.errors++;
    else if (exchange.outcome === 'tool_error') s.toolErrors++;
    else if (exchange.outcome === 'input_required') s.inputRequired++;
    else if (exchange.outcome === 'unanswered') {
      s.unanswered++;
      if (exchange.cancelled) s.cancelled++;
    }
    if (exchange.latencyMs !== undefined) acc.latencies.push(exchange.latencyMs);
  }

  /** Server identity: the initialize result, else any 2026-era result's `_meta[…/serverInfo]`. */
  private noteServer(exchange: Exchange): void {
    const result = exchange.response?.result;
    if (exchange.dir !== 'in' || !isObject(result)) return;
    const key = exchange.server ?? '';
    const known = this.servers.get(key);
    if (exchange.method === 'initialize' && known?.era !== 'initialize') {
      const info = isObject(result.serverInfo) ? result.serverInfo : {};
      this.servers.set(key, serverStats(exchange.server, info, str(result.protocolVersion), 'initialize'));
      return;
    }
    const meta = isObject(result._meta) ? result._meta : undefined;
    const info = meta?.['io.modelcontextprotocol/serverInfo'];
    if (known || !isObject(info)) return;
    const requestMeta = exchange.request.params?._meta;
    const version = isObject(requestMeta)
      ? str(requestMeta['io.modelcontextprotocol/protocolVersion'])
      : null;
    this.servers.set(key, serverStats(exchange.server, info, version, 'discover'));
  }

  result(): TraceStats {
    const endT = this.end?.t ?? (this.last === null ? null : (this.last.t as string));
    const start = this.startedAt ?? (this.first === null ? null : (this.first.t as string));
    const span = start && endT ? Date.parse(endT) - Date.parse(start) : Number.NaN;
    const byKey = <T>(map: Map<string, T>, key: (v: T) => string): T[] =>
      [...map.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    return {
      version: 1,
      label: this.label,
      startedAt: start,
      endedAt: endT,
      durationMs: this.end?.durationMs ?? (Number.isNaN(span) ? null : span),
      ended: this.end !== undefined,
      endReason: this.end?.reason ?? null,
      exitCode: this.end?.exitCode ?? null,
      servers: byKey(this.servers, (s) => s.server ?? ''),
      messages: { in: { ...this.messages.in }, out: { ...this.messages.out } },
      lines: { ...this.lines },
      methods: byKey(this.methods, (m) => `${m.stats.server ?? ''}\u0000${m.dir}\u0000${m.method}`).map(
        (m) => ({
          dir: m.dir,
          method: m.method,
          ...finishCall(m),
        }),
      ),
      tools: byKey(this.tools, (t) => `${t.stats.server ?? ''}\u0000${t.name}`).map((t) => ({
        name: t.name,
        ...finishCall(t),
      })),
      notifications: byKey(this.notifications, (n) => `${n.server ?? ''}\u0000${n.dir}\u0000${n.method}`),
      unanswered: [...this.unanswered],
      orphanResponses: this.orphans,
    };
  }
}

function emptyCall(server: string | null): CallStats {
  const zero = { calls: 0, errors: 0, toolErrors: 0, inputRequired: 0, unanswered: 0, cancelled: 0 };
  return { server, ...zero, latencyMs: null };
}

function finishCall(acc: CallAccumulator): CallStats {
  const { length } = acc.latencies;
  if (length === 0) return { ...acc.stats, latencyMs: null };
  const values = acc.latencies.values.slice(0, length);
  const at = (q: number) => Math.max(1, Math.ceil(q * length)) - 1;
  let p50: number;
  let p95: number;
  let max: number;
  if (!plainNumbers(values)) {
    // Sorted whole, as percentile() expects.
    values.sort();
    p50 = percentile(values, 0.5);
    p95 = percentile(values, 0.95);
    max = values[length - 1]!;
  } else {
    // Three ranks of a sorted order, without sorting: each value at its rank, the smaller ones before it.
    max = select(values, 0, length - 1, length - 1);
    p95 = select(values, 0, length - 1, at(0.95));
    p50 = select(values, 0, at(0.95), at(0.5));
  }
  return { ...acc.stats, latencyMs: { count: length, p50, p95, max } };
}

/** No NaN and no -0 among the values (those a typed array's sort orders by more than `<`). */
function plainNumbers(values: Float64Array): boolean {
  for (const v of values) if (Number.isNaN(v) || Object.is(v, -0)) return false;
  return true;
}

/**
 * The value that would be at index `k` of values [lo, hi] sorted ascending; it is left there, with no larger value
 * before it and no smaller one after it (Hoare's selection, pivot the middle of three).
 *
 * @example select(Float64Array.of(3, 1, 2), 0, 2, 0) // → 1
 */
function select(values: Float64Array, lo: number, hi: number, k: number): number {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!;
    const b = values[mid]!;
    const c = values[hi]!;
    // The middle of the three (no NaN here: Math.max and Math.min order them as `<` does).
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

function serverStats(
  server: string | undefined,
  info: JsonObject,
  protocolVersion: string | null,
  era: ServerStats['era'],
): ServerStats {
  return {
    server: server ?? null,
    name: str(info.name),
    title: str(info.title),
    version: str(info.version),
    protocolVersion,
    era,
  };
}

/**
 * Statistics of a whole trace in one streaming pass.
 *
 * @example const stats = await computeStats(readLines('trace.jsonl')); stats.tools[0]?.latencyMs?.p95
 */
export async function computeStats(
  lines: AsyncIterable<TraceLine> | Iterable<TraceLine>,
): Promise<TraceStats> {
  const pairer = new Pairer({ children: 'none' });
  const collector = new StatsCollector();
  for await (const line of lines) for (const ev of pairer.push(line)) collector.add(ev);
  for (const ev of pairer.finish()) collector.add(ev);
  return collector.result();
}

/**
 * Statistics of an opened trace in one pass over its batches: its meta first, each later segment's meta where
 * that segment starts (as {@link computeStats} is fed them), the byte counts a scanning reader measured used as
 * they are. Open the trace with `scanSpan: scanTimedSpan` to read message lines without parsing their bodies.
 *
 * @example const stats = await openedTraceStats(await openTrace('big.jsonl', { scanSpan: scanTimedSpan }));
 */
export async function openedTraceStats(trace: OpenedTrace): Promise<TraceStats> {
  const pairer = new Pairer({ children: 'none' });
  const collector = new StatsCollector();
  let rawBytes: number | undefined;
  const each = (ev: PairEvent) => collector.add(ev, rawBytes);
  pairer.pushEach(trace.meta, undefined, each);
  let segment = trace.segments[0]?.segment ?? 0;
  for await (const batch of trace.batches()) {
    for (const entry of batch) {
      if (entry.segment !== segment) {
        segment = entry.segment;
        const meta = trace.segments.find((s) => s.segment === segment)?.meta;
        rawBytes = undefined;
        if (meta) pairer.pushEach(meta, undefined, each);
      }
      rawBytes = entry.rawBytes;
      pairer.pushEach(entry.line, undefined, each);
    }
  }
  rawBytes = undefined;
  for (const ev of pairer.finish()) collector.add(ev);
  return collector.result();
}
