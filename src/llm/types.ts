/**
 * LLM exchanges in a trace: a `type: "llm"` line per request (`dir: "in"`) and per answer (`dir: "out"`), tied by
 * `call`. Additive to trace format v1: readers that do not know the type skip it. Pure (the viewer may read it).
 */
import type { Json } from '../trace/types.js';

/** Which provider API a call spoke; `http` for any other path, passed through and kept as plain HTTP. */
export type LlmApi = 'anthropic.messages' | 'openai.chat' | 'openai.responses' | 'http';

/** A tool call the model asked for: Anthropic `tool_use`, OpenAI `tool_calls` / Responses `function_call`. */
export interface LlmToolCall {
  /** The provider's id for the call (`toolu_…`, `call_…`), when it gave one. */
  id?: string;
  name: string;
  /** The arguments, parsed from JSON when they parse; else the text as sent. */
  input: Json;
}

/** Token usage as the provider reported it, under common names. */
export interface LlmUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** What a model's answer said, read from its JSON body or from its streamed events. */
export interface LlmSummary {
  model?: string;
  usage?: LlmUsage;
  stopReason?: string;
  toolCalls?: LlmToolCall[];
  /** The assistant's text, joined. */
  text?: string;
}

/** One server-sent event as it crossed the wire (its own text, blank line included), `ms` after the request. */
export interface LlmEvent {
  ms: number;
  text: string;
}

/** The request half of an LLM exchange. */
export interface LlmRequestLine {
  type: 'llm';
  t: string;
  seq?: number;
  dir: 'in';
  call: string;
  api: LlmApi;
  method: string;
  /** The path and query the client asked for, as received by the proxy. */
  path: string;
  headers: Record<string, string | string[]>;
  /** The body, parsed when it is JSON; `text` holds it otherwise. */
  body?: Json;
  text?: string;
  model?: string;
  stream?: boolean;
  [extra: string]: unknown;
}

/** The answer half of an LLM exchange. */
export interface LlmResponseLine extends LlmSummary {
  type: 'llm';
  t: string;
  seq?: number;
  dir: 'out';
  call: string;
  api: LlmApi;
  status: number;
  headers: Record<string, string | string[]>;
  /** A JSON body; `text` for any other non-streamed body; `events` for an event stream. */
  body?: Json;
  text?: string;
  events?: LlmEvent[];
  /** Milliseconds from the request to the answer's first byte, and to its last. */
  firstByteMs: number;
  durationMs: number;
  /** Set when the exchange ended early: the client left, or the upstream failed. */
  error?: string;
  [extra: string]: unknown;
}

export type LlmLine = LlmRequestLine | LlmResponseLine;

/**
 * Whether a parsed trace line is an LLM exchange line.
 *
 * @example isLlmLine({ type: 'llm', dir: 'in', call: 'l1', … }) // true
 */
export function isLlmLine(line: unknown): line is LlmLine {
  const value = line as Partial<LlmLine> | null;
  if (typeof value !== 'object' || value === null) return false;
  return (
    value.type === 'llm' && (value.dir === 'in' || value.dir === 'out') && typeof value.call === 'string'
  );
}

/**
 * The API a request path speaks (query ignored): `…/messages` Anthropic, `…/chat/completions` and `…/responses`
 * OpenAI; anything else is `http`.
 *
 * @example apiOfPath('/v1/chat/completions?x=1') // 'openai.chat'
 */
export function apiOfPath(path: string): LlmApi {
  const bare = path.split('?')[0]!.replace(/\/+$/, '');
  if (/\/messages$/.test(bare)) return 'anthropic.messages';
  if (/\/chat\/completions$/.test(bare)) return 'openai.chat';
  if (/\/responses$/.test(bare)) return 'openai.responses';
  return 'http';
}
