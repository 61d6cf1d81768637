import { describe, expect, it } from 'vitest';
import { linkedChannels } from '../../../src/replay/engine/channel.js';
import { ReplayEngine, type ReplayEvent } from '../../../src/replay/engine/engine.js';
import { declares, negotiatedVersion, requiredCapability } from '../../../src/replay/engine/negotiation.js';
import type { JsonObject } from '../../../src/trace/jsonrpc.js';
import type { Json } from '../../../src/trace/types.js';
import { fakeClient, fixtureCassette, req, settle } from '../helpers.js';

/** Recorded with SDK 1.32's client: 2025-11-25, roots, sampling and both elicitation modes declared. */
const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';
const ERA2026 = 'era2026/era2026-stdio.jsonl';

const init = (protocolVersion: string, capabilities: JsonObject = {}) => ({
  protocolVersion,
  capabilities,
  clientInfo: { name: 'live-client', version: '1.0.0' },
});

const answers: Record<string, Json> = {
  'roots/list': { roots: [] },
  'sampling/createMessage': { model: 'm', role: 'assistant', content: { type: 'text', text: 'ok' } },
  'elicitation/create': { action: 'decline' },
};
const answerAll = (request: JsonObject) => answers[String(request.method)];

describe('the protocol version replay answers initialize with', () => {
  const recorded = { answered: '2025-11-25', asked: '2025-11-25' };

  it('is the client’s own when it is a version of the initialize era', () => {
    expect(negotiatedVersion(recorded, '2024-11-05')).toBe('2024-11-05');
    expect(negotiatedVersion(recorded, '2025-06-18')).toBe('2025-06-18');
    // A recording made at an older version that its client asked for: the server may speak newer ones.
    expect(negotiatedVersion({ answered: '2025-03-26', asked: '2025-03-26' }, '2025-11-25')).toBe(
      '2025-11-25',
    );
  });

  it('stays the recorded one for a version the recorded server does not speak', () => {
    expect(negotiatedVersion(recorded, '2026-07-28')).toBe('2025-11-25');
    expect(negotiatedVersion(recorded, '1999-01-01')).toBe('2025-11-25');
    expect(negotiatedVersion(recorded, undefined)).toBe('2025-11-25');
    // It negotiated its recorded client down to 2025-03-26: nothing newer than that is its own.
    const older = { answered: '2025-03-26', asked: '2025-11-25' };
    expect(negotiatedVersion(older, '2025-06-18')).toBe('2025-03-26');
    expect(negotiatedVersion(older, '2024-11-05')).toBe('2024-11-05');
  });
});

describe('the capability a server→client request needs', () => {
  it('is the one an SDK server checks before it asks', () => {
    const ask = (method: string, params?: JsonObject) => requiredCapability(req(0, method, params));
    expect(ask('roots/list')).toBe('roots');
    expect(ask('sampling/createMessage', { messages: [] })).toBe('sampling');
    expect(ask('sampling/createMessage', { messages: [], tools: [] })).toBe('sampling.tools');
    expect(ask('elicitation/create', { message: 'm', requestedSchema: {} })).toBe('elicitation.form');
    expect(ask('elicitation/create', { mode: 'url', url: 'https://x', message: 'm' })).toBe(
      'elicitation.url',
    );
    expect(ask('ping')).toBeUndefined();
  });

  it('is declared as the capability object says, an empty elicitation meaning form mode', () => {
    expect(declares({ roots: {} }, 'roots')).toBe(true);
    expect(declares({}, 'roots')).toBe(false);
    expect(declares({ sampling: {} }, 'sampling.tools')).toBe(false);
    expect(declares({ sampling: { tools: {} } }, 'sampling.tools')).toBe(true);
    expect(declares({ elicitation: {} }, 'elicitation.form')).toBe(true);
    expect(declares({ elicitation: {} }, 'elicitation.url')).toBe(false);
    expect(declares({ elicitation: { url: {} } }, 'elicitation.form')).toBe(false);
  });
});

describe('replay negotiates the handshake as the live server would', () => {
  it('answers an older client with its own version, says so once, and keeps the rest of the answer', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const client = fakeClient(cassette, { repeat: 'last' });
    const first = await client.request(0, 'initialize', init('2024-11-05'));
    const again = await client.request(1, 'initialize', init('2024-11-05'));
    const recorded = cassette.exchanges[0]!.response!.result as JsonObject;
    expect(first.result).toEqual({ ...recorded, protocolVersion: '2024-11-05' });
    expect(again.result).toEqual(first.result);
    expect(client.events.filter((e) => e.kind === 'version')).toEqual([
      {
        kind: 'version',
        note: { via: 'initialize', recorded: '2025-11-25', asked: '2024-11-05', answered: '2024-11-05' },
      },
    ]);
  });

  it('keeps the recorded version for a version it does not speak, and says nothing when they agree', async () => {
    const newer = fakeClient(await fixtureCassette(EVERYTHING));
    const response = await newer.request(0, 'initialize', init('2026-07-28'));
    expect((response.result as JsonObject).protocolVersion).toBe('2025-11-25');
    expect(newer.events.find((e) => e.kind === 'version')).toMatchObject({
      note: { asked: '2026-07-28', answered: '2025-11-25' },
    });
    const same = fakeClient(await fixtureCassette(EVERYTHING));
    await same.request(0, 'initialize', init('2025-11-25'));
    expect(same.events.filter((e) => e.kind === 'version')).toEqual([]);
  });

  it('notes a 2026-era request that carries another version than the recorded one, and answers as recorded', async () => {
    const cassette = await fixtureCassette(ERA2026);
    const recorded = cassette.exchanges.find((x) => x.method === 'tools/list')!;
    const meta = recorded.request.params!._meta as JsonObject;
    const client = fakeClient(cassette);
    const params = {
      ...recorded.request.params,
      _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2026-09-30' },
    };
    const response = await client.request(5, 'tools/list', params);
    expect(response.result).toEqual(recorded.response!.result);
    expect(client.events.find((e) => e.kind === 'version')).toEqual({
      kind: 'version',
      note: { via: 'request', recorded: '2026-07-28', asked: '2026-09-30', answered: '2026-07-28' },
    });
  });
});

describe('server→client requests a client did not declare it can answer', () => {
  it('are not sent: the unsolicited roots/list is left out and what followed its answer still plays', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, answerAll);
    await client.request(0, 'initialize', init('2025-11-25', { sampling: {} }));
    client.notify('notifications/initialized');
    await settle(20);
    await client.engine.idle();
    expect(client.methods()).toEqual([
      ...Array(5).fill('notifications/tools/list_changed'),
      'notifications/message',
    ]);
    expect(client.engine.report().answers).toEqual([]);
    expect(client.events.filter((e) => e.kind === 'withheld')).toEqual([
      { kind: 'withheld', method: 'roots/list', capability: 'roots', exchange: undefined, first: true },
    ]);
  });

  it('are asked of a client that declared them, as recorded', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, answerAll);
    await client.request(0, 'initialize', init('2025-11-25', { roots: {} }));
    client.notify('notifications/initialized');
    await settle(20);
    await client.engine.idle();
    expect(client.methods()).toContain('roots/list');
    expect(client.events.filter((e) => e.kind === 'withheld')).toEqual([]);
  });

  it('inside a call: the call still gets its recorded response, and each method is told of once', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const client = fakeClient(cassette, { repeat: 'last' }, answerAll);
    await client.request(0, 'initialize', init('2025-11-25', {}));
    const sampling = cassette.exchanges.find((x) =>
      x.script.some((m) => m.method === 'sampling/createMessage'),
    )!;
    const first = await client.request(1, 'tools/call', sampling.request.params);
    const second = await client.request(2, 'tools/call', sampling.request.params);
    expect(first.result).toEqual(sampling.response!.result);
    expect(second.result).toEqual(sampling.response!.result);
    expect(client.methods()).not.toContain('sampling/createMessage');
    const withheld = client.events.filter((e) => e.kind === 'withheld');
    expect(withheld.map((e) => [e.method, e.first])).toEqual([
      ['sampling/createMessage', true],
      ['sampling/createMessage', false],
    ]);
  });

  it('are asked as recorded of a client whose initialize replay never saw', async () => {
    const client = fakeClient(await fixtureCassette(EVERYTHING), {}, answerAll);
    client.notify('notifications/initialized');
    await settle(20);
    await client.engine.idle();
    expect(client.methods()).toContain('roots/list');
  });
});

describe('several live clients on one engine (HTTP sessions)', () => {
  it('keeps each client’s version and capabilities apart', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const [server, wire] = linkedChannels();
    // The front door says which client a message belongs to, as the HTTP hub does with its sessions; the
    // linked channel delivers on a microtask, which still sees `current` as it was when the message was sent.
    let current: object | undefined;
    const engine = new ReplayEngine(cassette, server, { repeat: 'last', clientOf: () => current });
    const events: ReplayEvent[] = [];
    engine.onEvent((event) => events.push(event));
    const sent: JsonObject[] = [];
    wire.onMessage((message) => {
      const m = message as JsonObject;
      sent.push(m);
      // Client b answers sampling; a never gets asked.
      if (m.method === 'sampling/createMessage')
        wire.send({ jsonrpc: '2.0', id: m.id ?? null, result: answers[m.method] ?? null });
    });
    const from = async (client: object, message: JsonObject) => {
      current = client;
      wire.send(message);
      await settle(5);
      await engine.idle();
    };
    const a = { name: 'a' };
    const b = { name: 'b' };
    const sampling = cassette.exchanges.find((x) =>
      x.script.some((m) => m.method === 'sampling/createMessage'),
    )!;
    await from(a, req('a0', 'initialize', init('2024-11-05', {})));
    await from(b, req('b0', 'initialize', init('2025-11-25', { sampling: {} })));
    await from(a, req('a1', 'tools/call', sampling.request.params));
    await from(b, req('b1', 'tools/call', sampling.request.params));
    const versions = sent
      .filter((m) => m.id === 'a0' || m.id === 'b0')
      .map((m) => (m.result as JsonObject).protocolVersion);
    expect(versions).toEqual(['2024-11-05', '2025-11-25']);
    expect(sent.filter((m) => m.method === 'sampling/createMessage')).toHaveLength(1);
    expect(sent.filter((m) => m.id === 'a1' || m.id === 'b1').map((m) => m.result)).toEqual([
      sampling.response!.result,
      sampling.response!.result,
    ]);
    expect(events.filter((e) => e.kind === 'withheld')).toHaveLength(1);
    engine.close();
  });
});
