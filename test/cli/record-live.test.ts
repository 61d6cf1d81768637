/**
 * `tapedeck record --live URL`: the recording goes to its file as always, and every line also reaches the collector
 * as a live trace the viewer can follow; the end line closes it there too. For a stdio server, for a server reached
 * over HTTP (the recording proxy), and for the stdio↔HTTP bridge.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/server.js';
import { startUpstream } from '../helpers/http-proxy.js';
import { fixtureServer, spawnRecord, spawnTapedeck, waitFor } from '../helpers/proxy.js';

const TOKEN = 'a'.repeat(64);
let dir: string;
let collector: Collector | undefined;

afterEach(async () => {
  await collector?.close();
  collector = undefined;
  rmSync(dir, { recursive: true, force: true });
});

interface LivePage {
  lines: { type?: string; dir?: string; raw?: { id?: number; method?: string } }[];
  end: { reason: string } | null;
}

/** The live trace the recorder's stderr names, as the collector holds it. */
async function liveTrace(stderr: string): Promise<LivePage> {
  const id = /#trace=([A-Za-z0-9_-]+)/.exec(stderr)?.[1];
  expect(id).toBeDefined();
  const response = await fetch(`${collector!.url}/api/v1/traces/${id}/lines?limit=100`);
  return (await response.json()) as LivePage;
}

/** A JSON-RPC upstream over HTTP that answers every POST with an empty result for its id. */
function pingUpstream() {
  return startUpstream((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { id?: number };
      if (body.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: {} }));
    });
  });
}

function startLiveCollector() {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-record-live-'));
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  return startCollector({ dbPath: join(dir, 'db.sqlite'), token: TOKEN, port: 0 });
}

describe('record --live', () => {
  it('streams a stdio recording to the collector while writing the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-record-live-'));
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    collector = await startCollector({ dbPath: join(dir, 'db.sqlite'), token: TOKEN, port: 0 });
    const file = join(dir, 'session.jsonl');
    const proxy = spawnRecord(
      file,
      fixtureServer('rpc-echo.mjs'),
      ['--live', collector.url, '--label', 'live-echo'],
      {
        env: { ...process.env, TAPEDECK_HOME: dir },
      },
    );
    await waitFor(
      () => /live view at http:\/\/127\.0\.0\.1:\d+\/#trace=/.test(proxy.stderrSoFar()),
      15_000,
      'the notice',
    );
    proxy.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await waitFor(() => proxy.stdoutSoFar().toString().includes('"id":1'), 10_000, 'the answer');
    proxy.child.stdin.end();
    const exit = await proxy.done;
    expect(exit.code).toBe(0);

    const id = /#trace=([A-Za-z0-9_-]+)/.exec(exit.stderr)?.[1];
    expect(id).toBeDefined();
    const page = (await (await fetch(`${collector.url}/api/v1/traces/${id}/lines?limit=100`)).json()) as {
      lines: { dir?: string; raw?: { id?: number } }[];
      state: string;
      end: { reason: string } | null;
    };
    const messages = page.lines.filter((line) => line.dir !== undefined);
    expect(messages.map((line) => [line.dir, line.raw?.id])).toEqual([
      ['in', 1],
      ['out', 1],
    ]);
    expect(page.end?.reason).toBe('process_exit');
    // The file has the same messages: the live view is a copy, never instead of the file.
    const fileMessages = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => line.dir !== undefined);
    expect(fileMessages.map((line) => line.raw.id)).toEqual([1, 1]);
  });

  it('sends with a team token from TAPEDECK_TOKEN, with no token file on this machine', async () => {
    collector = await startLiveCollector();
    const team = await collector.store.createToken('write', 'ci', Date.now());
    const home = join(dir, 'elsewhere');
    const file = join(dir, 'session.jsonl');
    const proxy = spawnRecord(file, fixtureServer('rpc-echo.mjs'), ['--live', collector.url], {
      env: { ...process.env, TAPEDECK_HOME: home, TAPEDECK_TOKEN: team.secret },
    });
    await waitFor(() => /#trace=/.test(proxy.stderrSoFar()), 15_000, 'the notice');
    proxy.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await waitFor(() => proxy.stdoutSoFar().toString().includes('"id":1'), 10_000, 'the answer');
    proxy.child.stdin.end();
    const exit = await proxy.done;
    expect(exit.code).toBe(0);
    const page = await liveTrace(exit.stderr);
    expect(
      page.lines.filter((line) => line.dir !== undefined).map((line) => [line.dir, line.raw?.id]),
    ).toEqual([
      ['in', 1],
      ['out', 1],
    ]);
    expect(page.end?.reason).toBe('process_exit');
  });

  it('streams a recording of a server reached over HTTP (record --upstream)', async () => {
    collector = await startLiveCollector();
    const upstream = await pingUpstream();
    try {
      const file = join(dir, 'http.jsonl');
      const proxy = spawnTapedeck(
        [
          'record',
          '--upstream',
          `${upstream.origin}/mcp`,
          '--listen',
          '127.0.0.1:0',
          '--file',
          file,
          '--live',
          collector.url,
        ],
        { env: { ...process.env, TAPEDECK_HOME: dir } },
      );
      await waitFor(
        () => /tapedeck: recording http:\/\/\S+/.test(proxy.stderrSoFar()),
        15_000,
        'the listening line',
      );
      expect(proxy.stderrSoFar()).toMatch(/live view at http:\/\/127\.0\.0\.1:\d+\/#trace=/);
      const url = /tapedeck: recording (http:\/\/\S+)/.exec(proxy.stderrSoFar())![1]!;
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":7,"method":"ping"}',
      });
      expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
      proxy.child.kill('SIGTERM');
      const exit = await proxy.done;
      expect(exit.code).toBe(0);

      const page = await liveTrace(exit.stderr);
      const messages = page.lines.filter((line) => line.dir !== undefined && line.raw !== undefined);
      expect(messages.map((line) => [line.dir, line.raw?.id])).toEqual([
        ['in', 7],
        ['out', 7],
      ]);
      expect(page.lines.some((line) => line.type === 'http')).toBe(true);
      expect(page.end?.reason).toBe('producer_shutdown');
      expect(readFileSync(file, 'utf8')).toContain('"method":"ping"');
    } finally {
      await upstream.close();
    }
  });

  it('streams a recording made through the stdio↔HTTP bridge (record --upstream --stdio)', async () => {
    collector = await startLiveCollector();
    const upstream = await pingUpstream();
    try {
      const file = join(dir, 'bridge.jsonl');
      const bridge = spawnTapedeck(
        [
          'record',
          '--upstream',
          `${upstream.origin}/mcp`,
          '--stdio',
          '--file',
          file,
          '--live',
          collector.url,
        ],
        { env: { ...process.env, TAPEDECK_HOME: dir } },
      );
      await waitFor(() => /live view at /.test(bridge.stderrSoFar()), 15_000, 'the notice');
      bridge.child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
      await waitFor(() => bridge.stdoutSoFar().toString().includes('"id":3'), 10_000, 'the answer');
      bridge.child.stdin.end();
      const exit = await bridge.done;
      expect(exit.code).toBe(0);

      const page = await liveTrace(exit.stderr);
      const messages = page.lines.filter((line) => line.dir !== undefined && line.raw !== undefined);
      expect(messages.map((line) => [line.dir, line.raw?.id])).toEqual([
        ['in', 3],
        ['out', 3],
      ]);
      expect(page.end).not.toBeNull();
    } finally {
      await upstream.close();
    }
  });
});
