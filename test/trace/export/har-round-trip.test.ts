/**
 * HAR both ways with every HTTP trace tapedeck reads: an HTTP exchange capture (no URL, no timings), a recording
 * made by the recording proxy (a JSON answer after a wait, an event stream that takes its time), and HAR read back.
 * Bodies come out of each, and HAR → tapedeck → HAR keeps the messages and the entries' timings.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { toHar } from '../../../src/redact/har.js';
import { loadTrace, openTrace } from '../../../src/trace/io.js';
import {
  isMessageLine,
  type MessageLine,
  type MetaLine,
  type RecordLine,
  type TraceLine,
} from '../../../src/trace/types.js';
import { useCliHarness } from '../../helpers/cli.js';
import { recordSession, traceOf } from './har-session.js';

const EXCHANGES = fileURLToPath(
  new URL('../../fixtures/interop/era2026/era2026-http-exchanges.json', import.meta.url),
);
const io = useCliHarness('tapedeck-har-round-');

interface HarEntry {
  startedDateTime: string;
  time: number;
  timings: { send: number; wait: number; receive: number };
  request: { method: string; url: string; postData?: { mimeType: string; text: string } };
  response: { status: number; content: { mimeType: string; text?: string } };
  comment: string;
}

/** What a round trip must keep of the messages: direction, payload and SSE event id, in order. */
function messages(lines: readonly TraceLine[]) {
  return lines
    .filter((line): line is MessageLine => isMessageLine(line))
    .map((m) => ({ dir: m.dir, raw: m.raw, eventId: m.eventId }));
}

async function harOf(path: string): Promise<string> {
  return toHar(await openTrace(path), path);
}

function entriesOf(har: string): HarEntry[] {
  return (JSON.parse(har) as { log: { entries: HarEntry[] } }).log.entries;
}

/** Writes a HAR document and reads it back as a trace. */
async function readBack(har: string, name: string) {
  const file = join(io.dir, name);
  writeFileSync(file, har);
  return { file, trace: await loadTrace(file) };
}

/** When the message answering request `id` came, after the request, in ms. */
function latency(lines: readonly TraceLine[], id: number): number {
  const found = lines.filter(
    (l): l is MessageLine => isMessageLine(l) && (l.raw as { id?: unknown }).id === id,
  );
  const request = found.find((m) => m.dir === 'in');
  const answer = found.find((m) => m.dir === 'out');
  return Date.parse(answer?.t ?? '') - Date.parse(request?.t ?? '');
}

describe('HAR from an HTTP exchange capture', () => {
  it('has every body the capture has: the request as JSON, the answer as JSON or as events', async () => {
    const capture = JSON.parse(readFileSync(EXCHANGES, 'utf8')) as Record<string, unknown>[];
    const entries = entriesOf(await harOf(EXCHANGES));
    expect(entries).toHaveLength(capture.length);
    for (const [i, entry] of entries.entries()) {
      const x = capture[i]!;
      expect(entry.request.method).toBe(x.method);
      // The capture names no URL; HAR still wants a string.
      expect(entry.request.url).toBe('');
      if (x.requestBody === undefined || x.requestBody === null) {
        expect(entry.request.postData).toBeUndefined();
      } else {
        expect(JSON.parse(entry.request.postData?.text ?? '')).toEqual(x.requestBody);
      }
      const body = String(x.responseBody ?? '');
      const type = String((x.responseHeaders as Record<string, string>)['content-type'] ?? '');
      expect(entry.response.status).toBe(x.status);
      if (body === '') expect(entry.response.content.text).toBeUndefined();
      else if (type.includes('text/event-stream')) {
        expect(entry.response.content.text).toMatch(/^data: \{.*\}\n\n/);
      } else expect(JSON.parse(entry.response.content.text ?? '')).toEqual(JSON.parse(body));
    }
  });

  it('reads back with the same messages, and writes the same HAR again', async () => {
    const first = await harOf(EXCHANGES);
    const { file, trace } = await readBack(first, 'capture.har');
    const original = await loadTrace(EXCHANGES);
    expect(messages(trace.entries.map((e) => e.line))).toEqual(messages(original.entries.map((e) => e.line)));
    expect(await harOf(file)).toBe(first);
  });

  it('takes bodies from the conn of lines that name no stream', async () => {
    const meta: MetaLine = { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'old' };
    const t = '2026-01-01T00:00:00.000Z';
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const pong = { jsonrpc: '2.0', id: 1, result: {} };
    const lines: TraceLine[] = [
      meta,
      { t, seq: 1, type: 'http', conn: '1', dir: 'in', method: 'POST', headers: {} },
      { t, seq: 2, dir: 'in', raw: ping, conn: '1' },
      { t, seq: 3, type: 'http', conn: '1', dir: 'out', status: 200, headers: {} },
      { t, seq: 4, dir: 'out', raw: pong, conn: '1' },
    ];
    const [entry] = entriesOf(await toHar(traceOf(lines)));
    expect(JSON.parse(entry?.request.postData?.text ?? '')).toEqual(ping);
    expect(JSON.parse(entry?.response.content.text ?? '')).toEqual(pong);
  });
});

describe('HAR from a recording, and back', () => {
  let lines: TraceLine[];
  let upstreamUrl: string;

  beforeAll(async () => {
    ({ lines, upstreamUrl } = await recordSession({ pingDelayMs: 25, tailDelayMs: 45 }));
  });

  it('times each entry by the recording: the wait for the head, the receive until the last event', async () => {
    const [ping, call] = entriesOf(await toHar(traceOf(lines)));
    expect(ping?.request.url).toBe(upstreamUrl);
    // The recorder stamps each line when its bytes were seen, so the timings are what the lines say — however
    // late a loaded machine saw them. Request body → response head → last message, stream by stream:
    const times = (stream: string) => {
      const on = lines.slice(1).filter((l) => (l as { stream?: string }).stream === stream) as RecordLine[];
      const at = (l: RecordLine | undefined) => Date.parse(l?.t ?? '');
      const head = on.find((l) => l.type === 'http' && l.dir === 'out');
      const body = on.filter((l) => l.type === undefined && l.dir === 'in').at(-1);
      const last = on.filter((l) => l.type === undefined && l.dir === 'out').at(-1);
      return { send: at(body) - at(on[0]), wait: at(head) - at(body), receive: at(last) - at(head) };
    };
    const streams = [...new Set(lines.slice(1).map((l) => (l as { stream?: string }).stream))].filter(
      (stream) => stream !== undefined,
    );
    expect(streams).toHaveLength(2);
    expect(ping?.timings).toEqual(times(streams[0]!));
    expect(call?.timings).toEqual(times(streams[1]!));
    expect(call?.time).toBe(call!.timings.send + call!.timings.wait + call!.timings.receive);
    expect(call?.time).toBeGreaterThanOrEqual(latency(lines, 2));
  });

  it('times an entry to the millisecond from the lines it is made of', async () => {
    const meta: MetaLine = { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'timed' };
    const at = (ms: number) => new Date(Date.parse(meta.startedAt) + ms).toISOString();
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } };
    const progress = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    };
    const done = { jsonrpc: '2.0', id: 2, result: { content: [] } };
    const on = { conn: '1', stream: 'h1' };
    const [entry] = entriesOf(
      await toHar(
        traceOf([
          meta,
          {
            t: at(0),
            seq: 1,
            type: 'http',
            dir: 'in',
            method: 'POST',
            url: 'http://up/mcp',
            headers: {},
            ...on,
          },
          { t: at(3), seq: 2, dir: 'in', raw: call, ...on },
          { t: at(28), seq: 3, type: 'http', dir: 'out', status: 200, headers: {}, ...on },
          { t: at(30), seq: 4, dir: 'out', raw: progress, eventId: 'e1', ...on },
          { t: at(75), seq: 5, dir: 'out', raw: done, eventId: 'e2', ...on },
        ]),
      ),
    );
    expect(entry?.timings).toEqual({ send: 3, wait: 25, receive: 47 });
    expect(entry?.time).toBe(75);
    expect(entry?.startedDateTime).toBe(at(0));
  });

  it('keeps messages, bodies and timings through HAR → tapedeck → HAR', async () => {
    const first = await toHar(traceOf(lines));
    const { file, trace } = await readBack(first, 'recorded.har');
    const back = trace.entries.map((e) => e.line);
    expect(messages(back)).toEqual(messages(lines));
    expect(latency(back, 1)).toBe(latency(lines, 1));
    expect(latency(back, 2)).toBe(latency(lines, 2));
    // The entries' conn and stream are the import's own numbers; everything else comes back as it was.
    const again = entriesOf(await harOf(file)).map(({ comment: _, ...entry }) => entry);
    const before = entriesOf(first).map(({ comment: _, ...entry }) => entry);
    expect(again).toEqual(before);
    expect(again[1]?.response.content.text).toContain('id: e2\ndata: {"jsonrpc":"2.0","id":2');
  });
});
