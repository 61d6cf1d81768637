import { describe, expect, it } from 'vitest';
import { causeOf, httpError, isJsonRpc, parseBody, timedFetch } from '../../src/upstream/fetch.js';
import { UpstreamError } from '../../src/upstream/types.js';

const URL_ = 'http://127.0.0.1:3001/mcp';

/** What a timedFetch rejected with, as kind and message. */
async function failure(
  fetch: typeof globalThis.fetch,
  signal = new AbortController().signal,
  headersMs = 1000,
) {
  const err = await timedFetch({ fetch, url: URL_, init: { method: 'POST' }, signal, headersMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return { kind: (err as UpstreamError).kind, message: (err as Error).message };
}

/** A fetch that never answers, until aborted. */
const silent: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) =>
    init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
  );

describe('timedFetch', () => {
  it('names the URL and the cause of a failure: unreachable, too slow, or closed by us', async () => {
    const refused: typeof fetch = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3001'), { code: 'ECONNREFUSED' }),
      });
    };
    expect(await failure(refused)).toEqual({
      kind: 'unreachable',
      message: `cannot reach the upstream ${URL_}: connect ECONNREFUSED 127.0.0.1:3001`,
    });
    expect(await failure(silent, undefined, 20)).toEqual({
      kind: 'timeout',
      message: `the upstream ${URL_} did not answer within 20 ms`,
    });
    const closing = new AbortController();
    const closed = failure(silent, closing.signal);
    closing.abort();
    expect(await closed).toEqual({ kind: 'closed', message: `the connection to ${URL_} was closed` });
  });

  it('hands the response over as soon as its head arrives', async () => {
    const response = await timedFetch({
      fetch: async () => new Response('{}', { status: 201 }),
      url: URL_,
      init: {},
      signal: new AbortController().signal,
      headersMs: 1000,
    });
    expect(response.status).toBe(201);
  });
});

describe('what a failure and a body say', () => {
  it('causeOf adds the code undici hides in cause when the message lacks it', () => {
    expect(
      causeOf(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('getaddrinfo failed'), { code: 'ENOTFOUND' }),
        }),
      ),
    ).toBe('ENOTFOUND getaddrinfo failed');
    expect(causeOf(new Error('plain'))).toBe('plain');
    expect(causeOf('a string')).toBe('a string');
  });

  it('parseBody takes JSON objects and arrays, re-encodes multi-line ones on one line, and refuses the rest', () => {
    expect(parseBody(' {"a":1} ')).toEqual({ raw: { a: 1 }, text: '{"a":1}' });
    expect(parseBody('{\n  "a": 1\n}')).toEqual({ raw: { a: 1 }, text: '{"a":1}' });
    expect(parseBody('[1,2]')).toEqual({ raw: [1, 2], text: '[1,2]' });
    for (const body of ['', 'not json', '42', 'null', '"text"'])
      expect(parseBody(body), body).toBeUndefined();
  });

  it('httpError quotes the start of the body, on one line, and says when there was none', () => {
    expect(httpError(URL_, 502, 'Bad Gateway', '<html>\n  <b>down</b>\n</html>').message).toBe(
      `the upstream ${URL_} answered 502 Bad Gateway: <html> <b>down</b> </html>`,
    );
    expect(httpError(URL_, 500, '', '').message).toBe(`the upstream ${URL_} answered 500 with an empty body`);
    const long = httpError(URL_, 500, 'Internal Server Error', 'x'.repeat(500));
    expect(long.message.endsWith(`${'x'.repeat(200)}…`)).toBe(true);
    expect(long).toMatchObject({ kind: 'http', status: 500 });
  });

  it('isJsonRpc: a message or a batch of them, nothing else', () => {
    expect(isJsonRpc({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'x' } })).toBe(true);
    expect(isJsonRpc([{ jsonrpc: '2.0', id: 1, result: {} }])).toBe(true);
    expect(isJsonRpc([])).toBe(false);
    expect(isJsonRpc({ error: 'x' })).toBe(false);
    expect(isJsonRpc([{ jsonrpc: '2.0' }, 'x'])).toBe(false);
  });
});
