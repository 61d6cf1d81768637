import type {
  Cassette,
  CassetteExchange,
  ClientNotification,
  ServerMessage,
} from '../replay/cassette/types.js';
import { isObject } from '../trace/jsonrpc.js';

/**
 * A recording's client side, session by session. An HTTP recording holds one MCP session per `conn` (the MCP
 * Inspector opens one per call, mcp-remote a probe session before the real one), and a server refuses a second
 * `initialize` in one session — so verify re-drives each recorded session in a live session of its own. A stdio
 * recording is one session, plus the probe's discovery a 2026-era client asked in a process of its own
 * (`conn: probe`) and the exchanges `run --mode update` added (`conn: update-…`).
 */

/** One step of the client side: a request to send and compare, or a notification to send. */
export type VerifyStep =
  | { kind: 'exchange'; exchange: CassetteExchange }
  | { kind: 'notification'; note: ClientNotification };

/** A server→client request of the recording (sampling, elicitation, roots, ping), where it came in its session. */
export interface RecordedAsk {
  method: string;
  /** Trace position: asks before a client message in this order came before it in the recording. */
  order: number;
  /** Trace position and time (epoch ms) of the client's answer; undefined when it never answered. */
  answerOrder: number | undefined;
  answeredAt: number | undefined;
  /** The exchange whose script holds it; undefined for one that came outside any request. */
  exchange: number | undefined;
}

export interface VerifySession {
  /** The recorded connection (undefined when the trace names none, as over stdio). */
  conn: string | undefined;
  /** 1, 2, 3 … in the order the sessions began. */
  number: number;
  steps: VerifyStep[];
  /**
   * Sent first and not compared: the handshake of another session, for a session recorded without one of its own
   * (exchanges `run --mode update` added to a 2025-era cassette start straight at the request).
   */
  handshake: VerifyStep[];
  /** The server's requests to the client in this session, in recorded order. */
  asks: RecordedAsk[];
}

/**
 * The cassette's client side split into sessions, in the order they began; each session's steps in recorded
 * order. Cancelled requests' `notifications/cancelled` are left out (the exchanges they cancelled are skipped).
 *
 * @example verifySessions(cassette).map((s) => s.steps.length) // → [3, 4] for a probe session and the real one
 */
export function verifySessions(cassette: Cassette): VerifySession[] {
  const aliases = cassette.sessionAliases ?? {};
  const sessionOf = (conn: string | undefined) => (conn === undefined ? '' : (aliases[conn] ?? conn));
  const all: (VerifyStep & { order: number; session: string; conn: string | undefined })[] = [
    ...cassette.exchanges.map((exchange) => ({
      kind: 'exchange' as const,
      exchange,
      order: exchange.order,
      conn: exchange.conn,
      session: sessionOf(exchange.conn),
    })),
    ...cassette.notifications
      .filter((note) => note.method !== 'notifications/cancelled')
      .map((note) => ({
        kind: 'notification' as const,
        note,
        order: note.order,
        conn: note.conn,
        session: sessionOf(note.conn),
      })),
  ].sort((a, b) => a.order - b.order);

  const byKey = new Map<string, VerifySession>();
  for (const { session: key, order: _order, conn, ...step } of all) {
    let session = byKey.get(key);
    if (session === undefined) {
      session = {
        conn: key === '' ? undefined : (aliases[conn ?? ''] ?? conn),
        number: byKey.size + 1,
        steps: [],
        handshake: [],
        asks: [],
      };
      byKey.set(key, session);
    }
    session.steps.push(step as VerifyStep);
  }
  const sessions = [...byKey.values()];
  for (const { session: key, ask } of recordedAsks(cassette, sessionOf)) byKey.get(key)?.asks.push(ask);
  for (const session of sessions) session.asks.sort((a, b) => a.order - b.order);
  const lender = sessions.find((session) => initializeOf(session) !== undefined);
  for (const session of sessions) {
    if (lender === undefined || session === lender || !needsHandshake(session)) continue;
    session.handshake = lender.steps.filter(
      (step) =>
        (step.kind === 'exchange' && step.exchange.method === 'initialize') ||
        (step.kind === 'notification' && step.note.method === 'notifications/initialized'),
    );
  }
  return sessions;
}

/** Every server→client request of the recording, with the session it came in. */
function recordedAsks(
  cassette: Cassette,
  sessionOf: (conn: string | undefined) => string,
): { session: string; ask: RecordedAsk }[] {
  const out: { session: string; ask: RecordedAsk }[] = [];
  const add = (message: ServerMessage, conn: string | undefined, exchange: number | undefined) => {
    if (message.kind !== 'request') return;
    const { method, order, answerOrder, answeredAt } = message;
    out.push({ session: sessionOf(conn), ask: { method, order, answerOrder, answeredAt, exchange } });
  };
  for (const exchange of cassette.exchanges)
    for (const message of exchange.script) add(message, exchange.conn, exchange.ordinal);
  for (const message of cassette.unsolicited) add(message, message.conn, undefined);
  return out;
}

function initializeOf(session: VerifySession): CassetteExchange | undefined {
  for (const step of session.steps)
    if (step.kind === 'exchange' && step.exchange.method === 'initialize') return step.exchange;
  return undefined;
}

/**
 * A session that starts with an ordinary request of the 2025 era: no `initialize`, no `server/discover`, and no
 * 2026-era `_meta` on its requests (which need no handshake).
 */
function needsHandshake(session: VerifySession): boolean {
  const first = session.steps.find((step) => step.kind === 'exchange');
  if (first === undefined || first.kind !== 'exchange') return false;
  const { method, request } = first.exchange;
  if (method === 'initialize' || method === 'server/discover' || method === 'ping') return false;
  const meta = isObject(request.params) && isObject(request.params._meta) ? request.params._meta : undefined;
  return meta === undefined || !('io.modelcontextprotocol/protocolVersion' in meta);
}
