/**
 * Resumption through the recording proxy, driven with raw fetch against server-everything (which keeps an event
 * store): a POST's event stream is dropped after its first progress event, then picked up again with
 * `Last-Event-ID` on a GET. The header must reach the server (it replays what followed), and the trace must hold
 * each delivery once: what the POST stream carried, and what each GET stream carried.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCounterId } from '../../../src/redact/headers.js';
import { formatMarker } from '../../../src/redact/marker.js';
import { sha256Hex } from '../../../src/redact/sha256.js';
import type { TraceLine } from '../../../src/trace/types.js';
import {
  eventsOf,
  httpOf,
  messagesOf,
  type RecordingProxy,
  type RunningEverything,
  rpcOf,
  startEverything,
  startRecording,
  until,
} from '../../helpers/http-proxy.js';

const ACCEPT = 'application/json, text/event-stream';

/** An event id as the redacted trace keeps it: a stable hash, the same in `Last-Event-ID` and in `eventId`. */
const kept = (id: string) =>
  isCounterId(id) ? id : formatMarker('sse-event-id', id, { mode: 'hash', hasher: sha256Hex });

/** Reads events off a response until `stop` says so (then aborts) or the stream ends. */
async function readEvents(
  res: Response,
  stop: (events: EventSourceMessage[]) => boolean,
  abort: AbortController,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      if (stop(events)) {
        abort.abort();
        break;
      }
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  return events;
}

const withData = (events: EventSourceMessage[]) => events.filter((e) => e.data.trim() !== '');

describe('Last-Event-ID resumption through the recording proxy', () => {
  let everything: RunningEverything | undefined;
  let recording: RecordingProxy | undefined;
  let lines: TraceLine[];
  let firstDelivery: EventSourceMessage[];
  let resumedFrom: string;
  const deliveries: EventSourceMessage[][] = [];

  beforeAll(async () => {
    everything = await startEverything('streamableHttp');
    recording = await startRecording(`${everything.origin}/mcp`);
    const url = recording.proxy.url;
    const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();

    // The call's stream is dropped right after its first progress event.
    const dropped = new AbortController();
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'trigger-long-running-operation',
          arguments: { duration: 0.3, steps: 3 },
          _meta: { progressToken: 'p2' },
        },
      },
      headers,
      dropped.signal,
    );
    firstDelivery = await readEvents(call, (events) => withData(events).length >= 1, dropped);
    resumedFrom = withData(firstDelivery)[0]!.id!;

    // server-everything's event store replays what it has stored so far (its live events do not follow a
    // replay), so ask again until the answer has been stored — every GET is a delivery of its own.
    for (let attempt = 0; attempt < 40; attempt++) {
      const again = new AbortController();
      const get = await fetch(url, {
        headers: { accept: 'text/event-stream', 'last-event-id': resumedFrom, ...headers },
        signal: again.signal,
      });
      const timer = setTimeout(() => again.abort(), 150);
      const events = await readEvents(
        get,
        (e) => withData(e).some((x) => x.data.includes('"result"')),
        again,
      );
      clearTimeout(timer);
      deliveries.push(withData(events));
      if (events.some((x) => x.data.includes('"result"'))) break;
    }
    await until(
      () => eventsOf(recording!.sink.lines, 'client_disconnect').length >= deliveries.length,
      'the proxy noticing every dropped stream',
    );
    await recording.stop();
    lines = recording.sink.lines;
  });

  afterAll(async () => {
    await recording?.stop();
    await everything?.stop();
  });

  it('passes Last-Event-ID on, so the server replays what followed it', () => {
    const gets = httpOf(lines).filter((h) => h.dir === 'in' && h.method === 'GET');
    expect(gets).toHaveLength(deliveries.length);
    for (const get of gets) expect(get.headers['last-event-id']).toBe(kept(resumedFrom));
    const last = deliveries.at(-1)!;
    const result = last.find((e) => e.data.includes('"result"'))!;
    expect(JSON.parse(result.data)).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });
    // The replay starts after the event the client named.
    for (const delivery of deliveries) expect(delivery.map((e) => e.id)).not.toContain(resumedFrom);
  });

  it('records every delivery once, on its own stream', () => {
    const messages = messagesOf(lines);
    const gets = httpOf(lines).filter((h) => h.dir === 'in' && h.method === 'GET');
    gets.forEach((get, i) => {
      const recorded = messages.filter((m) => m.stream === get.stream).map((m) => m.eventId);
      expect(recorded).toEqual(deliveries[i]!.map((e) => (e.id === undefined ? undefined : kept(e.id))));
    });
    const callStream = messages.find((m) => rpcOf(m).method === 'tools/call')!.stream;
    const onCall = messages.filter((m) => m.stream === callStream && m.dir === 'out').map((m) => m.eventId);
    // What the proxy forwarded before the drop: at least what the client read, each event once.
    expect(onCall).toContain(kept(resumedFrom));
    expect(new Set(onCall).size).toBe(onCall.length);
    const drops = eventsOf(lines, 'client_disconnect');
    expect(drops.map((e) => e.stream)).toContain(callStream);
  });
});
