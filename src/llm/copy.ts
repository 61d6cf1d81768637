/**
 * The trace copy of one LLM exchange: the request's body, then the answer's body or events, read into `llm`
 * lines with the provider's summary (model, usage, stop reason, tool calls). Pure: the proxy feeds it bytes.
 */
import { type CompiledRules, redactHeaders, redactJson } from '../redact/index.js';
import { timestamp } from '../trace/encode.js';
import type { Json } from '../trace/types.js';
import { SseCutter } from './sse.js';
import { summarizeBody, summarizeEvents } from './summary.js';
import type { LlmApi, LlmEvent, LlmRequestLine, LlmResponseLine } from './types.js';

type Headers = Record<string, string | string[]>;

/** Parses a body as JSON when it is JSON, else keeps its text; an empty body is neither. */
function bodyFields(text: string, compiled: CompiledRules | undefined): { body?: Json; text?: string } {
  if (text === '') return {};
  try {
    const body = JSON.parse(text) as Json;
    return { body: compiled ? redactJson(body, compiled) : body };
  } catch {
    return { text };
  }
}

/** Headers under lower-case names, credentials hidden. */
export function traceHeaders(headers: Headers, compiled: CompiledRules | undefined): Headers {
  const lower: Headers = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return compiled ? redactHeaders(lower, compiled) : lower;
}

/**
 * The request line of an exchange, from what the client sent.
 *
 * @example requestLine({ call: 'l1', api: 'openai.chat', method: 'POST', path: '/v1/chat/completions', headers, body })
 */
export function requestLine(
  fields: {
    call: string;
    api: LlmApi;
    method: string;
    path: string;
    headers: Headers;
    body: string;
    at?: number;
  },
  compiled?: CompiledRules,
): LlmRequestLine {
  const parsed = bodyFields(fields.body, compiled);
  const request = parsed.body as Record<string, Json> | undefined;
  const line: LlmRequestLine = {
    type: 'llm',
    t: timestamp(fields.at),
    dir: 'in',
    call: fields.call,
    api: fields.api,
    method: fields.method,
    path: fields.path,
    headers: traceHeaders(fields.headers, compiled),
    ...parsed,
  };
  if (typeof request?.model === 'string') line.model = request.model;
  if (typeof request?.stream === 'boolean') line.stream = request.stream;
  return line;
}

/**
 * Collects an answer as it streams (decoded bytes in, events cut as they complete), then makes its line.
 *
 * @example const answer = new AnswerCopy('openai.chat', 200, headers, start); answer.push(text, Date.now()); answer.line()
 */
export class AnswerCopy {
  private readonly streamed: boolean;
  private readonly cutter = new SseCutter();
  private readonly events: LlmEvent[] = [];
  private text = '';
  private bytes = 0;
  private truncated = false;
  readonly firstByteMs: number;

  constructor(
    private readonly api: LlmApi,
    private readonly status: number,
    private readonly headers: Headers,
    private readonly startedAt: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    now = Date.now(),
  ) {
    const type = headers['content-type'];
    this.streamed = /text\/event-stream/i.test(Array.isArray(type) ? type.join(',') : (type ?? ''));
    this.firstByteMs = now - startedAt;
  }

  /** Decoded text of the answer as it arrived, at `now`. */
  push(text: string, now = Date.now()): void {
    this.bytes += text.length;
    if (this.bytes > this.maxBytes) {
      this.truncated = true;
      return;
    }
    if (!this.streamed) {
      this.text += text;
      return;
    }
    for (const event of this.cutter.push(text)) this.events.push({ ms: now - this.startedAt, text: event });
  }

  /** The answer's line, once it ended (or broke off with `error`). */
  line(call: string, compiled: CompiledRules | undefined, error?: string, now = Date.now()): LlmResponseLine {
    const head = {
      type: 'llm' as const,
      t: timestamp(now),
      dir: 'out' as const,
      call,
      api: this.api,
      status: this.status,
      headers: traceHeaders(this.headers, compiled),
    };
    const timing = { firstByteMs: this.firstByteMs, durationMs: now - this.startedAt };
    const tail = {
      ...timing,
      ...(error === undefined ? {} : { error }),
      ...(this.truncated ? { truncated: true } : {}),
    };
    if (this.streamed) {
      const rest = this.cutter.rest();
      if (rest !== '') this.events.push({ ms: now - this.startedAt, text: rest });
      const summary = summarizeEvents(
        this.api,
        this.events.map((event) => event.text),
      );
      return { ...head, ...summary, events: this.events, ...tail };
    }
    const body = bodyFields(this.text, compiled);
    return { ...head, ...summarizeBody(this.api, body.body), ...body, ...tail };
  }
}
