import {
  type EndLine,
  type Exchange,
  type HttpLine,
  type Json,
  type MessageRef,
  type MetaLine,
  type RecordLine,
  toTapedeck,
} from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * A request taken out of a trace in a form another tool runs: the JSON-RPC message as one line (paste it into a
 * stdio server), a `curl` command that sends the recorded HTTP request again (HTTP recordings), and a minimal
 * cassette — a trace file holding just that exchange and the handshake before it, which `tapedeck replay` serves.
 * Values the recording redacted stay redacted: the copy says which ones need a real value.
 */

/**
 * The request as one JSON-RPC line, as it travelled.
 *
 * @example jsonRpcLine(exchange) // → '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{…}}'
 */
export function jsonRpcLine(exchange: Exchange): string {
  return JSON.stringify(rawItem(exchange.requestRef));
}

/**
 * The JSON-RPC message a reference points at, as recorded: the line's `raw`, or its item of a batch.
 *
 * @example rawItem(exchange.requestRef) // → { jsonrpc: '2.0', id: 3, method: 'tools/call', params: {…} }
 */
export function rawItem(ref: MessageRef): Json {
  const raw = ref.line.raw;
  return ref.item !== undefined && Array.isArray(raw) ? (raw[ref.item] ?? null) : raw;
}

/** Heads curl writes itself, or that make no sense sent again by hand. */
const LEFT_OUT = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  // curl would print a compressed body as it came; without the header the server answers in plain text.
  'accept-encoding',
]);

const REDACTED = /\[REDACTED:[^\]]*\]/;

/**
 * The HTTP request head that carried a message: the `http` line of the same stream (else connection) before it.
 * Undefined for a message that came over stdio, or whose head the trace does not hold.
 *
 * @example httpHeadOf(source.rows, source.requestRow(exchange)!)?.url // → 'http://127.0.0.1:3001/mcp'
 */
export function httpHeadOf(rows: readonly Row[], messageRow: Row): HttpLine | undefined {
  const line = messageRow.line as { stream?: unknown; conn?: unknown };
  const stream = typeof line.stream === 'string' ? line.stream : undefined;
  const conn = typeof line.conn === 'string' ? line.conn : undefined;
  if (stream === undefined && conn === undefined) return undefined;
  const at = rows.indexOf(messageRow);
  for (let i = (at < 0 ? rows.length : at) - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.kind !== 'http' || row.src !== messageRow.src) continue;
    const http = row.line as HttpLine;
    if (http.dir !== 'in') continue;
    if (stream !== undefined ? http.stream === stream : http.conn === conn) return http;
  }
  return undefined;
}

/** A word for a POSIX shell: single-quoted, a quote inside written as `'\''`. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface CurlCommand {
  /** The command, one option per line (continued with `\`). */
  text: string;
  /** Heads whose value the recording redacted: they need a real value before the command works. */
  redacted: string[];
}

/**
 * A `curl` command that sends the recorded request again: method, URL and heads as recorded (hop-by-hop heads,
 * Host and Content-Length left to curl), the JSON-RPC body of the line. `-N` when the answer may be an event
 * stream, so events print as they come. A first comment line names the redacted heads.
 *
 * @example curlCommand(head, exchange.requestRef.line.raw, meta).text // → "curl -X POST 'http://…/mcp' \\\n  -H 'content-type: application/json' …"
 */
export function curlCommand(head: HttpLine, body: Json, meta: MetaLine): CurlCommand {
  const url = absoluteUrl(head.url ?? meta.url ?? '', meta.url);
  const parts: string[] = [];
  const redacted: string[] = [];
  let stream = false;
  const headers = typeof head.headers === 'object' && head.headers !== null ? head.headers : {};
  for (const [name, value] of Object.entries(headers)) {
    if (LEFT_OUT.has(name.toLowerCase())) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      if (REDACTED.test(one) && !redacted.includes(name)) redacted.push(name);
      if (name.toLowerCase() === 'accept' && one.includes('text/event-stream')) stream = true;
      parts.push(`-H ${shellQuote(`${name}: ${one}`)}`);
    }
  }
  if ((head.method ?? 'POST') !== 'GET') parts.push(`--data-raw ${shellQuote(JSON.stringify(body))}`);
  parts.unshift(`curl${stream ? ' -N' : ''} -X ${head.method ?? 'POST'} ${shellQuote(url)}`);
  const note =
    redacted.length === 0
      ? ''
      : `# ${redacted.join(', ')} ${redacted.length === 1 ? 'was' : 'were'} redacted in the trace: put real values in before running\n`;
  return { text: `${note}${parts.join(' \\\n  ')}`, redacted };
}

/** A recorded URL made absolute against the trace's own URL (a capture may have kept only the path). */
function absoluteUrl(url: string, base: string | undefined): string {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

/** The part of a source a cassette is cut from. */
export interface CassetteSource {
  rows: readonly Row[];
  meta: MetaLine;
  requestRow(exchange: Exchange): Row | undefined;
}

/**
 * A minimal cassette for one exchange: the trace's meta line, the `initialize` handshake the exchange's session
 * opened with (request, answer and the client's `notifications/initialized`), then the exchange — its request,
 * the messages pairing tied to it (progress, logs, server→client requests with the client's answers; over stdio
 * a server's request during a call is tied to it only by a guess, and kept, since replay reads the same lines the
 * same way), and its answer — and an end line. `tapedeck replay` serves it: a client that connects and sends
 * that request gets the recorded answer.
 *
 * @example await writeFile('echo.jsonl', await cassetteOf(source, exchange));
 */
export async function cassetteOf(source: CassetteSource, exchange: Exchange): Promise<string> {
  const lines: (RecordLine | EndLine)[] = [];
  const taken = new Set<unknown>();
  const take = (line: RecordLine | EndLine | undefined) => {
    if (line === undefined || taken.has(line)) return;
    taken.add(line);
    lines.push(line);
  };
  for (const line of handshake(source, exchange)) take(line);
  for (const line of exchangeLines(exchange)) take(line);
  const times = lines.map((l) => Date.parse(l.t)).filter((t) => !Number.isNaN(t));
  const last = times.length > 0 ? Math.max(...times) : Date.parse(source.meta.startedAt);
  const started = Date.parse(source.meta.startedAt);
  const end: EndLine = {
    t: new Date(Number.isNaN(last) ? 0 : last).toISOString(),
    type: 'end',
    durationMs: Number.isNaN(last) || Number.isNaN(started) ? 0 : Math.max(0, last - started),
    reason: 'imported',
  };
  const meta: MetaLine = {
    ...source.meta,
    label: `${source.meta.label} · ${exchange.method} ${String(exchange.id)}`,
    traceId: `${source.meta.traceId ?? 'trace'}-exchange-${exchange.ordinal}`,
  };
  const text: string[] = [];
  const all = [...lines, end];
  for await (const line of toTapedeck({
    meta,
    lines: async function* () {
      for (const line of all) yield { line, file: '', lineNo: 0, segment: 0 };
    },
  }))
    text.push(line);
  return text.join('');
}

/** The request's lines in order: request, children (recursively), answer. */
function exchangeLines(exchange: Exchange): RecordLine[] {
  const out: { line: RecordLine; order: number }[] = [];
  // An item of a batch goes into the cassette as a line of its own: the batch's other items are not this exchange's.
  const add = (ref: MessageRef) =>
    out.push({
      line: ref.item === undefined ? ref.line : { ...ref.line, raw: rawItem(ref) },
      order: ref.index + (ref.item ?? 0) / 1e6,
    });
  const walk = (x: Exchange) => {
    add(x.requestRef);
    for (const child of x.children) {
      if (child.kind === 'notification') add(child.ref);
      else walk(child.exchange);
    }
    if (x.responseRef) add(x.responseRef);
  };
  walk(exchange);
  return out.sort((a, b) => a.order - b.order).map((x) => x.line);
}

/** The initialize exchange (and the client's initialized notification) the exchange's session began with. */
function handshake(source: CassetteSource, exchange: Exchange): RecordLine[] {
  const http = source.meta.transport === 'http' || source.meta.transport === 'sse';
  const sameSession = (row: Row) =>
    row.server === exchange.server &&
    // Over HTTP the first POST is on a connection of its own, before the session has an id.
    (http || (row.line as { conn?: unknown }).conn === exchange.conn);
  const requestRow = source.requestRow(exchange);
  const until = requestRow ? source.rows.indexOf(requestRow) : source.rows.length;
  let init: Exchange | undefined;
  let initialized: RecordLine | undefined;
  for (let i = 0; i < until; i++) {
    const row = source.rows[i]!;
    if (!sameSession(row)) continue;
    if (row.kind === 'request' && row.exchange!.method === 'initialize' && row.exchange!.dir === 'in') {
      init = row.exchange;
      initialized = undefined;
    } else if (
      init &&
      row.kind === 'notification' &&
      row.notification!.method === 'notifications/initialized'
    )
      initialized ??= row.line as RecordLine;
  }
  if (!init || init === exchange) return [];
  const out: RecordLine[] = [init.requestRef.line];
  if (init.responseRef) out.push(init.responseRef.line);
  if (initialized) out.push(initialized);
  return out;
}
