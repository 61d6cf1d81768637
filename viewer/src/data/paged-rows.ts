import {
  type EndLine,
  type Exchange,
  type ExchangeChild,
  type Json,
  type MessageLine,
  messageItems,
  type PagedChild,
  type PagedExchange,
  type PagedRow,
  type RecordLine,
  type RpcItem,
  type RpcRequest,
  type RpcResponse,
} from 'mcp-tapedeck/trace';
import type { ProgressState } from './progress.js';
import type { Row } from './rows.js';

/**
 * A page of a paged trace made into the rows and exchanges the viewer's views read: each line's text parsed,
 * the JSON-RPC item picked out of a batch, the exchange put together from the request and answer lines the
 * server sent with the facts its pairing found (latency, outcome, parent, children). What the server knew only
 * as facts (a child's method, a call's last progress) is filled in as far as the views look.
 */

/** What a paged exchange carries beyond pairing's fields (Exchange.attached): its last progress. */
export interface PagedAttachment {
  paged: true;
  progress: ProgressState | undefined;
  childCount: number;
}

/** The paged attachment of an exchange, if it came from a paged trace. */
export function pagedAttachment(exchange: Exchange): PagedAttachment | undefined {
  const attached = exchange.attached as PagedAttachment | undefined;
  return attached?.paged === true ? attached : undefined;
}

function parseLine(text: string, key: string): RecordLine | EndLine {
  try {
    const line = JSON.parse(text) as RecordLine | EndLine;
    // mcp-tape lines have no seq: the reader numbered them, and the key says how.
    if (line.type !== 'end' && line.seq === undefined) {
      const seq = Number(key.split('.')[1]);
      if (!Number.isNaN(seq)) (line as { seq?: number }).seq = seq;
    }
    return line;
  } catch {
    return { t: '', type: 'text', dir: 'in', text } as RecordLine;
  }
}

function itemOf(line: RecordLine | EndLine, item: number | null): RpcItem | undefined {
  if (!('raw' in line)) return undefined;
  return messageItems(line.raw as Json)[item ?? 0];
}

function progressState(paged: PagedExchange): ProgressState | undefined {
  const p = paged.progress;
  if (!p) return undefined;
  const fraction =
    p.total !== null && p.total > 0 ? Math.max(0, Math.min(1, p.progress / p.total)) : undefined;
  return {
    progress: p.progress,
    total: p.total ?? undefined,
    fraction,
    message: p.message ?? undefined,
    count: p.count,
    times: [],
  };
}

/** Exchanges kept for sharing between pages (the ones used longest ago are let go). */
const KEPT_EXCHANGES = 20_000;

/** Builds rows from pages, sharing one Exchange object per request across the rows that show it. */
export class PagedRows {
  private readonly exchanges = new Map<number, Exchange>();
  /** The request row's key of every exchange built (children included), for links between rows. */
  readonly keys = new WeakMap<Exchange, string>();

  constructor(private readonly src = 0) {}

  /** The row of one paged row. */
  row(paged: PagedRow): Row {
    const line = parseLine(paged.line, paged.key);
    const kind = paged.kind;
    const row: Row = {
      key: paged.key,
      src: this.src,
      kind,
      line,
      file: paged.file,
      lineNo: paged.lineNo,
      item: paged.item ?? undefined,
      time: paged.time ?? undefined,
      dir: paged.dir ?? undefined,
      server: typeof line.server === 'string' ? line.server : undefined,
      exchange: undefined,
      notification: undefined,
      response: undefined,
      parent: undefined,
      via: paged.via ?? undefined,
      depth: paged.depth,
      reason: undefined,
    };
    const item = itemOf(line, paged.item);
    if ((kind === 'request' || kind === 'response') && paged.exchange) {
      row.exchange = this.exchange(paged.exchange, paged);
    } else if (kind === 'notification' && item?.kind === 'notification') {
      row.notification = item;
      row.parent = paged.exchange ? this.exchange(paged.exchange, undefined) : undefined;
    } else if (kind === 'orphan' && item?.kind === 'response') {
      row.response = item;
    } else if (kind === 'invalid') {
      row.reason = item?.kind === 'invalid' ? item.reason : 'invalid message';
    }
    return row;
  }

  /** The Exchange of a paged request, built once per ordinal (its answer filled in when a later page has it). */
  exchange(paged: PagedExchange, carrier: PagedRow | undefined): Exchange {
    const known = this.exchanges.get(paged.ordinal);
    // Sent whole by a row before on this page: the carrier is then this exchange's other row.
    const responseText =
      paged.response ??
      (paged.responseKey !== null && (!paged.seen || carrier?.key === paged.responseKey)
        ? carrier?.line
        : undefined);
    const requestText =
      paged.line ?? (paged.seen && carrier?.key !== paged.key ? undefined : carrier?.line) ?? '';
    if (known) {
      if (!known.response && responseText !== undefined) this.answer(known, paged, responseText);
      return known;
    }
    const requestLine = parseLine(requestText, paged.key) as MessageLine;
    const request = itemOf(requestLine, paged.item) as RpcRequest | undefined;
    const exchange: Exchange = {
      ordinal: paged.ordinal,
      server: typeof requestLine.server === 'string' ? requestLine.server : undefined,
      conn: typeof requestLine.conn === 'string' ? requestLine.conn : undefined,
      dir: paged.dir,
      id: request?.id ?? '?',
      method: request?.method ?? '?',
      request: request ?? { kind: 'request', id: '?', method: '?', params: undefined },
      requestRef: {
        line: requestLine,
        index: 0,
        lineNo: paged.lineNo,
        item: paged.item ?? undefined,
        time: paged.time ?? undefined,
      },
      response: undefined,
      responseRef: undefined,
      latencyMs: paged.latency ?? undefined,
      outcome: paged.outcome,
      cancelled: paged.cancelled,
      parent: paged.parent ? this.exchange(paged.parent, undefined) : undefined,
      via: paged.via ?? undefined,
      // Only an open request, not the wire, ties such a message to its parent (see pairing in mcp-tapedeck/trace).
      guessed: paged.via === 'open-request',
      depth: paged.depth,
      children: [],
      attached: {
        paged: true,
        progress: progressState(paged),
        childCount: paged.childCount,
      } satisfies PagedAttachment,
    };
    exchange.children = paged.children.map((child) => this.child(child));
    if (responseText !== undefined) this.answer(exchange, paged, responseText);
    this.exchanges.set(paged.ordinal, exchange);
    if (this.exchanges.size > KEPT_EXCHANGES) this.exchanges.delete(this.exchanges.keys().next().value!);
    this.keys.set(exchange, paged.key);
    return exchange;
  }

  private answer(exchange: Exchange, paged: PagedExchange, text: string): void {
    const line = parseLine(text, paged.responseKey ?? '') as MessageLine;
    const response = itemOf(line, paged.responseItem) as RpcResponse | undefined;
    if (response?.kind !== 'response') return;
    exchange.response = response;
    exchange.responseRef = {
      line,
      index: 0,
      lineNo: paged.responseLineNo ?? undefined,
      item: paged.responseItem ?? undefined,
      time: paged.responseTime ?? undefined,
    };
    exchange.latencyMs = paged.latency ?? undefined;
    exchange.outcome = paged.outcome;
  }

  /** A child as the detail pane lists it: a notification by its method, a server's request by its line. */
  private child(child: PagedChild): ExchangeChild {
    const via = child.via ?? 'open-request';
    const seq = Number(child.key.split('.')[1]);
    const item = child.key.split('.')[2];
    const ref = {
      line: { t: '', seq, dir: 'out', raw: null } as MessageLine,
      index: 0,
      lineNo: undefined,
      item: item === undefined ? undefined : Number(item),
      time: child.time ?? undefined,
    };
    if (child.kind === 'notification')
      return {
        kind: 'notification',
        notification: { kind: 'notification', method: child.method, params: undefined },
        ref,
        via,
        guessed: via === 'open-request',
      };
    const line = child.line ? (parseLine(child.line, child.key) as MessageLine) : ref.line;
    const request = itemOf(line, child.item) as RpcRequest | undefined;
    const exchange: Exchange = {
      ordinal: -1,
      server: undefined,
      conn: undefined,
      dir: 'out',
      id: request?.id ?? '?',
      method: child.method,
      request: request ?? { kind: 'request', id: '?', method: child.method, params: undefined },
      requestRef: { ...ref, line },
      response: undefined,
      responseRef: undefined,
      latencyMs: undefined,
      outcome: child.outcome ?? 'open',
      cancelled: false,
      parent: undefined,
      via,
      guessed: via === 'open-request',
      depth: 0,
      children: [],
    };
    this.keys.set(exchange, child.key);
    return { kind: 'exchange', exchange, via, guessed: via === 'open-request' };
  }
}
