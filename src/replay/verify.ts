import type { TraceSink } from '../sink/sink.js';
import { isObject, type JsonObject, type RpcRequest } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import type { Cassette, CassetteExchange, ClientNotification } from './cassette.js';
import { answerComparer } from './compare.js';
import { describeRequest } from './describe.js';
import { DIFF_DEFAULTS, type DiffOptions, type StructuralDiff } from './diff.js';
import type { LiveAnswer, LiveExit, LiveOutcome } from './live.js';
import { type LivePeer, type LiveTargetFields, liveTargetOf, startLivePeer } from './live-peer.js';
import { requestStateOf } from './mrtr.js';
import {
  createNormalizer,
  DEFAULT_NORMALIZATION,
  type NormalizationRules,
  type Normalizer,
} from './normalize.js';
import { compileIgnorePath, type IgnorePath } from './paths.js';

/**
 * Verify: re-send a cassette's client side to a live server — in recorded order, one request at a time — and
 * compare each answer with the recorded one under the replay normalization. The server's own questions (sampling,
 * elicitation, roots) get the client's recorded answers. Every wait has a timeout; a timeout is a divergence.
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
  /** Hears each verdict as soon as it is known. */
  onVerdict?: ((verdict: ExchangeVerdict) => void) | undefined;
}

export const VERIFY_DEFAULTS = {
  timeoutMs: 30_000,
  /**
   * A new server build bumps its version every release, and `instructions` is prose for the model: neither is
   * behaviour a client depends on. Protocol version, capabilities and the server's name are compared.
   */
  responseIgnore: { initialize: ['$.result.serverInfo.version', '$.result.instructions'] } as Readonly<
    Record<string, readonly string[]>
  >,
  /** Values are kept long enough for a JSON report to be useful; the CLI shortens them for display. */
  diff: { ...DIFF_DEFAULTS, maxEntries: 10, maxValueLength: 2000 } as DiffOptions,
} as const;

export type VerdictStatus = 'match' | 'differ' | 'skipped';

export interface ExchangeVerdict {
  ordinal: number;
  method: string;
  /** The request in short, e.g. `tools/call get-sum {"a":2,"b":3}`. */
  summary: string;
  lineNo: number | undefined;
  status: VerdictStatus;
  /** Where the live answer differs from the recorded one (paths into `{ result }` / `{ error }`). */
  diff: StructuralDiff | undefined;
  /** Why there was nothing to compare: a timeout, the server gone; or why the exchange was skipped. */
  reason: string | undefined;
  /** What the server asked meanwhile that the recording has no answer to. */
  notes: string[];
  /** Live response time. */
  ms: number | undefined;
}

export interface VerifyReport {
  verdicts: ExchangeVerdict[];
  /** Exchanges compared (skipped ones not counted). */
  total: number;
  matched: number;
  differed: number;
  skipped: number;
  /** Server→client requests outside any exchange the recording has no answer to (divergences too). */
  notes: string[];
  /** A request timed out or the server went away: the live run is not a complete session. */
  incomplete: boolean;
  exit: LiveExit;
  stderrTail: string;
}

type Step =
  | { kind: 'exchange'; exchange: CassetteExchange }
  | { kind: 'notification'; note: ClientNotification };

/**
 * Runs the cassette's client side against a live server and compares.
 *
 * @example
 * const { cassette } = await loadCassette('session.jsonl');
 * const report = await verifyCassette(cassette, { spawn, command: 'node', args: ['server.js'], ignore: ['$.result.ts'] });
 * report.differed // → 0 when the server still answers as recorded
 */
export async function verifyCassette(cassette: Cassette, options: VerifyOptions): Promise<VerifyReport> {
  const timeoutMs = options.timeoutMs ?? VERIFY_DEFAULTS.timeoutMs;
  const normalization = options.normalization ?? DEFAULT_NORMALIZATION;
  const ignore = (options.ignore ?? []).map(compileIgnorePath);
  const normalizer = createNormalizer({ rules: normalization, ignore });
  const compare = answerComparer({
    rules: normalization,
    ignore,
    perMethod: options.responseIgnore ?? VERIFY_DEFAULTS.responseIgnore,
    diff: { ...VERIFY_DEFAULTS.diff, ...options.diff },
  });
  const book = new AnswerBook(cassette, normalizer);
  const notes: string[] = [];
  let current: ExchangeVerdict | undefined;

  const live = await startLivePeer(liveTargetOf(options), {
    requestTimeoutMs: timeoutMs,
    capture: options.capture,
    onRequest: (request) => {
      const answer = book.answer(request);
      if (answer.note) (current?.notes ?? notes).push(answer.note);
      return answer.answer;
    },
  });

  const verdicts: ExchangeVerdict[] = [];
  const liveResults = new Map<number, Json>();
  let incomplete = false;
  /** Set once the handshake failed: the server cannot answer anything after it, so nothing more is sent. */
  let halted: string | undefined;
  try {
    for (const step of clientSteps(cassette)) {
      if (step.kind === 'notification') {
        if (!live.done) live.notify(step.note.method, paramsOf(step.note.message));
        continue;
      }
      const { exchange } = step;
      const verdict = newVerdict(exchange, normalizer);
      verdicts.push(verdict);
      const skip = halted ?? skipReason(exchange);
      if (skip) {
        verdict.status = 'skipped';
        verdict.reason = skip;
        options.onVerdict?.(verdict);
        continue;
      }
      current = verdict;
      const sentAt = Date.now();
      const outcome = await live.request(exchange.method, retryParams(exchange, liveResults));
      current = undefined;
      verdict.ms = Date.now() - sentAt;
      if (outcome.kind === 'response') {
        liveResults.set(exchange.ordinal, outcome.message.result ?? null);
        const diff = compare(exchange.method, exchange.response!, outcome.message);
        if (diff.total > 0) verdict.diff = diff;
      } else {
        incomplete = true;
        verdict.reason = failure(outcome, exchange, live);
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
    verdicts,
    total: verdicts.length - count('skipped'),
    matched: count('match'),
    differed: count('differ'),
    skipped: count('skipped'),
    notes,
    incomplete,
    exit,
    stderrTail: live.stderrTail(),
  };
}

/** Requests that open a session: when one goes unanswered, verify stops sending. */
const HANDSHAKE = new Set(['initialize', 'server/discover']);

/** The client side in recorded order: requests and notifications (trace positions share one numbering). */
function clientSteps(cassette: Cassette): Step[] {
  const steps: (Step & { order: number })[] = [
    ...cassette.exchanges.map((exchange) => ({ kind: 'exchange' as const, exchange, order: exchange.order })),
    // A cancellation names a request of the recorded session; the exchanges it cancelled are skipped instead.
    ...cassette.notifications
      .filter((note) => note.method !== 'notifications/cancelled')
      .map((note) => ({ kind: 'notification' as const, note, order: note.order })),
  ];
  return steps.sort((a, b) => a.order - b.order);
}

function skipReason(exchange: CassetteExchange): string | undefined {
  if (exchange.cancelled) return 'the client cancelled it in the recording';
  if (exchange.response === undefined) return 'the recording holds no response to compare with';
  return undefined;
}

function newVerdict(exchange: CassetteExchange, normalizer: Normalizer): ExchangeVerdict {
  return {
    ordinal: exchange.ordinal,
    method: exchange.method,
    summary: describeRequest(normalizer.normalize(exchange.method, exchange.request.params)),
    lineNo: exchange.lineNo,
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

// ---------------------------------------------------------------------------------------------------------------
// Answering the server's questions

interface RecordedAsk {
  method: string;
  key: string;
  answer: JsonObject;
  order: number;
}

/**
 * The client's recorded answers to server→client requests, taken in recorded order: the first unused one whose
 * normalized method + params match, else the next unused one of the same method.
 */
class AnswerBook {
  private readonly asks: RecordedAsk[] = [];
  private readonly used = new Set<RecordedAsk>();

  constructor(
    cassette: Cassette,
    private readonly normalizer: Normalizer,
  ) {
    const messages = [...cassette.exchanges.flatMap((x) => x.script), ...cassette.unsolicited];
    for (const message of messages) {
      if (message.kind !== 'request' || !message.answer) continue;
      const key = normalizer.key(normalizer.normalize(message.method, paramsOf(message.message)));
      this.asks.push({ method: message.method, key, answer: message.answer, order: message.order });
    }
    this.asks.sort((a, b) => a.order - b.order);
  }

  answer(request: RpcRequest): { answer: LiveAnswer; note?: string } {
    const key = this.normalizer.key(this.normalizer.normalize(request.method, request.params));
    const fresh = this.asks.filter((ask) => !this.used.has(ask) && ask.method === request.method);
    const ask = fresh.find((candidate) => candidate.key === key) ?? fresh[0];
    if (ask) {
      this.used.add(ask);
      const { answer } = ask;
      if ('error' in answer && isObject(answer.error)) return { answer: { error: answer.error as never } };
      return { answer: { result: answer.result ?? null } };
    }
    // A ping needs no recording: any client answers it.
    if (request.method === 'ping') return { answer: { result: {} } };
    const what = describeRequest(this.normalizer.normalize(request.method, request.params));
    return {
      answer: {
        error: {
          code: -32601,
          message: `tapedeck verify: the recording holds no answer to ${request.method}`,
        },
      },
      note: `the server asked ${what}, which the recording holds no answer to`,
    };
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
