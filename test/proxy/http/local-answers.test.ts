/**
 * What the recording proxy says on its own: the 502 for an upstream that is not there and the 503 for an exchange
 * cut short by shutdown reach the trace as the client received them (marked `producedBy: 'tapedeck'`, paired with
 * their request); a listener that cannot start leaves no trace; headers it cannot send are refused up front.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHttpProxy } from '../../../src/proxy/http/server.js';
import { FileSink } from '../../../src/sink/file.js';
import { MemorySink } from '../../../src/sink/memory.js';
import { newMeta } from '../../../src/trace/meta.js';
import { collectExchanges } from '../../../src/trace/pairing.js';
import {
  freePort,
  httpOf,
  messagesOf,
  startRecording,
  startUpstream,
  until,
} from '../../helpers/http-proxy.js';
import { makeTempDir, removeTempDir } from '../../helpers/proxy.js';

const post = (url: string, body: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });

describe('answers the proxy makes up', () => {
  it('records the 502 for an unreachable upstream as the answer the client got', async () => {
    const dead = await startRecording(`http://127.0.0.1:${await freePort()}/mcp`);
    try {
      const res = await post(dead.proxy.url, '{"jsonrpc":"2.0","id":"q1","method":"ping"}');
      expect(res.status).toBe(502);
      const received = await res.json();
      await dead.stop();
      const lines = dead.sink.lines;
      const out = messagesOf(lines).filter((m) => m.dir === 'out');
      expect(out).toHaveLength(1);
      expect(out[0]).toMatchObject({ raw: received, producedBy: 'tapedeck' });
      const request = messagesOf(lines).find((m) => m.dir === 'in')!;
      expect([out[0]!.conn, out[0]!.stream]).toEqual([request.conn, request.stream]);
      expect(httpOf(lines).find((h) => h.dir === 'out')).toMatchObject({
        status: 502,
        producedBy: 'tapedeck',
        headers: { 'content-type': 'application/json' },
      });
      const paired = collectExchanges(lines);
      expect(paired.unanswered).toHaveLength(0);
      expect(paired.exchanges.map((x) => x.id)).toEqual(['q1']);
      expect(lines.at(-1)).toMatchObject({ type: 'end', counts: { in: 1, out: 1 } });
    } finally {
      await dead.stop();
    }
  });

  it('records the 503 for an exchange cut short by shutdown', async () => {
    let arrived = false;
    const upstream = await startUpstream((req) => {
      req.resume();
      req.on('end', () => {
        arrived = true;
      });
    });
    const recording = await startRecording(`${upstream.origin}/mcp`, { shutdownGraceMs: 0 });
    try {
      const answer = post(recording.proxy.url, '{"jsonrpc":"2.0","id":5,"method":"tools/list"}');
      await until(() => arrived, 'the request at the upstream');
      await recording.stop();
      const res = await answer;
      expect(res.status).toBe(503);
      const received = await res.json();
      const out = messagesOf(recording.sink.lines).filter((m) => m.dir === 'out');
      expect(out).toEqual([expect.objectContaining({ raw: received, producedBy: 'tapedeck' })]);
      expect(collectExchanges(recording.sink.lines).unanswered).toHaveLength(0);
    } finally {
      await recording.stop();
      await upstream.close();
    }
  });
});

describe('starting the proxy', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir('tapedeck-proxy-start-');
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  it('starts a sink given with its meta only once it listens: a port in use leaves no file', async () => {
    const busy = await startUpstream((_req, res) => res.end());
    try {
      const path = join(dir, 'never.jsonl');
      const sink = new FileSink({ path });
      const meta = newMeta({ label: 'x', transport: 'http' });
      await expect(
        startHttpProxy({
          upstream: new URL('http://127.0.0.1:1/mcp'),
          sink,
          meta,
          port: Number(new URL(busy.origin).port),
        }),
      ).rejects.toMatchObject({ code: 'io', message: expect.stringContaining('EADDRINUSE') });
      expect(existsSync(path)).toBe(false);
    } finally {
      await busy.close();
    }
  });

  it('starts that sink once listening, with the meta line first', async () => {
    const sink = new MemorySink();
    const proxy = await startHttpProxy({
      upstream: new URL('http://127.0.0.1:1/mcp'),
      sink,
      meta: newMeta({ label: 'x', transport: 'http' }),
      port: 0,
    });
    await proxy.close(0);
    expect(sink.lines[0]).toMatchObject({ type: 'meta', label: 'x' });
    expect(sink.lines[1]).toMatchObject({ type: 'event', name: 'listen' });
  });

  it('calls an address this machine does not have a usage error', async () => {
    await expect(
      startHttpProxy({
        upstream: new URL('http://127.0.0.1:1/mcp'),
        sink: new MemorySink(),
        host: '192.0.2.77',
        port: 0,
      }),
    ).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('EADDRNOTAVAIL') });
  });

  it('refuses a header value it could not send, naming the header and not the value', async () => {
    const attempt = startHttpProxy({
      upstream: new URL('http://127.0.0.1:1/mcp'),
      sink: new MemorySink(),
      port: 0,
      headers: { Authorization: 'Bearer tok-abc123\nline2' },
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'usage',
      message:
        'header Authorization: its value holds a line feed (LF), which an HTTP header cannot carry (the value is not shown)',
    });
  });
});
