/**
 * A scripted exchange as Streamable HTTP carries it: every client message is a POST; a request's answer is an
 * event stream that carries the server's messages until the request's response; a notification or an answer to
 * the server is accepted with 202. Used to feed the HTTP capture points the same exchange the others get.
 */
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import type { Step } from './contract.js';

export type HttpStep =
  /** A client message POSTed; `stream` is its answer stream (undefined: answered 202). */
  | { kind: 'post'; message: JsonObject; stream: number | undefined }
  /** A server message on an answer stream; `last` closes the stream (the response to its request). */
  | { kind: 'event'; message: JsonObject; stream: number; last: boolean; index: number };

const isRequest = (message: JsonObject) => typeof message.method === 'string' && 'id' in message;
const isResponse = (message: JsonObject) => 'result' in message || 'error' in message;

/**
 * Which stream each message of `exchange` travels on.
 *
 * @example httpPlan([['in', initialize], ['out', result]]) // → a POST on stream 1, then its event, last
 */
export function httpPlan(exchange: readonly Step[]): HttpStep[] {
  const streamOf = new Map<unknown, number>();
  const open: number[] = [];
  let streams = 0;
  return exchange.map(([dir, message], index): HttpStep => {
    if (dir === 'in') {
      if (!isRequest(message)) return { kind: 'post', message, stream: undefined };
      streams += 1;
      streamOf.set(message.id, streams);
      open.push(streams);
      return { kind: 'post', message, stream: streams };
    }
    const answered = isResponse(message) ? streamOf.get(message.id) : undefined;
    const stream = answered ?? open.at(-1);
    if (stream === undefined) throw new Error(`no open stream for server message ${JSON.stringify(message)}`);
    if (answered !== undefined) open.splice(open.indexOf(answered), 1);
    return { kind: 'event', message, stream, last: answered !== undefined, index };
  });
}

/** Counts something that happens, and lets a test wait until it has happened n times. */
function tally() {
  let count = 0;
  let waiters: { n: number; resolve: () => void }[] = [];
  return {
    bump() {
      count += 1;
      const due = waiters.filter((w) => w.n <= count);
      waiters = waiters.filter((w) => w.n > count);
      for (const waiter of due) waiter.resolve();
    },
    reach(n: number): Promise<void> {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/**
 * A Streamable HTTP server that plays `exchange` through a fetch: the client POSTs the `in` messages (checked in
 * order), the test plays each `out` message onto its stream with `play()`, which resolves once the client has
 * handed it on (`delivered()`, from the client's onMessage). GET (the standalone stream) is 405, DELETE 200.
 */
export function scriptedStreamableServer(exchange: readonly Step[]) {
  const plan = httpPlan(exchange);
  const posts = plan.filter((step) => step.kind === 'post');
  const events = plan.filter((step) => step.kind === 'event');
  const streams = new Map<number, ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const postsSeen = tally();
  const deliveries = tally();
  let postIndex = 0;
  let played = 0;
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const method = init?.method ?? 'GET';
    if (method === 'GET') return new Response(null, { status: 405 });
    if (method === 'DELETE') return new Response(null, { status: 200 });
    const body = JSON.parse(String(init?.body)) as JsonObject;
    const expected = posts[postIndex];
    postIndex += 1;
    if (expected === undefined || JSON.stringify(body) !== JSON.stringify(expected.message))
      return new Response(`unexpected POST ${JSON.stringify(body)}`, { status: 500 });
    postsSeen.bump();
    const session = { 'mcp-session-id': 's-1' };
    if (expected.stream === undefined) return new Response(null, { status: 202, headers: session });
    const stream = expected.stream;
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          streams.set(stream, controller);
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream', ...session } },
    );
  };
  return {
    fetch,
    /** Resolves once the server has received `n` POSTs. */
    received: (n: number) => postsSeen.reach(n),
    /** Sends the next server message on its stream and resolves once the client handed it on. */
    async play(): Promise<void> {
      const step = events[played];
      if (step === undefined || step.kind !== 'event') throw new Error('no server message left to play');
      played += 1;
      const controller = streams.get(step.stream);
      if (controller === undefined) throw new Error(`stream ${step.stream} is not open`);
      controller.enqueue(encoder.encode(`id: e${step.index}\ndata: ${JSON.stringify(step.message)}\n\n`));
      if (step.last) controller.close();
      await deliveries.reach(played);
    },
    delivered: () => deliveries.bump(),
  };
}
