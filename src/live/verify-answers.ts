import type { OutputRedaction } from '../redact/output.js';
import type { Normalizer } from '../replay/cassette/normalize.js';
import type { Cassette } from '../replay/cassette/types.js';
import { describeRequest } from '../trace/describe.js';
import { isObject, type JsonObject, type RpcRequest } from '../trace/jsonrpc.js';
import type { LiveAnswer } from './peer.js';

/**
 * What verify says when the live server asks the client something (sampling, elicitation, roots): the client's
 * recorded answer, taken in recorded order — the first unused one whose normalized method + params match, else the
 * next unused one of the same method. A question the recorded client never answered (the MCP Inspector never
 * answers `roots/list`) is left unanswered again, and said so.
 */

export type BookAnswer =
  /** The recorded answer (or a ping's, which any client gives). */
  | { kind: 'answer'; answer: LiveAnswer }
  /** The recording holds this question and no answer to it: leave it unanswered, as the client did. */
  | { kind: 'unanswered'; what: string }
  /** The recording never saw this question: an error goes back, and it is a divergence. */
  | { kind: 'unknown'; answer: LiveAnswer; note: string };

interface RecordedAsk {
  method: string;
  key: string;
  answer: JsonObject | undefined;
  order: number;
}

/**
 * The client's recorded answers to the server's requests.
 *
 * @example
 * const book = new AnswerBook(cassette, normalizer);
 * book.answer({ kind: 'request', id: 0, method: 'roots/list', params: undefined }) // → { kind: 'answer', … }
 */
export class AnswerBook {
  private readonly asks: RecordedAsk[] = [];
  private readonly used = new Set<RecordedAsk>();

  constructor(
    cassette: Cassette,
    private readonly normalizer: Normalizer,
    /** How a request the answers name is shown (redaction); as it is without one. */
    private readonly shown?: OutputRedaction,
  ) {
    const messages = [...cassette.exchanges.flatMap((x) => x.script), ...cassette.unsolicited];
    for (const message of messages) {
      if (message.kind !== 'request') continue;
      const key = normalizer.key(normalizer.normalize(message.method, paramsOf(message.message)));
      this.asks.push({ method: message.method, key, answer: message.answer, order: message.order });
    }
    this.asks.sort((a, b) => a.order - b.order);
  }

  answer(request: RpcRequest): BookAnswer {
    const key = this.normalizer.key(this.normalizer.normalize(request.method, request.params));
    const fresh = this.asks.filter((ask) => !this.used.has(ask) && ask.method === request.method);
    const ask = fresh.find((candidate) => candidate.key === key) ?? fresh[0];
    const what = describeRequest(this.normalizer.normalize(request.method, shownParams(request, this.shown)));
    if (ask) {
      this.used.add(ask);
      const { answer } = ask;
      if (answer === undefined) return { kind: 'unanswered', what };
      if ('error' in answer && isObject(answer.error))
        return { kind: 'answer', answer: { error: answer.error as never } };
      return { kind: 'answer', answer: { result: answer.result ?? null } };
    }
    // A ping needs no recording: any client answers it.
    if (request.method === 'ping') return { kind: 'answer', answer: { result: {} } };
    return {
      kind: 'unknown',
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

function paramsOf(message: JsonObject): JsonObject | undefined {
  return isObject(message.params) ? message.params : undefined;
}

/**
 * A request's params as reports show them: redacted as the trace would hold them (path rules see `$.params`).
 *
 * @example shownParams({ method: 'tools/call', params: { arguments: { apiKey: 'k' } } }, shown) // { arguments: { apiKey: '[REDACTED:api-key]' } }
 */
export function shownParams(
  request: { method: string; params?: JsonObject | undefined },
  shown: OutputRedaction | undefined,
): JsonObject | undefined {
  if (shown === undefined || request.params === undefined) return request.params;
  const message = shown.message({ method: request.method, params: request.params });
  return isObject(message) && isObject(message.params) ? message.params : request.params;
}
