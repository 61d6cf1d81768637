/**
 * A server for the upstream client's tests, as a fetch: the handler sees each request (method, URL, headers,
 * body) and answers it; event streams are fed by hand, so a test decides when each event arrives and when the
 * stream ends or breaks.
 */

/** A request as the server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A fetch answered by `handle`; `seen` keeps every request in order.
 *
 * @example const server = fakeServer((req) => Response.json({ jsonrpc: '2.0', id: 1, result: {} }));
 */
export function fakeServer(handle: (request: Seen, index: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const entry: Seen = {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text(),
    };
    seen.push(entry);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    return tiedTo(await handle(entry, seen.length - 1), signal);
  };
  return { fetch, seen };
}

/** The response with its body broken off when `signal` aborts, as fetch does with a request it was given. */
function tiedTo(response: Response, signal: AbortSignal | undefined): Response {
  if (signal === undefined || response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener(
        'abort',
        () => {
          controller.error(new DOMException('aborted', 'AbortError'));
          void reader.cancel().catch(() => {});
        },
        { once: true },
      );
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** What {@link eventStream} hands the test: the response to serve and the pen that writes its events. */
export interface EventStream {
  response: Response;
  write(text: string): void;
  event(data: unknown, id?: string): void;
  end(): void;
  fail(why?: string): void;
  cancelled(): boolean;
}

/** An event stream the test writes: `event()` sends one, `end()` closes it, `fail()` breaks it mid-way. */
export function eventStream(headers: Record<string, string> = {}): EventStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      cancelled = true;
    },
  });
  const encoder = new TextEncoder();
  return {
    response: new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', ...headers },
    }),
    /** Writes raw SSE text (fields and the blank line are the caller's). */
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    /** One `message` event carrying `data` (an object is sent as JSON), with an id when given. */
    event(data: unknown, id?: string) {
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      controller.enqueue(encoder.encode(`${id === undefined ? '' : `id: ${id}\n`}data: ${text}\n\n`));
    },
    end: () => controller.close(),
    fail: (why = 'connection reset') => controller.error(new TypeError(why)),
    cancelled: () => cancelled,
  };
}

/** A JSON-RPC result for `id`. */
export const result = (id: number | string, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });
