import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ProxyRun, spawnTapedeck, waitFor } from '../helpers/proxy.js';
import { json, sampleTrace } from './helpers.js';

/** `tapedeck serve` as a process; resolves once it says where it listens. */
async function serve(dir: string): Promise<{ run: ProxyRun; url: string }> {
  const run = spawnTapedeck(['serve', '--db', join(dir, 'db', 'tapedeck.db'), '--port', '0'], {
    env: { ...process.env, TAPEDECK_HOME: join(dir, 'home') },
  });
  const listening = /tapedeck collector on (http:\/\/127\.0\.0\.1:\d+) \(token in (.+)\)\n/;
  await waitFor(() => listening.test(run.stderrSoFar()), 15_000, 'the collector to listen');
  const [, url, tokenPath] = listening.exec(run.stderrSoFar())!;
  expect(tokenPath).toBe(join(dir, 'home', 'token'));
  return { run, url: url! };
}

describe('the collector killed with SIGKILL', () => {
  let dir = '';
  const children: ProxyRun[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-crash-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged upload and append, drops the cut-off upload, and the database stays sound', async () => {
    const first = await serve(dir);
    children.push(first.run);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(join(dir, 'home'))).toBe(0o700);
    expect(mode(join(dir, 'home', 'token'))).toBe(0o600);
    expect(mode(join(dir, 'db'))).toBe(0o700);
    expect(mode(join(dir, 'db', 'tapedeck.db'))).toBe(0o600);
    const token = readFileSync(join(dir, 'home', 'token'), 'utf8').trim();
    const auth = { authorization: `Bearer ${token}` };

    const acknowledged: Record<string, number> = {};
    for (let i = 1; i <= 4; i += 1) {
      const response = await fetch(`${first.url}/api/v1/traces?label=kept-${i}`, {
        method: 'POST',
        headers: auth,
        body: sampleTrace({ calls: 500 * i }),
      });
      expect(response.status).toBe(201);
      const { id, lines } = await json(response);
      acknowledged[id] = lines;
    }
    const live = await json(fetch(`${first.url}/api/v1/traces/live`, { method: 'POST', headers: auth }));
    const liveLines = sampleTrace({ calls: 50, end: false });
    expect(
      (
        await fetch(`${first.url}/api/v1/traces/${live.id}/lines`, {
          method: 'POST',
          headers: auth,
          body: liveLines,
        })
      ).status,
    ).toBe(200);
    acknowledged[live.id] = 100;

    // An upload that sends 12,000 lines (two batches get committed), then stalls until the collector is killed.
    const big = new TextEncoder().encode(sampleTrace({ calls: 10_000 }));
    const half = big.indexOf(10, Math.floor(big.length * 0.6)) + 1;
    let sentHalf: () => void = () => {};
    const halfway = new Promise<void>((resolve) => {
      sentHalf = resolve;
    });
    const cut = fetch(`${first.url}/api/v1/traces?label=cut-off`, {
      method: 'POST',
      headers: auth,
      duplex: 'half',
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < half; at += 64 * 1024)
            controller.enqueue(big.subarray(at, Math.min(at + 64 * 1024, half)));
          sentHalf();
        },
      }),
    } as RequestInit).catch((err: unknown) => err);
    await halfway;
    await waitFor(
      () => {
        const db = new Database(join(dir, 'db', 'tapedeck.db'), { readonly: true });
        try {
          const row = db.prepare(`SELECT line_count FROM traces WHERE state = 'uploading'`).get() as
            | { line_count: number }
            | undefined;
          return (row?.line_count ?? 0) >= 10_000;
        } finally {
          db.close();
        }
      },
      15_000,
      'part of the cut-off upload to be committed',
    );
    first.run.child.kill('SIGKILL');
    expect((await first.run.done).signal).toBe('SIGKILL');
    expect(await cut).toBeInstanceOf(Error);

    const second = await serve(dir);
    children.push(second.run);
    expect(second.run.stderrSoFar()).toContain('removed 1 upload(s) that were cut off before they finished');
    const { traces } = await json(fetch(`${second.url}/api/v1/traces`));
    const found = Object.fromEntries(traces.map((t: { id: string; lines: number }) => [t.id, t.lines]));
    expect(found).toEqual(acknowledged);
    const page = await json(fetch(`${second.url}/api/v1/traces/${live.id}/lines?limit=5000`));
    expect(page.lines).toHaveLength(100);
    second.run.child.kill('SIGTERM');
    expect((await second.run.done).code).toBe(0);
    const db = new Database(join(dir, 'db', 'tapedeck.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT count(*) AS n FROM lines').get()).toEqual({
        n: Object.values(acknowledged).reduce((a, b) => a + b, 0),
      });
    } finally {
      db.close();
    }
  });
});
