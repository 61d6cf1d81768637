import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certainDepth } from '../../src/trace/exchange.js';
import { openTrace } from '../../src/trace/io.js';
import {
  classifyMessage,
  formatId,
  idKey,
  isErrorResult,
  messageItems,
  progressToken,
  requestTarget,
  responseOutcome,
} from '../../src/trace/jsonrpc.js';
import { collectExchanges, type Exchange, Pairer, pairTrace } from '../../src/trace/pairing.js';
import type { Json, MessageLine, TraceLine } from '../../src/trace/types.js';

const interop = join(import.meta.dirname, '..', 'fixtures', 'interop');

function fixture(path: string): TraceLine[] {
  return readFileSync(join(interop, path), 'utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => JSON.parse(text) as TraceLine);
}

let clock = Date.parse('2026-01-01T00:00:00.000Z');
function msg(dir: 'in' | 'out', raw: Json, extra: Partial<MessageLine> = {}): MessageLine {
  clock += 10;
  return { t: new Date(clock).toISOString(), dir, raw, ...extra };
}
const req = (id: string | number, method: string, params?: Json): Json =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const res = (id: string | number | null, result: Json = {}): Json => ({ jsonrpc: '2.0', id, result });
const note = (method: string, params?: Json): Json =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

function find(exchanges: Exchange[], dir: 'in' | 'out', id: string | number): Exchange {
  const found = exchanges.find((x) => x.dir === dir && x.id === id);
  if (!found) throw new Error(`no exchange ${dir} ${String(id)}`);
  return found;
}

describe('classifying JSON-RPC messages', () => {
  it('tells requests, notifications, responses, errors and batches apart', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping' })).toMatchObject({
      kind: 'request',
      id: 1,
    });
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind).toBe(
      'notification',
    );
    expect(classifyMessage({ jsonrpc: '2.0', id: 'a', result: {} })).toMatchObject({
      kind: 'response',
      id: 'a',
    });
    const error = classifyMessage({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    expect(error).toMatchObject({
      kind: 'response',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    expect(messageItems([req(1, 'a'), res(2)]).map((item) => item.kind)).toEqual(['request', 'response']);
    expect(classifyMessage('hello').kind).toBe('invalid');
    expect(classifyMessage({ jsonrpc: '2.0', id: {}, method: 'x' }).kind).toBe('invalid');
  });

  it('reads tool names, uris, prompt names, progress tokens and tool errors', () => {
    const [call] = messageItems(req(5, 'tools/call', { name: 'echo', _meta: { progressToken: 'p5' } }));
    expect(requestTarget(call!)).toBe('echo');
    expect(progressToken(call!)).toBe('p5');
    expect(requestTarget(messageItems(req(1, 'resources/read', { uri: 'demo://a' }))[0]!)).toBe('demo://a');
    expect(requestTarget(messageItems(req(1, 'prompts/get', { name: 'simple' }))[0]!)).toBe('simple');
    expect(isErrorResult({ isError: true, content: [] })).toBe(true);
    const [failed] = messageItems(res(1, { isError: true }));
    expect(failed?.kind === 'response' && responseOutcome(failed)).toBe('tool_error');
  });

  it('keeps 1 and "1" apart', () => {
    expect(idKey(1)).not.toBe(idKey('1'));
    expect(formatId('1')).toBe('"1"');
    expect(formatId(1)).toBe('1');
  });
});

describe('pairing the mcp-tape fixture', () => {
  const result = collectExchanges(fixture('mcp-tape/everything-stdio.jsonl'));

  it('answers every request and leaves nothing orphaned', () => {
    expect(result.unanswered).toEqual([]);
    expect(result.orphans).toEqual([]);
    expect(result.exchanges.filter((x) => x.dir === 'in')).toHaveLength(26);
    expect(result.exchanges.filter((x) => x.dir === 'out').map((x) => x.method)).toEqual([
      'roots/list',
      'sampling/createMessage',
      'elicitation/create',
      'elicitation/create',
    ]);
  });

  it('pairs server→client ids 0–3 with the client answers, not with client requests 0–3', () => {
    const initialize = find(result.exchanges, 'in', 0);
    expect(initialize.method).toBe('initialize');
    expect(initialize.latencyMs).toBe(354);
    const roots = find(result.exchanges, 'out', 0);
    expect(roots.method).toBe('roots/list');
    expect(roots.response?.result).toEqual({ roots: [{ uri: 'file:///home/dev/project', name: 'probe' }] });
    expect(roots.latencyMs).toBe(3);
    expect(find(result.exchanges, 'in', 1).method).toBe('tools/list');
    expect(find(result.exchanges, 'out', 1).method).toBe('sampling/createMessage');
    expect(find(result.exchanges, 'out', 1).latencyMs).toBe(9);
  });

  it('puts sampling and elicitation under the tool call that caused them', () => {
    const sampling = find(result.exchanges, 'out', 1);
    expect(sampling.parent?.id).toBe(14);
    expect(sampling.via).toBe('open-request');
    // Nothing on stdio names the call: the tie is right here, but only a guess.
    expect(sampling.guessed).toBe(true);
    expect(sampling.depth).toBe(1);
    const tool = find(result.exchanges, 'in', 14);
    expect(
      tool.children.map((c) => (c.kind === 'exchange' ? c.exchange.method : c.notification.method)),
    ).toEqual(['sampling/createMessage']);
    expect(find(result.exchanges, 'out', 3).parent?.id).toBe(16);
  });

  it('ties progress to its request by progressToken, and a log message to the call it arrived under', () => {
    const long = find(result.exchanges, 'in', 13);
    expect(long.latencyMs).toBe(2005);
    expect(long.children).toHaveLength(4);
    expect(long.children.every((c) => c.kind === 'notification' && c.via === 'progressToken')).toBe(true);
    const logging = find(result.exchanges, 'in', 18);
    expect(logging.children).toMatchObject([{ kind: 'notification', via: 'open-request' }]);
  });

  it('never guesses a session-wide notification into the request it happens to arrive during', () => {
    const lines = [
      msg('in', req(1, 'tools/list')),
      msg('out', note('notifications/tools/list_changed')),
      msg('out', note('notifications/message', { level: 'info', data: 'listing' })),
      msg('out', res(1, { tools: [] })),
    ];
    const pairing = collectExchanges(lines);
    expect(find(pairing.exchanges, 'in', 1).children).toMatchObject([
      { kind: 'notification', notification: { method: 'notifications/message' }, via: 'open-request' },
    ]);
    expect(pairing.topLevel.map((x) => x.notification.method)).toEqual(['notifications/tools/list_changed']);
  });

  it('leaves messages outside any request at the top level (roots/list after init, periodic logs)', () => {
    expect(find(result.exchanges, 'out', 0).parent).toBeUndefined();
    const methods = result.topLevel.map((n) => n.notification.method);
    expect(methods.filter((m) => m === 'notifications/tools/list_changed')).toHaveLength(5);
    expect(methods.filter((m) => m === 'notifications/resources/updated')).toHaveLength(2);
  });
});

describe('pairing 2026-era captures', () => {
  it('pairs string ids and leaves subscriptions/listen open (cancelled, never answered)', () => {
    const result = collectExchanges(fixture('era2026/era2026-stdio.jsonl'));
    const discover = find(result.exchanges, 'in', 'server-discover-probe-1');
    expect(discover.method).toBe('server/discover');
    expect(discover.latencyMs).toBe(252);
    expect(result.unanswered.map((x) => [x.id, x.method, x.cancelled, x.outcome])).toEqual([
      ['listen:0', 'subscriptions/listen', true, 'unanswered'],
    ]);
    const listen = result.unanswered[0]!;
    expect(listen.children.map((c) => c.kind === 'notification' && [c.notification.method, c.via])).toEqual([
      ['notifications/subscriptions/acknowledged', 'subscriptionId'],
      ['notifications/tools/list_changed', 'subscriptionId'],
      ['notifications/cancelled', 'requestId'],
    ]);
    expect(find(result.exchanges, 'in', 6).children).toEqual([]);
    expect(find(result.exchanges, 'in', 5).children).toHaveLength(2);
  });

  it('sees the multi-round-trip rounds as separate exchanges', () => {
    const result = collectExchanges(fixture('era2026/era2026-stdio.jsonl'));
    const rounds = result.exchanges.filter((x) => x.request.params?.name === 'deploy');
    expect(rounds.map((x) => x.outcome)).toEqual(['input_required', 'input_required', 'ok']);
  });

  it('does the same over HTTP', () => {
    const result = collectExchanges(fixture('era2026/era2026-http.jsonl'));
    expect(result.orphans).toEqual([]);
    expect(result.unanswered.map((x) => x.id)).toEqual(['listen:0']);
    expect(result.exchanges).toHaveLength(5);
  });
});

describe('pairing by server, connection and direction', () => {
  it('keeps two connections that both use id 1 apart, even interleaved', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'slow' }), { conn: 'a' }),
      msg('in', req(1, 'tools/call', { name: 'fast' }), { conn: 'b' }),
      msg('out', res(1, { from: 'b' }), { conn: 'b' }),
      msg('out', res(1, { from: 'a' }), { conn: 'a' }),
    ];
    const { exchanges, orphans, unanswered } = collectExchanges(lines);
    expect(orphans).toEqual([]);
    expect(unanswered).toEqual([]);
    expect(exchanges.map((x) => [x.conn, x.request.params?.name, x.response?.result, x.latencyMs])).toEqual([
      ['a', 'slow', { from: 'a' }, 30],
      ['b', 'fast', { from: 'b' }, 10],
    ]);
  });

  it('keeps two servers apart', () => {
    const lines = [
      msg('in', req(0, 'initialize'), { server: 'alpha' }),
      msg('in', req(0, 'initialize'), { server: 'beta' }),
      msg('out', res(0, { who: 'beta' }), { server: 'beta' }),
      msg('out', res(0, { who: 'alpha' }), { server: 'alpha' }),
    ];
    const { exchanges } = collectExchanges(lines);
    expect(exchanges.map((x) => [x.server, x.response?.result])).toEqual([
      ['alpha', { who: 'alpha' }],
      ['beta', { who: 'beta' }],
    ]);
  });

  it('never answers a request with a response travelling the same way', () => {
    const lines = [msg('in', req(7, 'ping')), msg('in', res(7))];
    const { exchanges, orphans, unanswered } = collectExchanges(lines);
    expect(exchanges).toEqual([]);
    expect(orphans).toHaveLength(1);
    expect(unanswered.map((x) => x.id)).toEqual([7]);
  });

  it('treats 1 and "1" as different ids', () => {
    const { orphans, unanswered } = collectExchanges([msg('in', req(1, 'ping')), msg('out', res('1'))]);
    expect(orphans.map((o) => o.response.id)).toEqual(['1']);
    expect(unanswered.map((x) => x.id)).toEqual([1]);
  });

  it('pairs batch items one by one', () => {
    const lines = [
      msg('in', [req(1, 'tools/list'), req(2, 'prompts/list'), note('notifications/initialized')]),
      msg('out', [res(2, { prompts: [] }), res(1, { tools: [] })]),
    ];
    const events = [...pairTrace(lines)];
    expect(events.map((ev) => ev.kind)).toEqual([
      'request',
      'request',
      'notification',
      'response',
      'response',
    ]);
    const { exchanges } = collectExchanges(lines);
    expect(exchanges.map((x) => [x.method, x.requestRef.item, x.responseRef?.item])).toEqual([
      ['tools/list', 0, 1],
      ['prompts/list', 1, 0],
    ]);
  });

  it('reports responses without a request, including id-less errors, as orphans', () => {
    const lines = [
      msg('out', res(99)),
      msg('out', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
    ];
    expect(collectExchanges(lines).orphans.map((o) => o.response.id)).toEqual([99, null]);
  });

  it('marks JSON-RPC errors and isError results', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'a' })),
      msg('out', { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } }),
      msg('in', req(2, 'tools/call', { name: 'b' })),
      msg('out', res(2, { isError: true, content: [{ type: 'text', text: 'boom' }] })),
    ];
    expect(collectExchanges(lines).exchanges.map((x) => x.outcome)).toEqual(['error', 'tool_error']);
  });

  it('answers a reused open id first-in first-out', () => {
    const lines = [
      msg('in', req(1, 'a')),
      msg('in', req(1, 'b')),
      msg('out', res(1, 'first')),
      msg('out', res(1, 'second')),
    ];
    expect(collectExchanges(lines).exchanges.map((x) => [x.method, x.response?.result])).toEqual([
      ['a', 'first'],
      ['b', 'second'],
    ]);
  });

  it('closes the requests of a connection that disconnected as unanswered', () => {
    const pairer = new Pairer();
    pairer.push(msg('in', req(1, 'tools/call', { name: 'x' }), { conn: 'c1' }));
    pairer.push(msg('in', req(1, 'tools/call', { name: 'y' }), { conn: 'c2' }));
    const events = pairer.push({
      t: '2026-01-01T00:01:00.000Z',
      type: 'event',
      name: 'disconnect',
      conn: 'c1',
    });
    expect(events.map((ev) => ev.kind)).toEqual(['line', 'unanswered']);
    expect(pairer.openCount).toBe(1);
  });
});

describe('pairing on HTTP, where every POST is a connection', () => {
  const meta = (transport: 'http' | 'stdio'): TraceLine => ({
    v: 1,
    type: 'meta',
    startedAt: '2026-01-01T00:00:00.000Z',
    label: 'x',
    transport,
  });

  it('pairs a server→client request with the answer the client POSTed separately', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'ask' }), { conn: '1' }),
      msg('out', req(0, 'sampling/createMessage', { messages: [] }), { conn: '1' }),
      msg('in', res(0, { model: 'm' }), { conn: '2' }),
      msg('out', res(1), { conn: '1' }),
    ];
    const http = collectExchanges([meta('http'), ...lines]);
    expect(http.orphans).toEqual([]);
    expect(find(http.exchanges, 'out', 0)).toMatchObject({ method: 'sampling/createMessage', conn: '1' });
    expect(find(http.exchanges, 'out', 0).responseRef?.line.conn).toBe('2');
    // Over stdio a connection is a process: a response on another one answers nothing.
    const stdio = collectExchanges([meta('stdio'), ...lines]);
    expect(stdio.orphans).toHaveLength(1);
  });

  it('refuses to guess when several connections have that id open', () => {
    const lines = [
      meta('http'),
      msg('in', req(1, 'a'), { conn: '1' }),
      msg('in', req(1, 'b'), { conn: '2' }),
      msg('out', res(1), { conn: '3' }),
    ];
    expect(collectExchanges(lines).orphans).toHaveLength(1);
  });

  it('ties a cancellation POSTed on its own to the listen it ends', async () => {
    const trace = await openTrace(join(interop, 'era2026', 'era2026-http-exchanges.json'));
    const lines: TraceLine[] = [trace.meta];
    for await (const entry of trace.lines()) lines.push(entry.line);
    const listen = collectExchanges(lines).unanswered.find((x) => x.method === 'subscriptions/listen');
    expect(listen).toMatchObject({ id: 'listen:0', cancelled: true });
  });
});

describe('attributing server messages', () => {
  it('picks the most recent open client request, skipping long-lived listens', () => {
    const lines = [
      msg('in', req('listen', 'subscriptions/listen')),
      msg('in', req(1, 'tools/call', { name: 'first' })),
      msg('in', req(2, 'tools/call', { name: 'second' })),
      msg('out', note('notifications/message', { level: 'info', data: 'during 2' })),
      msg('out', res(2)),
      msg('out', note('notifications/message', { level: 'info', data: 'during 1' })),
      msg('out', res(1)),
      msg('out', note('notifications/message', { level: 'info', data: 'no call open' })),
    ];
    const parents = [...pairTrace(lines)].flatMap((ev) =>
      ev.kind === 'notification' ? [[ev.parent?.id, ev.via, ev.depth]] : [],
    );
    expect(parents).toEqual([
      [2, 'open-request', 1],
      [1, 'open-request', 1],
      [undefined, undefined, 0],
    ]);
  });

  it('uses the HTTP response stream when requests carry one', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'a' }), { conn: 'c', stream: 's1' }),
      msg('in', req(2, 'tools/call', { name: 'b' }), { conn: 'c', stream: 's2' }),
      msg('out', note('notifications/message', { data: 'for a' }), { conn: 'c', stream: 's1' }),
      msg('out', note('notifications/message', { data: 'standalone' }), { conn: 'c', stream: 'get' }),
    ];
    const parents = [...pairTrace(lines)].flatMap((ev) =>
      ev.kind === 'notification' ? [[ev.parent?.id, ev.via]] : [],
    );
    expect(parents).toEqual([
      [1, 'stream'],
      [undefined, undefined],
    ]);
  });

  it('marks a tie only the open request suggests as a guess, and a tie the wire proves as certain', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'long', _meta: { progressToken: 'p' } })),
      msg('out', note('notifications/progress', { progressToken: 'p', progress: 1 })),
      msg('out', req(0, 'roots/list')),
      msg('in', res(0, { roots: [] })),
      msg('out', note('notifications/message', { level: 'info', data: 'roots changed' })),
      msg('out', res(1)),
    ];
    const events = [...pairTrace(lines)];
    const notes = events.flatMap((ev) =>
      ev.kind === 'notification' ? [[ev.notification.method, ev.via, ev.guessed]] : [],
    );
    expect(notes).toEqual([
      ['notifications/progress', 'progressToken', false],
      ['notifications/message', 'open-request', true],
    ]);
    const { exchanges } = collectExchanges(lines);
    const call = find(exchanges, 'in', 1);
    const roots = find(exchanges, 'out', 0);
    expect(call.guessed).toBe(false);
    expect(roots).toMatchObject({ via: 'open-request', guessed: true, depth: 1 });
    expect(call.children.map((c) => [c.via, c.guessed])).toEqual([
      ['progressToken', false],
      ['open-request', true],
      ['open-request', true],
    ]);
    // Counting only what the wire proves, the guessed roots/list sits beside the call, not under it.
    expect(certainDepth(roots.parent, roots.guessed)).toBe(0);
    const progress = events.find((ev) => ev.kind === 'notification' && ev.via === 'progressToken');
    expect(progress?.kind === 'notification' && certainDepth(progress.parent, progress.guessed)).toBe(1);
  });

  it('counts certain ties only, below a guessed one too', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'ask' })),
      msg('out', req(0, 'sampling/createMessage', { _meta: { progressToken: 't' }, messages: [] })),
      msg('in', note('notifications/progress', { progressToken: 't', progress: 1 })),
    ];
    const progress = [...pairTrace(lines)].find((ev) => ev.kind === 'notification');
    expect(progress).toMatchObject({ via: 'progressToken', guessed: false, depth: 2 });
    if (progress?.kind !== 'notification') throw new Error('no notification');
    // Under the sampling request for certain (depth 1), which is itself only guessed into the call.
    expect(certainDepth(progress.parent, progress.guessed)).toBe(1);
    expect(certainDepth(undefined, false)).toBe(0);
  });

  it('guesses nothing during the handshake: a server message before initialized belongs to no request', () => {
    const lines = [
      msg('in', req(0, 'initialize', { protocolVersion: '2025-11-25' })),
      msg('out', note('notifications/message', { level: 'debug', data: 'starting' })),
      msg('out', res(0)),
      msg('out', note('notifications/message', { level: 'info', data: 'ready' })),
      msg('in', note('notifications/initialized')),
      msg('in', req(1, 'tools/call', { name: 'echo' })),
      msg('out', note('notifications/message', { level: 'info', data: 'echoing' })),
      msg('out', res(1)),
    ];
    const parents = [...pairTrace(lines)].flatMap((ev) =>
      ev.kind === 'notification' && ev.ref.line.dir === 'out' ? [[ev.parent?.id, ev.guessed]] : [],
    );
    expect(parents).toEqual([
      [undefined, false],
      [undefined, false],
      [1, true],
    ]);
  });

  it('ends the handshake at the first other request of a client that never sends initialized', () => {
    const lines = [
      msg('in', req(0, 'initialize')),
      msg('out', res(0)),
      msg('in', req(1, 'ping')),
      msg('out', note('notifications/message', { data: 'still starting' })),
      msg('out', res(1)),
      msg('in', req(2, 'tools/call', { name: 'echo' })),
      msg('out', note('notifications/message', { data: 'echoing' })),
    ];
    const parents = [...pairTrace(lines)].flatMap((ev) =>
      ev.kind === 'notification' ? [[ev.parent?.id, ev.via]] : [],
    );
    expect(parents).toEqual([
      [undefined, undefined],
      [2, 'open-request'],
    ]);
  });

  it('never guesses a message into a ping or a cancelled request', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'slow' })),
      msg('in', req(2, 'ping')),
      msg('out', note('notifications/message', { data: 'while pinging' })),
      msg('out', res(2)),
      msg('in', note('notifications/cancelled', { requestId: 1 })),
      msg('out', note('notifications/message', { data: 'after the cancel' })),
    ];
    const parents = [...pairTrace(lines)].flatMap((ev) =>
      ev.kind === 'notification' && ev.ref.line.dir === 'out' ? [[ev.parent?.id, ev.guessed]] : [],
    );
    expect(parents).toEqual([
      [1, true],
      [undefined, false],
    ]);
  });

  it('ties client progress on a server→client request to that request', () => {
    const lines = [
      msg('in', req(1, 'tools/call', { name: 'ask' })),
      msg('out', req(0, 'sampling/createMessage', { _meta: { progressToken: 't' }, messages: [] })),
      msg('in', note('notifications/progress', { progressToken: 't', progress: 1 })),
    ];
    const last = [...pairTrace(lines)].find((ev) => ev.kind === 'notification');
    expect(last).toMatchObject({ parent: { dir: 'out', id: 0 }, via: 'progressToken', depth: 2 });
  });
});

describe('streaming', () => {
  it('holds memory for open requests only, however long the trace', () => {
    const pairer = new Pairer({ children: 'none' });
    let requests = 0;
    let answered = 0;
    let mostOpen = 0;
    let leftOpen = 0;
    const other: string[] = [];
    // Counted in plain code and asserted once: fifty thousand expect() calls would be most of the test's time.
    for (let i = 0; i < 50_000; i++) {
      for (const ev of pairer.push(
        msg('in', req(i % 7, 'tools/call', { name: 't' }), { conn: String(i % 3) }),
      )) {
        if (ev.kind === 'request') requests++;
        else other.push(ev.kind);
      }
      mostOpen = Math.max(mostOpen, pairer.openCount);
      for (const ev of pairer.push(msg('out', res(i % 7), { conn: String(i % 3) }))) {
        if (ev.kind === 'response') answered++;
        else other.push(ev.kind);
      }
      if (pairer.openCount !== 0) leftOpen++;
    }
    expect({ requests, answered, other, mostOpen, leftOpen }).toEqual({
      requests: 50_000,
      answered: 50_000,
      other: [],
      mostOpen: 1,
      leftOpen: 0,
    });
    expect(pairer.finish()).toEqual([]);
  });
});
