/**
 * Which recorded LLM call answers a live request: the API and path, and the request body after normalization
 * (ignoring `metadata`, user ids, the stream flag and stream options), identical requests served in recorded
 * order. Pure.
 */
import { canonicalJson } from '../trace/canonical-json.js';
import type { Json } from '../trace/types.js';
import type { LlmCall } from './read.js';

/** Request fields that do not change what the model answers, or that differ run to run. */
export const LLM_IGNORED_FIELDS = [
  'metadata',
  'user',
  'stream',
  'stream_options',
  'safety_identifier',
  'prompt_cache_key',
];

/**
 * The matching key of a request: method, path without query, and the body without ignored fields.
 *
 * @example llmKey('POST', '/v1/messages', { model: 'm', stream: true, messages: [] }) // 'POST /v1/messages {"messages":[],"model":"m"}'
 */
export function llmKey(method: string, path: string, body: Json | undefined, text?: string): string {
  const bare = path.split('?')[0]!;
  let shown: string = text ?? '';
  if (body !== undefined) {
    const value =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? Object.fromEntries(Object.entries(body).filter(([key]) => !LLM_IGNORED_FIELDS.includes(key)))
        : body;
    shown = canonicalJson(value);
  }
  return `${method.toUpperCase()} ${bare} ${shown}`;
}

export interface LlmMiss {
  method: string;
  path: string;
  /** The nearest recorded request on the same path, as a key, when there is one. */
  nearest: string | undefined;
}

/**
 * Recorded calls by key, each key a queue in recorded order; the last call of a key is served again once its queue
 * is used up only when `repeat` says so.
 *
 * @example const index = new LlmIndex(calls); index.take(key)?.answer
 */
export class LlmIndex {
  private readonly queues = new Map<string, LlmCall[]>();
  private readonly used = new Set<LlmCall>();
  readonly misses: LlmMiss[] = [];

  constructor(
    private readonly calls: readonly LlmCall[],
    private readonly repeat = false,
  ) {
    for (const call of calls) {
      if (call.answer === undefined) continue;
      const key = llmKey(call.request.method, call.request.path, call.request.body, call.request.text);
      const queue = this.queues.get(key) ?? [];
      queue.push(call);
      this.queues.set(key, queue);
    }
  }

  /** The call that answers `key`, or undefined (a miss, remembered with the nearest candidate). */
  take(key: string, method: string, path: string): LlmCall | undefined {
    const queue = this.queues.get(key);
    const next = queue?.find((call) => !this.used.has(call));
    if (next !== undefined) {
      this.used.add(next);
      return next;
    }
    if (this.repeat && queue !== undefined && queue.length > 0) return queue[queue.length - 1];
    this.misses.push({ method, path, nearest: this.nearest(key) });
    return undefined;
  }

  /** Recorded calls never served. */
  unused(): LlmCall[] {
    return this.calls.filter((call) => call.answer !== undefined && !this.used.has(call));
  }

  /** The recorded key on the same method and path sharing the longest prefix with `key`. */
  private nearest(key: string): string | undefined {
    const head = key.slice(0, key.indexOf(' ', key.indexOf(' ') + 1) + 1);
    let best: string | undefined;
    let bestLength = -1;
    for (const candidate of this.queues.keys()) {
      if (!candidate.startsWith(head)) continue;
      let i = 0;
      while (i < key.length && key[i] === candidate[i]) i += 1;
      if (i > bestLength) {
        best = candidate;
        bestLength = i;
      }
    }
    return best;
  }
}
