import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCassette } from '../../../src/replay/cassette/cassette.js';
import { loadCassette } from '../../../src/replay/cassette/load.js';
import { memoryTraceFiles } from '../../../src/trace/import/files.js';
import { openTraceWith } from '../../../src/trace/import/open.js';
import { call, fixtureCassette, INTEROP, note, req, res, traceLines } from '../helpers.js';

describe('a cassette built from the mcp-tape session with server-everything', () => {
  it('has one exchange per client request, in recorded order, each with its response', async () => {
    const cassette = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    expect(cassette.server).toBeUndefined();
    expect(cassette.exchanges).toHaveLength(26);
    expect(cassette.exchanges.slice(0, 5).map((x) => x.method)).toEqual([
      'initialize',
      'tools/list',
      'resources/list',
      'resources/templates/list',
      'prompts/list',
    ]);
    expect(cassette.exchanges.every((x) => x.response !== undefined)).toBe(true);
    expect(cassette.warnings).toEqual([]);
  });

  it('puts progress into the script of the call that asked for it, with recorded offsets', async () => {
    const cassette = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    const long = cassette.exchanges.find((x) => x.request.params?.name === 'trigger-long-running-operation')!;
    expect(long.script.map((s) => s.method)).toEqual(Array(4).fill('notifications/progress'));
    expect(long.script.map((s) => s.atMs)).toEqual([503, 1004, 1504, 2005]);
    expect(long.respondedAtMs).toBe(2005);
  });

  it('keeps sampling and elicitation requests in their call’s script with the client’s recorded answers', async () => {
    const cassette = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    const sampling = cassette.exchanges.find((x) => x.request.params?.name === 'trigger-sampling-request')!;
    expect(sampling.script).toHaveLength(1);
    expect(sampling.script[0]).toMatchObject({ kind: 'request', method: 'sampling/createMessage' });
    // The server's request id 1 collides with the client's id 1 (tools/list): pairing keeps them apart.
    expect(sampling.script[0]!.message.id).toBe(1);
    expect(sampling.script[0]!.answer).toMatchObject({ id: 1, result: { model: 'fake-model' } });
    const elicit = cassette.exchanges.find((x) => x.request.params?.name === 'trigger-elicitation-request')!;
    expect(elicit.script[0]!.answer).toMatchObject({ result: { action: 'accept' } });
  });

  it('keeps server messages that belong to no request as unsolicited, anchored to the client message before them', async () => {
    const cassette = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    expect(cassette.notifications.map((n) => n.method)).toEqual(['notifications/initialized']);
    const afterInit = cassette.unsolicited.filter((u) => u.anchor.kind === 'notification');
    expect(afterInit.map((u) => u.method)).toEqual([
      ...Array(5).fill('notifications/tools/list_changed'),
      'roots/list',
    ]);
    const roots = afterInit[5]!;
    expect(roots.atMs).toBe(358);
    expect(roots.answer).toMatchObject({ result: { roots: [{ name: 'probe' }] } });
    // The log line the server wrote after the client's roots answer follows that answer.
    const afterRoots = cassette.unsolicited.filter((u) => u.anchor.kind === 'answer');
    expect(afterRoots.map((u) => [u.method, u.anchor, u.atMs])).toEqual([
      ['notifications/message', { kind: 'answer', unsolicited: roots.index }, 3],
    ]);
    const ticks = cassette.unsolicited.filter((u) => u.anchor.kind === 'request');
    expect(ticks.map((u) => u.atMs)).toEqual([4997, 4998, 10002, 10002]);
  });
});

describe('a cassette from an mcporter recording', () => {
  const getSum = readFileSync(`${INTEROP}mcporter/everything-get-sum.ndjson`, 'utf8');
  const longRunning = readFileSync(`${INTEROP}mcporter/everything-long-running.ndjson`, 'utf8');
  const twoServers = getSum + longRunning.replaceAll('"server":"everything"', '"server":"other"');

  async function open(text: string) {
    return openTraceWith(memoryTraceFiles({ 'rec.ndjson': text }), 'rec.ndjson');
  }

  it('takes its server from the recording', async () => {
    const trace = await open(getSum);
    const cassette = await buildCassette(trace.lines(), { meta: trace.meta });
    expect(cassette.server).toBe('everything');
    expect(cassette.exchanges.map((x) => x.method)).toEqual(['initialize', 'tools/list', 'tools/call']);
  });

  it('replays one server of a multi-server file when told which', async () => {
    const trace = await open(twoServers);
    const cassette = await buildCassette(trace.lines(), { meta: trace.meta, server: 'other' });
    expect(cassette.servers).toEqual(['everything', 'other']);
    expect(cassette.server).toBe('other');
    expect(cassette.exchanges.map((x) => x.request.params?.name ?? x.method)).toEqual([
      'initialize',
      'tools/list',
      'trigger-long-running-operation',
    ]);
  });

  it('refuses to guess between several servers, and names them', async () => {
    const trace = await open(twoServers);
    await expect(buildCassette(trace.lines(), { meta: trace.meta })).rejects.toThrow(
      'the cassette holds 2 servers ("everything", "other"): choose one with the server option (--server)',
    );
  });

  it('names the servers present when asked for one it does not hold', async () => {
    const trace = await open(twoServers);
    await expect(buildCassette(trace.lines(), { meta: trace.meta, server: 'nope' })).rejects.toMatchObject({
      code: 'usage',
      message:
        'no server "nope" in the cassette; it holds "everything", "other": choose one with the server option (--server)',
    });
  });

  it('says so when a server is asked of a trace that names none', async () => {
    const lines = traceLines([
      ['in', req(1, 'ping')],
      ['out', res(1, {})],
    ]);
    await expect(buildCassette(lines, { server: 'x' })).rejects.toThrow('it names no servers');
  });
});

describe('a cassette of the 2026-07-28 era', () => {
  it('holds server/discover as an ordinary exchange', async () => {
    const cassette = await fixtureCassette('era2026/era2026-stdio.jsonl');
    expect(cassette.exchanges[0]).toMatchObject({ method: 'server/discover', outcome: 'ok' });
  });

  it('links multi-round-trip retries into one chain of rounds', async () => {
    const cassette = await fixtureCassette('era2026/era2026-stdio.jsonl');
    const deploy = cassette.exchanges.filter((x) => x.request.params?.name === 'deploy');
    expect(deploy.map((x) => [x.outcome, x.mrtr])).toEqual([
      ['input_required', { chain: 3, round: 0, previous: undefined }],
      ['input_required', { chain: 3, round: 1, previous: 3 }],
      ['ok', { chain: 3, round: 2, previous: 4 }],
    ]);
  });

  it('keeps subscriptions/listen unanswered and its notifications unsolicited, tagged with the subscription', async () => {
    const cassette = await fixtureCassette('era2026/era2026-stdio.jsonl');
    const listen = cassette.exchanges.find((x) => x.method === 'subscriptions/listen')!;
    expect(listen.response).toBeUndefined();
    expect(listen.outcome).toBe('unanswered');
    expect(listen.cancelled).toBe(true);
    const addTool = cassette.exchanges.find((x) => x.request.params?.name === 'add_tool')!;
    expect(cassette.unsolicited.map((u) => [u.method, u.anchor, u.subscription])).toEqual([
      [
        'notifications/subscriptions/acknowledged',
        { kind: 'request', exchange: listen.ordinal },
        listen.ordinal,
      ],
      // list_changed follows the call that changed the list, not the listen request.
      ['notifications/tools/list_changed', { kind: 'request', exchange: addTool.ordinal }, listen.ordinal],
    ]);
    expect(cassette.notifications.map((n) => n.method)).toEqual(['notifications/cancelled']);
  });

  it('pairs the HTTP capture the same way', async () => {
    const cassette = await fixtureCassette('era2026/era2026-http.jsonl');
    const confirm = cassette.exchanges.filter((x) => x.request.params?.name === 'confirm');
    expect(confirm.map((x) => x.mrtr?.round)).toEqual([0, 1]);
  });
});

describe('building from plain trace lines', () => {
  it('accepts TraceLine arrays, keeps batch items apart and reports orphans', async () => {
    const lines = traceLines([
      ['in', [req(1, 'tools/call', call('a')), req(2, 'tools/call', call('b'))]],
      ['out', [res(2, { content: [] }), res(1, { content: [] })]],
      ['out', res(9, {})],
      ['in', note('notifications/initialized')],
    ]);
    const cassette = await buildCassette(lines);
    expect(cassette.exchanges.map((x) => [x.request.params?.name, x.response?.id])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(cassette.warnings).toEqual(['response to unknown id 9 left out']);
  });
});

describe('a cassette of several HTTP sessions', () => {
  it('anchors a session’s unsolicited message to that session’s last client message, not another’s', async () => {
    const T = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const line = (seq: number, ms: number, dir: 'in' | 'out', conn: string, raw: object) => ({
      t: T(ms),
      seq,
      dir,
      conn,
      raw,
    });
    const lines = [
      { v: 1, type: 'meta', startedAt: T(0), label: 'two sessions', transport: 'http' },
      line(1, 0, 'in', 'A', req(0, 'initialize', { protocolVersion: '2025-06-18' })),
      line(2, 5, 'out', 'A', res(0, { protocolVersion: '2025-06-18' })),
      line(3, 10, 'in', 'A', note('notifications/initialized')),
      line(4, 20, 'in', 'B', req(0, 'initialize', { protocolVersion: '2025-06-18' })),
      line(5, 25, 'out', 'B', res(0, { protocolVersion: '2025-06-18' })),
      // On A's standalone stream, after B's initialize: it follows A's initialized notification.
      line(6, 40, 'out', 'A', note('notifications/tools/list_changed')),
    ];
    const cassette = await buildCassette(lines as never);
    expect(cassette.unsolicited).toHaveLength(1);
    expect(cassette.unsolicited[0]).toMatchObject({
      method: 'notifications/tools/list_changed',
      anchor: { kind: 'notification', notification: 0 },
      atMs: 30,
    });
  });
});

describe('responses kept as the text of their lines', () => {
  it('read the same as responses parsed up front, and are parsed once', async () => {
    const path = `${INTEROP}mcp-tape/everything-stdio.jsonl`;
    const { cassette: lazy } = await loadCassette(path);
    const eager = await fixtureCassette('mcp-tape/everything-stdio.jsonl');
    expect(lazy.exchanges.map((x) => x.response)).toEqual(eager.exchanges.map((x) => x.response));
    const first = lazy.exchanges[1]!.response;
    expect(lazy.exchanges[1]!.response).toBe(first);
    // Nothing of the text shows: an exchange spreads and prints as its fields.
    expect(Object.keys(lazy.exchanges[1]!)).not.toContain('text');
    expect(JSON.stringify(lazy.exchanges[1])).not.toContain('"t":');
  });

  it('are taken out of a batch line at once', async () => {
    const files = memoryTraceFiles({
      'b.jsonl': [
        '{"v":1,"type":"meta","startedAt":"2026-01-01T00:00:00.000Z","label":"b"}',
        '{"t":"2026-01-01T00:00:00.001Z","seq":1,"dir":"in","raw":[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]}',
        '{"t":"2026-01-01T00:00:00.002Z","seq":2,"dir":"out","raw":[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}]}',
        '',
      ].join('\n'),
    });
    const trace = await openTraceWith(files, 'b.jsonl', { lineText: true });
    const cassette = await buildCassette(trace.batches(), { meta: trace.meta });
    expect(cassette.exchanges.map((x) => x.response)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: { tools: [] } },
    ]);
  });
});
