import { describe, expect, it } from 'vitest';
import { ANSWER_TIMEOUT_MS } from '../../../src/base/timeouts.js';
import { buildCassette } from '../../../src/replay/cassette/cassette.js';
import { linkedChannels } from '../../../src/replay/engine/channel.js';
import { REPLAY_ERROR_CODES } from '../../../src/replay/engine/codes.js';
import { ReplayEngine } from '../../../src/replay/engine/engine.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import { flush, ManualClock } from '../../helpers/clock.js';
import { call, fakeClient, fixtureCassette, note, req, res, settle, traceLines } from '../helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';
const ERA2026 = 'era2026/era2026-stdio.jsonl';

const longRunning = (meta?: JsonObject) =>
  call('trigger-long-running-operation', { duration: 2, steps: 4 }, meta ? { _meta: meta } : {});

describe('replaying a request', () => {
  it('answers with the recorded result under the live request id', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const client = fakeClient(cassette);
    const response = await client.request('init-1', 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'a-different-client', version: '3.0.0' },
    });
    expect(response.id).toBe('init-1');
    // Recorded with 2025-11-25: the client's older version is answered, as the server negotiates.
    const recorded = cassette.exchanges[0]!.response!.result as JsonObject;
    expect(recorded.protocolVersion).toBe('2025-11-25');
    expect(response.result).toEqual({ ...recorded, protocolVersion: '2025-06-18' });
  });

  it('rewrites progress to the live request’s token, in order, before the response', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING));
    const response = await client.request(100, 'tools/call', longRunning({ progressToken: 'tok-1' }));
    expect(response.id).toBe(100);
    const progress = client.received.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => (m.params as JsonObject).progressToken)).toEqual(Array(4).fill('tok-1'));
    expect(progress.map((m) => (m.params as JsonObject).progress)).toEqual([1, 2, 3, 4]);
    expect(client.received.indexOf(response)).toBe(4);
  });

  it('drops progress when the live request asked for none', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING));
    await client.request(7, 'tools/call', longRunning());
    expect(client.methods()).toEqual([]);
  });

  it('answers a miss with a tapedeck error naming the closest recording and the diff', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING));
    const response = await client.request(3, 'tools/call', call('get-sum', { a: 1, b: 5 }));
    expect(response.error).toEqual({
      code: REPLAY_ERROR_CODES.miss,
      message:
        'no recorded answer for tools/call get-sum {"a":1,"b":5}; closest: tools/call get-sum {"a":1,"b":2} (differs at $.params.arguments.b: recorded 2, live 5)',
      data: {
        tapedeck: {
          kind: 'unknown',
          request: 'tools/call get-sum {"a":1,"b":5}',
          closest: { ordinal: 6, line: 23 },
          diff: [{ path: '$.params.arguments.b', recorded: 2, live: 5 }],
        },
      },
    });
    expect(client.events.filter((e) => e.kind === 'miss')).toHaveLength(1);
  });

  it('answers each request of a batch', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING));
    client.send([req('x', 'tools/list'), req('y', 'prompts/list')]);
    await client.engine.idle();
    await settle();
    expect(client.received.map((m) => m.id)).toEqual(['x', 'y']);
  });

  it('reports what was used', async () => {
    const client = fakeClient(await fixtureCassette('mcporter/everything-get-sum.ndjson'));
    await client.request(1, 'tools/list');
    expect(client.engine.report().summary).toMatch(/^used 1 of 3 recorded exchanges; unused: #0 initialize/);
  });
});

describe('replaying a whole recorded session', () => {
  /** Sends a cassette's client side in recorded order, answering server requests as recorded. */
  async function replayClientSide(name: string) {
    const cassette = await fixtureCassette(name);
    // The client's recorded answers to the server's requests, in the order the server asked.
    const asks = [...cassette.exchanges.flatMap((x) => x.script), ...cassette.unsolicited]
      .filter((m) => m.kind === 'request')
      .sort((a, b) => a.order - b.order)
      .map((m) => m.answer!.result as JsonObject);
    const client = fakeClient(cassette, { match: 'ordered' }, () => asks.shift());
    const clientSide = [
      ...cassette.exchanges.map((x) => ({ order: x.order, exchange: x, note: undefined })),
      ...cassette.notifications.map((n) => ({ order: n.order, exchange: undefined, note: n })),
    ].sort((a, b) => a.order - b.order);
    for (const { exchange, note: recorded } of clientSide) {
      if (recorded || !exchange?.response) {
        // Notifications, and requests never answered (subscriptions/listen), are sent without waiting.
        client.send(recorded ? recorded.message : exchange!.message);
        await settle(5);
        continue;
      }
      const response = await client.request(
        `live-${exchange.ordinal}`,
        exchange.method,
        exchange.request.params,
      );
      expect(response.result).toEqual(exchange.response.result);
    }
    await client.engine.idle();
    return { cassette, client, report: client.engine.report() };
  }

  it.each([
    EVERYTHING,
    ERA2026,
    'era2026/era2026-http.jsonl',
    'mcporter/everything-get-sum.ndjson',
    'mcporter/everything-long-running.ndjson',
  ])('answers every client message of %s, in ordered mode, exactly as recorded', async (name) => {
    const { cassette, report } = await replayClientSide(name);
    const n = cassette.exchanges.length;
    expect(report.summary).toBe(`used ${n} of ${n} recorded exchanges`);
    expect(report.misses).toEqual([]);
    expect(report.timeouts).toEqual([]);
    expect(report.answers.filter((a) => a.differs)).toEqual([]);
  });

  it('plays the server requests and progress of the server-everything session', async () => {
    const { client, report } = await replayClientSide(EVERYTHING);
    expect(report.answers.map((a) => a.method)).toEqual([
      'roots/list',
      'sampling/createMessage',
      'elicitation/create',
      'elicitation/create',
    ]);
    expect(client.methods().filter((m) => m === 'notifications/progress')).toHaveLength(4);
  });
});

describe('server→client requests inside a script', () => {
  const sampling = call('trigger-sampling-request', { prompt: 'hi', maxTokens: 20 });

  it('sends sampling with a fresh id, waits for the client’s answer, then responds', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const recorded = cassette.exchanges.find((x) => x.request.params?.name === 'trigger-sampling-request')!;
    const asked: JsonObject[] = [];
    const client = fakeClient(cassette, {}, (request) => {
      asked.push(request);
      return (recorded.script[0]!.answer as JsonObject).result;
    });
    const response = await client.request(1, 'tools/call', sampling);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ method: 'sampling/createMessage', id: 0 });
    expect(asked[0]!.params).toEqual(recorded.script[0]!.message.params);
    expect(response.result).toEqual(recorded.response!.result);
    expect(client.engine.report().answers).toEqual([
      {
        method: 'sampling/createMessage',
        exchange: recorded.ordinal,
        differs: false,
        diff: { entries: [], total: 0 },
      },
    ]);
  });

  it('reports when the client’s answer differs from the recorded one, and still plays the recording', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, () => ({
      model: 'fake-model',
      stopReason: 'endTurn',
      role: 'assistant',
      content: { type: 'text', text: 'a new reply' },
    }));
    const response = await client.request(1, 'tools/call', sampling);
    expect(response.result).toBeDefined();
    const [check] = client.engine.report().answers;
    expect(check?.differs).toBe(true);
    expect(check?.diff?.entries).toEqual([
      { path: '$.result.content.text', recorded: 'canned sampling reply', live: 'a new reply' },
    ]);
  });

  it('gives up after exactly answerTimeoutMs with an error that says what was waited for', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await fixtureCassette(EVERYTHING), { answerTimeoutMs: 50, scheduler: clock });
    const answered = client.request(9, 'tools/call', sampling);
    await flush();
    expect(client.methods()).toEqual(['sampling/createMessage']);
    expect(clock.pending()).toEqual([{ ms: 50, dueIn: 50, unref: false }]);
    await clock.advance(49);
    expect(client.received).toHaveLength(1);
    await clock.advance(1);
    const response = await answered;
    expect(response.error).toEqual({
      code: REPLAY_ERROR_CODES.answerTimeout,
      message:
        'the client did not answer sampling/createMessage (id 0) within 50 ms; the recorded tools/call trigger-sampling-request {"maxTokens":20,"prompt":"hi"} needs it (raise answerTimeoutMs, or check the client handles sampling/createMessage)',
    });
    expect(client.engine.report().timeouts).toHaveLength(1);
    await client.engine.idle();
    expect(clock.pending()).toEqual([]);
  });

  it('counts a request the client left unanswered when the session ends while its call waits on it', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await fixtureCassette(EVERYTHING), { scheduler: clock });
    client.send(req(9, 'tools/call', sampling));
    await flush();
    expect(client.methods()).toEqual(['sampling/createMessage']);
    expect(clock.pending()).toEqual([{ ms: ANSWER_TIMEOUT_MS, dueIn: ANSWER_TIMEOUT_MS, unref: false }]);
    client.engine.close();
    expect(client.engine.report().timeouts).toEqual([
      'the client did not answer sampling/createMessage (id 0) before the session ended; the recorded tools/call trigger-sampling-request {"maxTokens":20,"prompt":"hi"} needs it (check the client handles sampling/createMessage)',
    ]);
    expect(client.events.filter((e) => e.kind === 'timeout')).toHaveLength(1);
    expect(clock.pending()).toEqual([]);
  });

  it('does not count a server→client request sent after the response the session then ended on', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'tools/call', call('a'))],
        ['out', res(1, { content: [] })],
        ['out', req(50, 'roots/list')],
        ['in', res(50, { roots: [] })],
      ]),
    );
    const client = fakeClient(cassette);
    expect((await client.request('x', 'tools/call', call('a'))).result).toEqual({ content: [] });
    await settle(20);
    expect(client.methods()).toEqual(['roots/list']);
    client.engine.close();
    expect(client.engine.report().timeouts).toEqual([]);
  });

  it('gives each server→client request its own id, so two calls waiting at once get the right answers', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, (request) =>
      request.method === 'elicitation/create' ? { action: 'accept' } : undefined,
    );
    const [a, b] = await Promise.all([
      client.request(1, 'tools/call', call('trigger-elicitation-request')),
      client.request(
        2,
        'tools/call',
        call('trigger-url-elicitation', { url: 'https://example.com/auth', message: 'please' }),
      ),
    ]);
    expect([a.id, b.id]).toEqual([1, 2]);
    const asked = client.received.filter((m) => m.method === 'elicitation/create').map((m) => m.id);
    expect(asked).toEqual([0, 1]);
  });
});

describe('exchanges the recording never saw answered', () => {
  it('answers at once with an error naming the request, instead of leaving the client waiting', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'tools/call', call('echo', { message: 'hi' }))],
        ['in', req(2, 'ping')],
        ['out', res(2, {})],
      ]),
    );
    const client = fakeClient(cassette);
    const response = await client.request(7, 'tools/call', call('echo', { message: 'hi' }));
    expect(response.error).toEqual({
      code: REPLAY_ERROR_CODES.noResponse,
      message:
        'the recording holds no response to tools/call echo {"message":"hi"}: it ended, or the response\'s line could not be read, before the server answered',
    });
    expect(client.events.filter((e) => e.kind === 'no-response')).toHaveLength(1);
  });

  it('keeps a request the recorded client cancelled open, for the live client to cancel too', async () => {
    const cassette = await buildCassette(
      traceLines([
        ['in', req(1, 'tools/call', call('slow'))],
        ['in', note('notifications/cancelled', { requestId: 1 })],
      ]),
    );
    const client = fakeClient(cassette);
    client.send(req(4, 'tools/call', call('slow')));
    await settle(20);
    expect(client.received).toEqual([]);
    client.engine.close();
  });
});

describe('unsolicited server messages', () => {
  it('follow the client message they followed in the recording, server requests included', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, (request) =>
      request.method === 'roots/list' ? { roots: [{ uri: 'file:///elsewhere', name: 'live' }] } : undefined,
    );
    client.notify('notifications/initialized');
    await settle(20);
    await client.engine.idle();
    expect(client.methods()).toEqual([
      ...Array(5).fill('notifications/tools/list_changed'),
      'roots/list',
      'notifications/message',
    ]);
    const [check] = client.engine.report().answers;
    expect(check).toMatchObject({ method: 'roots/list', exchange: undefined, differs: true });
  });

  it('are sent once, even when their anchor request is served again', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), { repeat: 'last' });
    await client.request(1, 'logging/setLevel', { level: 'debug' });
    await client.engine.idle();
    const once = client.methods().length;
    expect(once).toBe(4);
    await client.request(2, 'logging/setLevel', { level: 'debug' });
    await client.engine.idle();
    expect(client.methods()).toHaveLength(once);
  });
});

describe('timing', () => {
  const slow = () =>
    buildCassette(
      traceLines([
        ['in', req(1, 'tools/call', call('slow', {}, { _meta: { progressToken: 1 } })), 0],
        ['out', note('notifications/progress', { progressToken: 1, progress: 1 }), 500],
        ['out', res(1, { content: [] }), 1000],
      ]),
    );
  const slowCall = () => call('slow', {}, { _meta: { progressToken: 'p' } });

  it('plays as fast as it can by default: no recorded gap, only a 2 ms turn between progress and response', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await slow(), { scheduler: clock });
    const response = client.request(1, 'tools/call', slowCall());
    await flush();
    expect(client.methods()).toEqual(['notifications/progress']);
    expect(clock.pending()).toEqual([{ ms: 2, dueIn: 2, unref: false }]);
    await clock.advance(2);
    expect((await response).result).toEqual({ content: [] });
    expect(client.received).toHaveLength(2);
  });

  it('keeps the recorded gaps divided by a speed factor, to the millisecond', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await slow(), { timing: 10, scheduler: clock });
    const response = client.request(1, 'tools/call', slowCall());
    await flush();
    expect(client.received).toEqual([]);
    expect(clock.pending()).toEqual([{ ms: 50, dueIn: 50, unref: false }]);
    await clock.advance(49);
    expect(client.received).toEqual([]);
    await clock.advance(1);
    expect(client.methods()).toEqual(['notifications/progress']);
    await clock.advance(49);
    expect(client.received).toHaveLength(1);
    await clock.advance(1);
    expect((await response).id).toBe(1);
    expect(clock.elapsed).toBe(100);
  });

  it('cuts a recorded gap longer than maxDelayMs to it', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await slow(), { timing: 'recorded', maxDelayMs: 300, scheduler: clock });
    const response = client.request(1, 'tools/call', slowCall());
    await flush();
    expect(clock.pending()).toEqual([{ ms: 300, dueIn: 300, unref: false }]);
    await clock.advance(300);
    expect(client.methods()).toEqual(['notifications/progress']);
    await clock.advance(300);
    expect((await response).id).toBe(1);
  });

  it('stops a script the client cancels, without answering it', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await slow(), { timing: 'recorded', scheduler: clock });
    client.send(req(1, 'tools/call', slowCall()));
    await flush();
    expect(clock.pending()).toEqual([{ ms: 500, dueIn: 500, unref: false }]);
    await clock.advance(100);
    client.notify('notifications/cancelled', { requestId: 1, reason: 'user' });
    await client.engine.idle();
    expect(clock.pending()).toEqual([]);
    await clock.advance(2000);
    expect(client.received).toEqual([]);
  });

  it('stops everything on close', async () => {
    const clock = new ManualClock();
    const client = fakeClient(await slow(), { timing: 'recorded', scheduler: clock });
    client.send(req(1, 'tools/call', slowCall()));
    await flush();
    await clock.advance(100);
    client.engine.close();
    await client.engine.idle();
    expect(clock.pending()).toEqual([]);
    await clock.advance(2000);
    expect(client.received).toEqual([]);
  });
});

describe('the 2026-07-28 era', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

  it('answers a bare server/discover', async () => {
    const client = fakeClient(await fixtureCassette(ERA2026));
    const response = await client.request('probe', 'server/discover');
    expect(response.result).toMatchObject({ supportedVersions: ['2026-07-28'] });
  });

  it('rewrites the progress token the SDK derives from the request id', async () => {
    const client = fakeClient(await fixtureCassette(ERA2026));
    await client.request('r-5', 'tools/call', call('slow', {}, { _meta: { ...meta, progressToken: 'r-5' } }));
    const tokens = client.received.filter((m) => m.method === 'notifications/progress');
    expect(tokens.map((m) => (m.params as JsonObject).progressToken)).toEqual(['r-5', 'r-5']);
  });

  it('carries the live listen id as subscriptionId, and stops once the subscription is cancelled', async () => {
    const client = fakeClient(await fixtureCassette(ERA2026));
    const listen = { _meta: meta, notifications: { toolsListChanged: true, promptsListChanged: true } };
    client.send(req('sub-9', 'subscriptions/listen', listen));
    await client.request(6, 'tools/call', call('add_tool', {}, { _meta: meta }));
    const subscriptionIds = client.received
      .filter((m) => typeof m.method === 'string')
      .map((m) => [
        m.method,
        ((m.params as JsonObject)._meta as JsonObject)['io.modelcontextprotocol/subscriptionId'],
      ]);
    expect(subscriptionIds).toEqual([
      ['notifications/subscriptions/acknowledged', 'sub-9'],
      ['notifications/tools/list_changed', 'sub-9'],
    ]);
    // listen is never answered.
    expect(client.received.filter((m) => m.id === 'sub-9')).toEqual([]);
  });

  it('sends no subscription notifications to a client that did not subscribe', async () => {
    const client = fakeClient(await fixtureCassette(ERA2026), {});
    await client.request(6, 'tools/call', call('add_tool', {}, { _meta: meta }));
    expect(client.methods()).toEqual([]);
  });

  it('plays the MRTR rounds in turn', async () => {
    const client = fakeClient(await fixtureCassette(ERA2026));
    const deploy = (extra: JsonObject) => call('deploy', { env: 'prod' }, { ...extra, _meta: meta });
    const first = await client.request(2, 'tools/call', deploy({}));
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const second = await client.request(
      3,
      'tools/call',
      deploy({ inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }),
    );
    const state = (second.result as JsonObject).requestState as string;
    const third = await client.request(
      4,
      'tools/call',
      deploy({
        inputResponses: { region: { action: 'accept', content: { region: 'eu-west-1' } } },
        requestState: state,
      }),
    );
    expect(third.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'Deployed to prod in eu-west-1 (era modern)' }],
    });
  });
});

describe('a client that reads several messages at once', () => {
  it('gets a script’s progress before its response, in reads of their own, when gaps are not replayed', async () => {
    // The SDK client handles a notification a task later than a response that came in the same read, and drops
    // progress for a request already answered: messages delivered together are what a slow reader sees.
    const [server, channel] = linkedChannels();
    const engine = new ReplayEngine(await fixtureCassette(EVERYTHING), server, { timing: 'none' });
    const batches: JsonObject[][] = [];
    const pending: JsonObject[] = [];
    channel.onMessage((message) => {
      if (pending.length === 0) setImmediate(() => batches.push(pending.splice(0)));
      pending.push(message as JsonObject);
    });
    channel.send(req(3, 'tools/call', longRunning({ progressToken: 'p' })));
    await settle(50);
    const response = batches.findIndex((batch) => batch.some((m) => m.id === 3));
    const progress = batches.findIndex((batch) => batch.some((m) => m.method === 'notifications/progress'));
    expect(progress).toBeGreaterThanOrEqual(0);
    expect(response).toBeGreaterThan(progress);
    expect(batches[response]!.some((m) => m.method === 'notifications/progress')).toBe(false);
    engine.close();
  });
});
