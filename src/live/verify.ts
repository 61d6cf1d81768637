import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { OutputRedaction } from '../redact/output.js';
import { DIFF_DEFAULTS, type DiffOptions, type StructuralDiff } from '../replay/cassette/diff.js';
import { requestStateOf } from '../replay/cassette/mrtr.js';
import {
  createNormalizer,
  DEFAULT_NORMALIZATION,
  type NormalizationRules,
  type Normalizer,
} from '../replay/cassette/normalize.js';
import { compileIgnorePath, type IgnorePath } from '../replay/cassette/paths.js';
import type { Cassette, CassetteExchange } from '../replay/cassette/types.js';
import type { Timing } from '../replay/options.js';
import type { TraceSink } from '../sink/sink.js';
import { describeRequest } from '../trace/describe.js';
import { isObject, type JsonObject } from '../trace/jsonrpc.js';
import type { Json, RecordBody } from '../trace/types.js';
import { answerComparer } from './compare.js';
import {
  type LiveExit,
  type LiveOutcome,
  type LivePeer,
  type LiveTargetFields,
  liveTargetOf,
} from './peer.js';
import { startLivePeer } from './start-peer.js';
import { AnswerBook, shownParams } from './verify-answers.js';
import { type MissedAsks, SessionPacer } from './verify-order.js';
import { type VerifySession, type VerifyStep, verifySessions } from './verify-sessions.js';

/**
 * Verify: re-send a cassette's client side to a live server — in recorded order, one request at a time — and
 * compare each answer with the recorded one under the replay normalization. The server's own questions (sampling,
 * elicitation, roots) get the client's recorded answers, and keep their recorded place: a client message waits for
 * the questions that came before it (verify-order.ts). Every wait has a timeout; a request's timeout is a
 * divergence, a question that does not come in time is reported.
 */

/**
 * Which server: a command (`spawn` — Node's `child_process.spawn`, the CLI passes `nodeSpawn` — with `command`,
 * `args`, `env`, `cwd`), or `upstream`, a remote Streamable HTTP / SSE server.
 */
export interface VerifyOptions extends LiveTargetFields {
  /** How long each request may take. */
  timeoutMs?: number | undefined;
  /**
   * JSONPath locations left out: into the response (`$.result.content[0].text`, `$.error.data`) for the
   * comparison, into the params (`$.params.…`) for finding the recorded answer to a server→client request.
   */
  ignore?: readonly (string | IgnorePath)[] | undefined;
  normalization?: NormalizationRules | undefined;
  /** Response locations left out per method, before `ignore` (see VERIFY_DEFAULTS). */
  responseIgnore?: Readonly<Record<string, readonly string[]>> | undefined;
  diff?: Partial<DiffOptions> | undefined;
  /** Gets the live session as trace lines (messages both ways, stderr, spawn / exit): a started sink. */
  capture?: TraceSink | undefined;
  /**
   * How the report shows what it quotes from traffic: requests and answers redacted as the trace would hold them,
   * text (a server's error, its stderr) too. The comparison is made on what was sent and received.
   */
  shown?: OutputRedaction | undefined;
  /** Hears each verdict as soon as it is known. */
  onVerdict?: ((verdict: ExchangeVerdict) => void) | undefined;
  /** Hears each recorded session begin (before its live session starts). */
  onSession?: ((session: { number: number; conn: string | undefined; of: number }) => void) | undefined;
  /**
   * `none` (default): no recorded gaps, but the server's own requests keep their recorded place (see
   * VERIFY_DEFAULTS.askWaitMs and answerSettleMs); `recorded`: every recorded gap between client messages as
   * well; a number: those gaps divided by it.
   */
  timing?: Timing | undefined;
  /** How long a client message waits for the server's requests that came before it in the recording. */
  askWaitMs?: number | undefined;
  /** @internal The clock the request timeouts run on: the real one, or a test's (see src/base/scheduler.ts). */
  scheduler?: Scheduler | undefined;
}

export const VERIFY_DEFAULTS = {
  timeoutMs: ANSWER_TIMEOUT_MS,
  /**
   * A new server build bumps its version every release, and `instructions` is prose for the model: neither is
   * behaviour a client depends on. Protocol version, capabilities and the server's name are compared.
   */
  responseIgnore: { initialize: ['$.result.serverInfo.version', '$.result.instructions'] } as Readonly<
    Record<string, readonly string[]>
  >,
  /** Values are kept long enough for a JSON report to be useful; the CLI shortens them for display. */
  diff: { ...DIFF_DEFAULTS, maxEntries: 10, maxValueLength: 2000 } as DiffOptions,
  timing: 'none' as Timing,
  /** A server asks its first questions within moments of the handshake: seconds are plenty, and bound a miss. */
  askWaitMs: 5000,
  /**
   * After the client answered a server's request, the server gets this long to act on the answer before the next
   * client message (server-filesystem resolves and checks the roots it got): the recording's own gap says only how
   * long that took on the machine that recorded it.
   */
  answerSettleMs: 250,
  /** The longest single recorded gap kept under recorded timing. */
  maxDelayMs: 60_000,
} as const;

export type VerdictStatus = 'match' | 'differ' | 'skipped';

export interface ExchangeVerdict {
  ordinal: number;
  method: string;
  /** The request in short, e.g. `tools/call get-sum {"a":2,"b":3}`. */
  summary: string;
  lineNo: number | undefined;
  /** Which recorded session it belongs to (1, 2 … in the order they began). */
  session: number;
  status: VerdictStatus;
  /** Where the live answer differs from the recorded one (paths into `{ result }` / `{ error }`). */
  diff: StructuralDiff | undefined;
  /** Why there was nothing to compare: a timeout, the server gone; or why the exchange was skipped. */
  reason: string | undefined;
  /** What the server asked meanwhile that the recording has no answer to. */
  notes: string[];
  /** Live response time. */
  ms: number | undefined;
  /** The HTTP status of an error the server answered the whole POST with (a JSON-RPC error body). */
  httpStatus?: number | undefined;
}

/** How one recorded session went in its live session. */
export interface SessionReport {
  number: number;
  /** The recorded connection (an HTTP recording's MCP session id; undefined over stdio). */
  conn: string | undefined;
  total: number;
  matched: number;
  differed: number;
  skipped: number;
  exit: LiveExit;
  stderrTail: string;
}

export interface VerifyReport {
  verdicts: ExchangeVerdict[];
  /** Exchanges compared (skipped ones not counted). */
  total: number;
  matched: number;
  differed: number;
  skipped: number;
  /** Each recorded session, re-driven in a live session of its own. */
  sessions: SessionReport[];
  /** Server→client requests outside any exchange the recording has no answer to (divergences too). */
  notes: string[];
  /**
   * Server→client requests the recorded client never answered (the MCP Inspector never answers `roots/list`):
   * left unanswered again. They fail a run unless it accepts them (`--allow-unanswered`).
   */
  unanswered: string[];
  /**
   * Waits that ran out: server→client requests the recording has before a client message that the live server had
   * not sent in time (the message was sent all the same). The live answers after it may come from another state
   * than the recorded ones, so `--update` does not save such a run. Verify always sets it.
   */
  waits?: string[] | undefined;
  /** A request timed out or the server went away: the live run is not a complete session. */
  incomplete: boolean;
  /** How the last live session ended. */
  exit: LiveExit;
  stderrTail: string;
}

/**
 * Runs the cassette's client side against a live server and compares — each recorded session in a live session of
 * its own (a fresh process over stdio, a fresh MCP session over HTTP), in the order they began.
 *
 * @example
 * const { cassette } = await loadCassette('session.jsonl');
 * const report = await verifyCassette(cassette, { spawn, command: 'node', args: ['server.js'], ignore: ['$.result.ts'] });
 * report.differed // → 0 when the server still answers as recorded
 */
export async function verifyCassette(cassette: Cassette, options: VerifyOptions): Promise<VerifyReport> {
  const normalization = options.normalization ?? DEFAULT_NORMALIZATION;
  const ignore = (options.ignore ?? []).map(compileIgnorePath);
  const normalizer = createNormalizer({ rules: normalization, ignore });
  const compare = answerComparer({
    rules: normalization,
    ignore,
    perMethod: options.responseIgnore ?? VERIFY_DEFAULTS.responseIgnore,
    diff: { ...VERIFY_DEFAULTS.diff, ...options.diff },
    shown: options.shown,
  });
  const run: RunState = {
    options,
    normalizer,
    compare,
    book: new AnswerBook(cassette, normalizer, options.shown),
    verdicts: [],
    notes: [],
    unanswered: [],
    waits: [],
    incomplete: false,
  };
  const sessions = verifySessions(cassette);
  const reports: SessionReport[] = [];
  for (const session of sessions) {
    options.onSession?.({ number: session.number, conn: session.conn, of: sessions.length });
    reports.push(await verifySession(session, sessions.length, run));
  }
  const count = (status: VerdictStatus) => run.verdicts.filter((v) => v.status === status).length;
  const last = reports.at(-1);
  return {
    verdicts: run.verdicts,
    total: run.verdicts.length - count('skipped'),
    matched: count('match'),
    differed: count('differ'),
    skipped: count('skipped'),
    sessions: reports,
    notes: run.notes,
    unanswered: run.unanswered,
    waits: run.waits,
    incomplete: run.incomplete,
    exit: last?.exit ?? { code: null, signal: null },
    stderrTail: last?.stderrTail ?? '',
  };
}

/** What every session of one verify run shares. */
interface RunState {
  options: VerifyOptions;
  normalizer: Normalizer;
  compare: ReturnType<typeof answerComparer>;
  book: AnswerBook;
  verdicts: ExchangeVerdict[];
  notes: string[];
  unanswered: string[];
  waits: string[];
  incomplete: boolean;
}

/** One recorded session in a live session of its own. */
async function verifySession(session: VerifySession, of: number, run: RunState): Promise<SessionReport> {
  const { options } = run;
  const timeoutMs = options.timeoutMs ?? VERIFY_DEFAULTS.timeoutMs;
  const target = liveTargetOf(options);
  let current: ExchangeVerdict | undefined;
  const where = of > 1 ? ` (session ${session.number})` : '';
  // Over stdio each session is a process: its lines keep the recorded session's connection in a rewritten cassette.
  const capture =
    options.capture && target.kind === 'stdio' && session.conn !== undefined
      ? onConnection(options.capture, session.conn)
      : options.capture;
  const scheduler = options.scheduler ?? realScheduler;
  const skipped = new Set(
    session.steps.flatMap((s) =>
      s.kind === 'exchange' && skipReason(s.exchange) ? [s.exchange.ordinal] : [],
    ),
  );
  const pacer = new SessionPacer(
    session,
    {
      timing: options.timing ?? VERIFY_DEFAULTS.timing,
      askWaitMs: options.askWaitMs ?? VERIFY_DEFAULTS.askWaitMs,
      answerSettleMs: VERIFY_DEFAULTS.answerSettleMs,
      maxDelayMs: VERIFY_DEFAULTS.maxDelayMs,
      scheduler,
    },
    skipped,
  );
  const live = await startLivePeer(target, {
    requestTimeoutMs: timeoutMs,
    scheduler: options.scheduler,
    capture,
    onRequest: (request) => {
      // Counted once the answer is on its way: the next client message must not overtake it.
      scheduler.setTimeout(() => pacer.asked(), 0);
      const said = run.book.answer(request);
      if (said.kind === 'answer') return said.answer;
      if (said.kind === 'unanswered') {
        run.unanswered.push(`${said.what}${where}`);
        // The recorded client never answered: neither does verify (the promise is dropped with the session).
        return new Promise<never>(() => {});
      }
      (current?.notes ?? run.notes).push(`${said.note}${current ? '' : where}`);
      return said.answer;
    },
  });
  const verdicts: ExchangeVerdict[] = [];
  const liveResults = new Map<number, Json>();
  /** Set once the handshake failed: the server cannot answer anything after it, so nothing more is sent. */
  let halted: string | undefined;
  try {
    for (const step of session.handshake) {
      if (step.kind === 'notification') live.notify(step.note.method, paramsOf(step.note.message));
      else await live.request(step.exchange.method, step.exchange.request.params);
    }
    const pace = async (step: VerifyStep) => {
      const missed = await pacer.before(step);
      if (missed) run.waits.push(`${missedLine(missed, step, run.normalizer)}${where}`);
    };
    for (const step of session.steps) {
      if (step.kind === 'notification') {
        if (live.done) continue;
        if (!halted) await pace(step);
        live.notify(step.note.method, paramsOf(step.note.message));
        pacer.sent(step);
        continue;
      }
      const { exchange } = step;
      const verdict = newVerdict(exchange, run.normalizer, session.number, options.shown);
      verdicts.push(verdict);
      run.verdicts.push(verdict);
      const skip = halted ?? skipReason(exchange);
      if (skip) {
        verdict.status = 'skipped';
        verdict.reason = skip;
        options.onVerdict?.(verdict);
        continue;
      }
      await pace(step);
      current = verdict;
      const sentAt = Date.now();
      const request = live.request(exchange.method, retryParams(exchange, liveResults));
      pacer.sent(step);
      const outcome = await request;
      current = undefined;
      verdict.ms = Date.now() - sentAt;
      if (outcome.kind === 'response') {
        liveResults.set(exchange.ordinal, outcome.message.result ?? null);
        if (outcome.status !== undefined) verdict.httpStatus = outcome.status;
        const diff = run.compare(exchange.method, exchange.response!, outcome.message);
        if (diff.total > 0) verdict.diff = diff;
      } else {
        run.incomplete = true;
        verdict.reason = failure(outcome, exchange, live);
        if (options.shown) verdict.reason = options.shown.text(verdict.reason);
        // A server that does not answer its handshake in time answers nothing after it: waiting out every later
        // request's timeout as well would only make a wedged server cost minutes.
        if (outcome.kind === 'timeout' && HANDSHAKE.has(exchange.method))
          halted = `not sent: ${exchange.method} got no answer in time`;
      }
      verdict.status = verdict.diff || verdict.reason || verdict.notes.length > 0 ? 'differ' : 'match';
      options.onVerdict?.(verdict);
    }
  } finally {
    await live.close();
  }
  const exit = await live.exited;
  const count = (status: VerdictStatus) => verdicts.filter((v) => v.status === status).length;
  return {
    number: session.number,
    conn: session.conn,
    total: verdicts.length - count('skipped'),
    matched: count('match'),
    differed: count('differ'),
    skipped: count('skipped'),
    exit,
    stderrTail: live.stderrTail(),
  };
}

/** A sink that writes every line on `conn`. */
function onConnection(sink: TraceSink, conn: string): TraceSink {
  return {
    start: (meta) => sink.start(meta),
    append: (body, rawText) => sink.append({ ...body, conn } as RecordBody, rawText),
    close: (info) => sink.close(info),
  };
}

/** Requests that open a session: when one goes unanswered, verify stops sending. */
const HANDSHAKE = new Set(['initialize', 'server/discover']);

/** What a wait that ran out says. */
function missedLine(missed: MissedAsks, step: VerifyStep, normalizer: Normalizer): string {
  const what =
    step.kind === 'exchange'
      ? describeRequest(normalizer.normalize(step.exchange.method, step.exchange.request.params))
      : step.note.method;
  const lineNo = step.kind === 'exchange' ? step.exchange.lineNo : step.note.lineNo;
  const line = lineNo === undefined ? '' : ` (line ${lineNo})`;
  const them = missed.methods.length === 1 ? 'it' : 'them';
  return `the server had not asked ${missed.methods.join(', ')} after ${missed.ms} ms, and the recording has ${them} before ${what}${line}: sent it anyway`;
}

function skipReason(exchange: CassetteExchange): string | undefined {
  if (exchange.cancelled) return 'the client cancelled it in the recording';
  if (exchange.response === undefined) return 'the recording holds no response to compare with';
  return undefined;
}

function newVerdict(
  exchange: CassetteExchange,
  normalizer: Normalizer,
  session: number,
  shown: OutputRedaction | undefined,
): ExchangeVerdict {
  const params = shownParams({ method: exchange.method, params: exchange.request.params }, shown);
  return {
    ordinal: exchange.ordinal,
    method: exchange.method,
    summary: describeRequest(normalizer.normalize(exchange.method, params)),
    lineNo: exchange.lineNo,
    session,
    status: 'match',
    diff: undefined,
    reason: undefined,
    notes: [],
    ms: undefined,
  };
}

function failure(
  outcome: Exclude<LiveOutcome, { kind: 'response' }>,
  exchange: CassetteExchange,
  live: LivePeer,
) {
  if (outcome.kind === 'timeout') {
    return `no answer to ${exchange.method} within ${outcome.ms} ms (raise --timeout if the server is just slow)`;
  }
  if (outcome.kind === 'error') return outcome.message;
  if (outcome.exit.reason !== undefined)
    return `the server went away before answering: ${outcome.exit.reason}`;
  const how =
    outcome.exit.signal !== null
      ? `was killed by ${outcome.exit.signal}`
      : `exited with code ${outcome.exit.code}`;
  const last = live.stderrTail().trim().split('\n').at(-1);
  return `the server ${how} before answering${last ? `; its stderr ended: ${clip(last, 160)}` : ''}`;
}

function paramsOf(message: JsonObject): JsonObject | undefined {
  return isObject(message.params) ? message.params : undefined;
}

/** A 2026-era retry echoes the state the live server handed out in the round before, not the recorded one. */
function retryParams(exchange: CassetteExchange, liveResults: Map<number, Json>): JsonObject | undefined {
  const params = exchange.request.params;
  const previous = exchange.mrtr?.previous;
  if (!params || previous === undefined || !('requestState' in params)) return params;
  const result = liveResults.get(previous);
  const state = isObject(result) ? requestStateOf(result) : undefined;
  return state === undefined ? params : { ...params, requestState: state };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
