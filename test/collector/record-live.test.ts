/**
 * `tapedeck record --live URL -- <server>`: the recording goes to its file as always, and every line also reaches
 * the collector as a live trace the viewer can follow; the end line closes it there too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/server.js';
import { fixtureServer, spawnRecord, waitFor } from '../helpers/proxy.js';

const TOKEN = 'a'.repeat(64);
let dir: string;
let collector: Collector | undefined;

afterEach(async () => {
  await collector?.close();
  collector = undefined;
  rmSync(dir, { recursive: true, force: true });
});

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
});
