import { describe, expect, it } from 'vitest';
import type { RecordBody } from '../../src/trace/types.js';
import { upstreamCapture } from '../../src/upstream/capture.js';

const AT = Date.parse('2026-03-01T10:00:00.000Z');

describe('upstreamCapture', () => {
  it('turns what the client saw into trace lines: sent, received, heads and events, with its exact text', () => {
    const lines: [RecordBody, string | undefined][] = [];
    const capture = upstreamCapture((body, text) => lines.push([body, text]));
    const text = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    capture.sent({ raw: JSON.parse(text), text, stream: 'post-1', conn: 's', atMs: AT });
    capture.envelope({
      dir: 'out',
      stream: 'post-1',
      conn: undefined,
      status: 200,
      headers: { a: 'b' },
      atMs: AT,
    });
    capture.received({
      raw: { jsonrpc: '2.0', id: 1, result: {} },
      text: '{"jsonrpc":"2.0","id":1,"result":{}}',
      stream: 'post-1',
      eventId: 'e1',
      conn: 's',
      atMs: AT + 5,
    });
    capture.received({
      raw: { jsonrpc: '2.0', method: 'n' },
      text: '{"jsonrpc":"2.0","method":"n"}',
      stream: 'get-1',
      eventId: undefined,
      conn: undefined,
      atMs: AT + 6,
    });
    capture.event({ kind: 'no-standalone-stream', status: 405 });
    expect(lines.map(([body]) => body)).toEqual([
      { t: '2026-03-01T10:00:00.000Z', dir: 'in', raw: JSON.parse(text), conn: 's', stream: 'post-1' },
      {
        t: '2026-03-01T10:00:00.000Z',
        type: 'http',
        dir: 'out',
        stream: 'post-1',
        conn: '',
        status: 200,
        headers: { a: 'b' },
      },
      {
        t: '2026-03-01T10:00:00.005Z',
        dir: 'out',
        raw: { jsonrpc: '2.0', id: 1, result: {} },
        conn: 's',
        stream: 'post-1',
        eventId: 'e1',
      },
      // Nothing undefined is written: no conn, no eventId.
      { t: '2026-03-01T10:00:00.006Z', dir: 'out', raw: { jsonrpc: '2.0', method: 'n' }, stream: 'get-1' },
      { t: expect.any(String), type: 'event', name: 'no_standalone_stream', status: 405 },
    ]);
    expect(lines.map(([, raw]) => raw)).toEqual([
      text,
      undefined,
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","method":"n"}',
      undefined,
    ]);
  });
});
