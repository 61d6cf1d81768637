import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { LiveClient, type LiveStatus, type SocketLike } from '../../../viewer/src/source/live-client.js';

/**
 * The viewer's live client against a small websocket server that plays the collector's side of the protocol
 * frame by frame (the browser test runs it against the real collector).
 */

const line = (seq: number) => ({
  t: '2026-01-01T00:00:00.000Z',
  seq,
  dir: 'in',
  raw: { jsonrpc: '2.0', method: 'ping', id: seq },
});
const frame = (seqs: number[]) => JSON.stringify({ type: 'lines', lines: seqs.map(line) });

describe('the live client', () => {
  let server: WebSocketServer | undefined;
  let client: LiveClient | undefined;
  afterEach(async () => {
    client?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('takes the snapshot and appends, counts dropped lines, resumes after a reconnect with ?since, stops at end', async () => {
    const asked: string[] = [];
    server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'tapedeck' });
    server.on('connection', (ws, req) => {
      const since = new URL(req.url ?? '/', 'http://x').searchParams.get('since');
      asked.push(since ?? '');
      if (asked.length === 1) {
        ws.send(frame([1, 2, 3]));
        ws.send(JSON.stringify({ type: 'dropped', count: 2 }));
        ws.send(frame([6]));
        ws.send(JSON.stringify({ type: 'heartbeat' }));
        // The connection dies without a close frame, as when the collector restarts.
        setTimeout(() => ws.terminate(), 50);
      } else {
        // A reconnect racing an append may repeat lines the viewer has: they must be skipped.
        ws.send(frame([5, 6, 7]));
        ws.send(
          JSON.stringify({
            type: 'end',
            line: { t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 },
          }),
        );
        ws.close(1000, 'end');
      }
    });
    await new Promise((resolve) => server!.once('listening', resolve));
    const port = (server.address() as AddressInfo).port;

    const seqs: number[] = [];
    const statuses: LiveStatus[] = [];
    let dropped = 0;
    let end: Record<string, unknown> | undefined;
    const done = new Promise<void>((resolve) => {
      client = new LiveClient({
        url: (since) => `ws://127.0.0.1:${port}/api/v1/traces/abc/live?since=${since}`,
        protocols: ['tapedeck'],
        delayMs: 20,
        socket: (url, protocols) => new WebSocket(url, protocols) as unknown as SocketLike,
        handlers: {
          lines: (lines) => seqs.push(...lines.map((l) => l.seq as number)),
          dropped: (count) => {
            dropped += count;
          },
          end: (l) => {
            end = l;
          },
          status: (status) => {
            statuses.push(status);
            if (status === 'ended') resolve();
          },
        },
      });
      client.start();
    });
    await done;
    expect(seqs).toEqual([1, 2, 3, 6, 7]);
    expect(dropped).toBe(2);
    expect(asked).toEqual(['0', '6']);
    expect(end?.type).toBe('end');
    expect(client!.connections).toBe(2);
    expect(statuses).toEqual(['connecting', 'live', 'reconnecting', 'live', 'ended']);
  });

  it('stops, without reconnecting, when the collector closes a share link that expired (4410)', async () => {
    let connections = 0;
    server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'tapedeck' });
    server.on('connection', (ws) => {
      connections += 1;
      ws.send(frame([1]));
      setTimeout(() => ws.close(4410, 'share expired'), 20);
    });
    await new Promise((resolve) => server!.once('listening', resolve));
    const port = (server.address() as AddressInfo).port;
    const gone = await new Promise<string | undefined>((resolve) => {
      client = new LiveClient({
        url: (since) => `ws://127.0.0.1:${port}/api/v1/shares/s/live?since=${since}`,
        protocols: ['tapedeck'],
        delayMs: 20,
        socket: (url, protocols) => new WebSocket(url, protocols) as unknown as SocketLike,
        handlers: {
          lines: () => {},
          dropped: () => {},
          end: () => {},
          status: (status, detail) => {
            if (status === 'gone') resolve(detail);
          },
        },
      });
      client.start();
    });
    expect(gone).toBe('share expired');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(connections).toBe(1);
  });
});
