/**
 * What a model's answer said — model, usage, stop reason, tool calls, text — read from a JSON body or from the
 * streamed events of Anthropic Messages, OpenAI Chat Completions and OpenAI Responses. Pure.
 */
import type { Json } from '../trace/types.js';
import { sseJson } from './sse.js';
import type { LlmApi, LlmSummary, LlmToolCall, LlmUsage } from './types.js';

type Obj = Record<string, unknown>;
/** A summary while it is read: fields may still be undefined (clean() drops them). */
type Draft = { [K in keyof LlmSummary]?: LlmSummary[K] | undefined };

const obj = (value: unknown): Obj | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Arguments as text → JSON when they parse (an empty text is `{}`), else the text itself. */
export function parseArguments(text: string): Json {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** Drops undefined fields, so a summary carries only what the answer said. */
function clean(summary: Draft): LlmSummary {
  const out: LlmSummary = {};
  if (summary.model !== undefined) out.model = summary.model;
  const usage =
    summary.usage && Object.fromEntries(Object.entries(summary.usage).filter(([, v]) => v !== undefined));
  if (usage && Object.keys(usage).length > 0) out.usage = usage as LlmUsage;
  if (summary.stopReason !== undefined) out.stopReason = summary.stopReason;
  if (summary.toolCalls !== undefined && summary.toolCalls.length > 0) out.toolCalls = summary.toolCalls;
  if (summary.text !== undefined && summary.text !== '') out.text = summary.text;
  return out;
}

function anthropicUsage(usage: Obj | undefined): LlmUsage | undefined {
  if (usage === undefined) return undefined;
  return {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
  } as LlmUsage;
}

function openaiUsage(usage: Obj | undefined): LlmUsage | undefined {
  if (usage === undefined) return undefined;
  const details = obj(usage.prompt_tokens_details) ?? obj(usage.input_tokens_details);
  return {
    input: num(usage.prompt_tokens) ?? num(usage.input_tokens),
    output: num(usage.completion_tokens) ?? num(usage.output_tokens),
    cacheRead: num(details?.cached_tokens),
  } as LlmUsage;
}

/** An Anthropic `message` object (a non-streamed answer). */
function anthropicMessage(message: Obj): Draft {
  const toolCalls: LlmToolCall[] = [];
  let text = '';
  for (const block of list(message.content).map(obj)) {
    if (block?.type === 'text') text += str(block.text) ?? '';
    if (block?.type === 'tool_use') {
      toolCalls.push({
        id: str(block.id) ?? '',
        name: str(block.name) ?? '',
        input: (block.input ?? {}) as Json,
      });
    }
  }
  return {
    model: str(message.model),
    usage: anthropicUsage(obj(message.usage)),
    stopReason: str(message.stop_reason),
    toolCalls,
    text,
  };
}

/** An OpenAI `chat.completion` object. */
function chatCompletion(completion: Obj): Draft {
  const choice = obj(list(completion.choices)[0]);
  const message = obj(choice?.message);
  const toolCalls = list(message?.tool_calls)
    .map(obj)
    .map((call) => ({
      id: str(call?.id) ?? '',
      name: str(obj(call?.function)?.name) ?? '',
      input: parseArguments(str(obj(call?.function)?.arguments) ?? ''),
    }));
  return {
    model: str(completion.model),
    usage: openaiUsage(obj(completion.usage)),
    stopReason: str(choice?.finish_reason),
    toolCalls,
    text: str(message?.content) ?? '',
  };
}

/** An OpenAI `response` object (Responses API). */
function responseObject(response: Obj): Draft {
  const toolCalls: LlmToolCall[] = [];
  let text = '';
  for (const item of list(response.output).map(obj)) {
    if (item?.type === 'function_call') {
      toolCalls.push({
        id: str(item.call_id) ?? str(item.id) ?? '',
        name: str(item.name) ?? '',
        input: parseArguments(str(item.arguments) ?? ''),
      });
    }
    if (item?.type === 'message') {
      for (const part of list(item.content).map(obj))
        if (part?.type === 'output_text') text += str(part.text) ?? '';
    }
  }
  const incomplete = str(obj(response.incomplete_details)?.reason);
  return {
    model: str(response.model),
    usage: openaiUsage(obj(response.usage)),
    stopReason: toolCalls.length > 0 ? 'tool_calls' : (incomplete ?? str(response.status)),
    toolCalls,
    text,
  };
}

/**
 * Reads a non-streamed JSON answer of `api`.
 *
 * @example summarizeBody('anthropic.messages', { model: 'm', content: [{ type: 'text', text: 'hi' }], … })
 */
export function summarizeBody(api: LlmApi, body: Json | undefined): LlmSummary {
  const value = obj(body);
  if (value === undefined || api === 'http') return {};
  if (api === 'anthropic.messages') return clean(anthropicMessage(value));
  if (api === 'openai.chat') return clean(chatCompletion(value));
  return clean(responseObject(value));
}

/**
 * Reads a streamed answer of `api` from its events' texts (as cut by SseCutter).
 *
 * @example summarizeEvents('openai.chat', ['data: {"choices":[{"delta":{"content":"hi"}}]}\n\n', 'data: [DONE]\n\n'])
 */
export function summarizeEvents(api: LlmApi, events: readonly string[]): LlmSummary {
  const data = events.map(sseJson).filter((value): value is Obj => value !== undefined);
  if (api === 'anthropic.messages') return clean(anthropicStream(data));
  if (api === 'openai.chat') return clean(chatStream(data));
  if (api === 'openai.responses') return clean(responsesStream(data));
  return {};
}

/** message_start … content_block_* … message_delta … message_stop. */
function anthropicStream(events: Obj[]): Draft {
  const summary: Draft = {};
  const usage: LlmUsage = {};
  const blocks = new Map<
    number,
    { type: string; id: string | undefined; name: string | undefined; text: string }
  >();
  for (const event of events) {
    if (event.type === 'message_start') {
      const message = obj(event.message);
      summary.model = str(message?.model);
      Object.assign(usage, anthropicUsage(obj(message?.usage)));
    } else if (event.type === 'content_block_start') {
      const block = obj(event.content_block);
      blocks.set(num(event.index) ?? blocks.size, {
        type: str(block?.type) ?? '',
        id: str(block?.id),
        name: str(block?.name),
        text: str(block?.text) ?? '',
      });
    } else if (event.type === 'content_block_delta') {
      const block = blocks.get(num(event.index) ?? -1);
      const delta = obj(event.delta);
      if (block !== undefined) block.text += str(delta?.text) ?? str(delta?.partial_json) ?? '';
    } else if (event.type === 'message_delta') {
      summary.stopReason = str(obj(event.delta)?.stop_reason) ?? summary.stopReason;
      const later = anthropicUsage(obj(event.usage));
      for (const [key, value] of Object.entries(later ?? {}))
        if (value !== undefined) (usage as Obj)[key] = value;
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  summary.text = ordered
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
  summary.toolCalls = ordered
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ id: block.id ?? '', name: block.name ?? '', input: parseArguments(block.text) }));
  summary.usage = usage;
  return summary;
}

/** chat.completion.chunk lines; tool call pieces gathered by index; usage in the last chunk when asked for. */
function chatStream(events: Obj[]): Draft {
  const summary: Draft = {};
  const calls = new Map<number, { id: string; name: string; args: string }>();
  let text = '';
  for (const chunk of events) {
    summary.model = str(chunk.model) ?? summary.model;
    if (obj(chunk.usage) !== undefined) summary.usage = openaiUsage(obj(chunk.usage));
    const choice = obj(list(chunk.choices)[0]);
    if (choice === undefined) continue;
    summary.stopReason = str(choice.finish_reason) ?? summary.stopReason;
    const delta = obj(choice.delta);
    text += str(delta?.content) ?? '';
    for (const piece of list(delta?.tool_calls).map(obj)) {
      const index = num(piece?.index) ?? 0;
      const call = calls.get(index) ?? { id: '', name: '', args: '' };
      const fn = obj(piece?.function);
      call.id = str(piece?.id) ?? call.id;
      call.name += str(fn?.name) ?? '';
      call.args += str(fn?.arguments) ?? '';
      calls.set(index, call);
    }
  }
  summary.text = text;
  summary.toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, name: call.name, input: parseArguments(call.args) }));
  return summary;
}

/** Responses events: the final `response.completed` (or `.incomplete` / `.failed`) carries the whole response. */
function responsesStream(events: Obj[]): Draft {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const type = str(events[i]!.type) ?? '';
    const response = obj(events[i]!.response);
    if (response !== undefined && /^response\.(completed|incomplete|failed)$/.test(type)) {
      return responseObject(response);
    }
  }
  const created = events.map((event) => obj(event.response)).find((response) => response !== undefined);
  return { model: str(created?.model) };
}
