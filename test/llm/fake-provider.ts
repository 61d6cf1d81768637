/**
 * A fake LLM provider speaking the public wire formats: Anthropic Messages and OpenAI Chat Completions and
 * Responses, each as one JSON body or as the documented event stream. What the model "says" comes from `reply`,
 * called with the API and the request body; the official SDKs are the clients.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeReply {
  text?: string;
  toolCalls?: { name: string; input: Record<string, unknown> }[];
}

export type FakeApi = 'anthropic' | 'chat' | 'responses';

export interface FakeProvider {
  url: string;
  /** Every request as received: path, headers, body. */
  requests: { path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

type Sse = string[];
/** Input tokens grow with the conversation: the count of messages (or input items) sent. */
const turns = (body: Record<string, unknown>): number =>
  Array.isArray(body.messages) ? body.messages.length : Array.isArray(body.input) ? body.input.length : 1;
const event = (name: string | undefined, data: unknown): string =>
  `${name === undefined ? '' : `event: ${name}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

function anthropic(body: Record<string, unknown>, reply: FakeReply, n: number): { json: unknown; sse: Sse } {
  const content: Record<string, unknown>[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  (reply.toolCalls ?? []).forEach((call, i) => {
    content.push({ type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: call.input });
  });
  const stop = reply.toolCalls?.length ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 20 + turns(body), output_tokens: 5 + content.length };
  const message = {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
  const sse: Sse = [
    event('message_start', {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    event('ping', { type: 'ping' }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse.push(
        event('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        }),
      );
      const text = String(block.text);
      for (const piece of [text.slice(0, 3), text.slice(3)]) {
        sse.push(
          event('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: piece },
          }),
        );
      }
    } else {
      sse.push(
        event('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { ...block, input: {} },
        }),
      );
      const json = JSON.stringify(block.input);
      for (const piece of [json.slice(0, 5), json.slice(5)]) {
        sse.push(
          event('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          }),
        );
      }
    }
    sse.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  sse.push(
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  sse.push(event('message_stop', { type: 'message_stop' }));
  return { json: message, sse };
}

function chat(body: Record<string, unknown>, reply: FakeReply, n: number): { json: unknown; sse: Sse } {
  const calls = (reply.toolCalls ?? []).map((call, i) => ({
    id: `call_${n}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  const finish = calls.length ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 30 + turns(body), completion_tokens: 7, total_tokens: 37 + turns(body) };
  const head = { id: `chatcmpl-${n}`, created: 1_700_000_000, model: body.model };
  const message = {
    role: 'assistant',
    content: reply.text ?? null,
    refusal: null,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
  const json = {
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage,
  };
  const chunk = (delta: unknown, finish_reason: string | null = null) =>
    event(undefined, {
      ...head,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    });
  const sse: Sse = [chunk({ role: 'assistant', content: '' })];
  if (reply.text)
    for (const piece of [reply.text.slice(0, 4), reply.text.slice(4)]) sse.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    const args = call.function.arguments;
    sse.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of [args.slice(0, 6), args.slice(6)])
      sse.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  sse.push(chunk({}, finish));
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage)
    sse.push(event(undefined, { ...head, object: 'chat.completion.chunk', choices: [], usage }));
  sse.push('data: [DONE]\n\n');
  return { json, sse };
}

function responses(body: Record<string, unknown>, reply: FakeReply, n: number): { json: unknown; sse: Sse } {
  const output: Record<string, unknown>[] = [];
  if (reply.text) {
    output.push({
      type: 'message',
      id: `msg_${n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  (reply.toolCalls ?? []).forEach((call, i) => {
    output.push({
      type: 'function_call',
      id: `fc_${n}_${i}`,
      call_id: `call_${n}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: 'completed',
    });
  });
  const usage = {
    input_tokens: 40 + turns(body),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 9,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 49 + turns(body),
  };
  const response = {
    id: `resp_${n}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: body.model,
    output,
    usage,
    error: null,
    incomplete_details: null,
  };
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>) =>
    event(type, { type, sequence_number: seq++, ...fields });
  const sse: Sse = [
    ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }),
  ];
  output.forEach((item, output_index) => {
    sse.push(
      ev('response.output_item.added', {
        output_index,
        item: { ...item, ...(item.type === 'message' ? { content: [] } : { arguments: '' }) },
      }),
    );
    if (item.type === 'message') {
      const text = reply.text ?? '';
      for (const delta of [text.slice(0, 2), text.slice(2)])
        sse.push(
          ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }),
        );
    } else {
      sse.push(
        ev('response.function_call_arguments.delta', {
          item_id: item.id,
          output_index,
          delta: item.arguments,
        }),
      );
      sse.push(
        ev('response.function_call_arguments.done', {
          item_id: item.id,
          output_index,
          arguments: item.arguments,
        }),
      );
    }
    sse.push(ev('response.output_item.done', { output_index, item }));
  });
  sse.push(ev('response.completed', { response }));
  return { json: response, sse };
}

const RENDER = { anthropic, chat, responses } as const;

function apiOf(path: string): FakeApi | undefined {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/responses')) return 'responses';
  return undefined;
}

/**
 * Starts the fake on 127.0.0.1. `reply` says what the model answers to each request (n counts from 1).
 */
export async function startFakeProvider(
  reply: (api: FakeApi, body: Record<string, unknown>, n: number) => FakeReply,
  options: { eventGapMs?: number } = {},
): Promise<FakeProvider> {
  const requests: FakeProvider['requests'] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      requests.push({ path, headers: req.headers, body });
      const api = apiOf(path);
      if (api === undefined) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ id: 'fake-model' }] }));
        return;
      }
      n += 1;
      const rendered = RENDER[api](body, reply(api, body, n), n);
      if (body.stream !== true) {
        res
          .writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${n}` })
          .end(JSON.stringify(rendered.json));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      let i = 0;
      const next = () => {
        if (i >= rendered.sse.length) return void res.end();
        res.write(rendered.sse[i++]);
        if (options.eventGapMs) setTimeout(next, options.eventGapMs);
        else setImmediate(next);
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
