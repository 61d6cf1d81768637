import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/index.js';
import { LOCKS } from '../../src/collector/postgres-schema.js';
import { freshSchema, NO_POSTGRES, requirePostgres } from '../helpers/postgres.js';
import { scratchDir } from '../helpers/scratch.js';
import { json, sampleTrace, TEST_TOKEN } from './helpers.js';
import { watch } from './ws.js';

/** Two collectors on one Postgres database: whatever is done through one is seen through the other. */
describe.skipIf(NO_POSTGRES !== undefined)(
  `two collectors on one Postgres database ${NO_POSTGRES ?? ''}`,
  () => {
    let a: Collector;
    let b: Collector;
    let dir = '';
    let drop: () => Promise<void>;
    let url = '';
    beforeEach(async () => {
      const schema = await freshSchema();
      drop = schema.drop;
      url = schema.url;
      dir = scratchDir('tapedeck-team-');
      const open = () =>
        startCollector({
          dbPath: url,
          token: TEST_TOKEN,
          port: 0,
          spoolDir: dir,
          viewerDir: join(dir, 'none'),
        });
      [a, b] = await Promise.all([open(), open()]);
    });
    afterEach(async () => {
      await Promise.all([a.close(), b.close()]);
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const api = (collector: Collector, path: string, init: RequestInit = {}) =>
      fetch(`${collector.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(init.headers as Record<string, string>) },
      });
    const append = (collector: Collector, id: string, lines: string[]) =>
      api(collector, `/api/v1/traces/${id}/lines`, { method: 'POST', body: `${lines.join('\n')}\n` });
    const stderr = (seq: number) =>
      JSON.stringify({ t: '2026-03-01T00:00:00.000Z', seq, type: 'stderr', text: `line ${seq}` });

    it('lists, searches and reads on one what was pushed to the other, byte for byte', async () => {
      const body = sampleTrace({ label: 'pushed-to-a', calls: 3 });
      const pushed = await json(api(a, '/api/v1/traces', { method: 'POST', body }));
      const listed = await json(api(b, '/api/v1/traces?label=PUSHED'));
      expect(listed.traces.map((t: { id: string }) => t.id)).toEqual([pushed.id]);
      const jsonl = await (await api(b, `/api/v1/traces/${pushed.id}/trace.jsonl`)).text();
      expect(jsonl).toBe(body);
    });

    it('sends a live viewer on one the lines appended through the other, in order, then the end', async () => {
      const { id } = await json(api(a, '/api/v1/traces/live', { method: 'POST', body: '{}' }));
      await append(a, id, [stderr(1), stderr(2)]);
      const viewer = watch(`${b.url.replace('http', 'ws')}/api/v1/traces/${id}/live?since=1`, {
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      await viewer.until(() => viewer.seqs().length === 1, 'the snapshot');
      for (let seq = 3; seq <= 40; seq += 2)
        await append(seq % 4 === 1 ? a : b, id, [stderr(seq), stderr(seq + 1)]);
      const every = Array.from({ length: 39 }, (_, k) => k + 2);
      await viewer.until(() => viewer.seqs().length >= every.length, 'every appended line');
      expect(viewer.seqs()).toEqual(every);
      const end =
        '{"t":"2026-03-01T00:00:09.000Z","type":"end","durationMs":9,"reason":"process_exit","counts":{}}';
      await append(a, id, [end]);
      expect((await viewer.closed).code).toBe(1000);
      expect(viewer.frames.at(-1)).toMatchObject({ type: 'end', line: { reason: 'process_exit' } });
    });

    it('keeps every acknowledged line of many concurrent appends to one trace through both, in one order everywhere', async () => {
      const { id } = await json(api(a, '/api/v1/traces/live', { method: 'POST', body: '{}' }));
      const since = `/api/v1/traces/${id}/live?since=0`;
      const headers = { authorization: `Bearer ${TEST_TOKEN}` };
      const onA = watch(`${a.url.replace('http', 'ws')}${since}`, { headers });
      const onB = watch(`${b.url.replace('http', 'ws')}${since}`, { headers });
      await Promise.all([onA.opened(), onB.opened()]);
      // Lines without a seq (as mcp-tape writes them) are numbered by the collector on arrival.
      const unnumbered = (writer: number, k: number) =>
        JSON.stringify({ t: '2026-03-01T00:00:00.000Z', type: 'stderr', text: `w${writer}-${k}` });
      const writers = 8;
      const rounds = 12;
      const perAppend = 3;
      const acknowledged = await Promise.all(
        Array.from({ length: writers }, async (_, writer) => {
          let count = 0;
          for (let round = 0; round < rounds; round += 1) {
            const lines = Array.from({ length: perAppend }, (_, k) =>
              unnumbered(writer, round * perAppend + k),
            );
            const res = await append(writer % 2 === 0 ? a : b, id, lines);
            expect(res.status).toBe(200);
            count += ((await res.json()) as { appended: number }).appended;
          }
          return count;
        }),
      );
      const total = writers * rounds * perAppend;
      expect(acknowledged.reduce((sum, n) => sum + n, 0)).toBe(total);
      const stored = (await (await api(b, `/api/v1/traces/${id}/trace.jsonl`)).text())
        .trimEnd()
        .split('\n')
        .map((text) => JSON.parse(text))
        .filter((line) => line.type === 'stderr');
      expect(stored.map((line) => line.seq)).toEqual(Array.from({ length: total }, (_, k) => k + 1));
      const texts = stored.map((line) => line.text as string);
      expect(new Set(texts).size).toBe(total);
      // Each writer's lines keep the order it sent them in.
      for (let writer = 0; writer < writers; writer += 1) {
        const mine = texts.filter((text) => text.startsWith(`w${writer}-`));
        expect(mine).toEqual(Array.from({ length: rounds * perAppend }, (_, k) => `w${writer}-${k}`));
      }
      const seen = (viewer: ReturnType<typeof watch>) =>
        viewer.frames
          .filter((f) => f.type === 'lines')
          .flatMap((f) => f.lines.map((l: { text: string }) => l.text));
      await onA.until(() => onA.seqs().length >= total, 'every line on the viewer of one');
      await onB.until(() => onB.seqs().length >= total, 'every line on the viewer of the other');
      expect(seen(onA)).toEqual(texts);
      expect(seen(onB)).toEqual(texts);
      onA.ws.close();
      onB.ws.close();
    });

    it('opens a share made on one on the other, and a revoke on one closes it everywhere', async () => {
      const pushed = await json(api(a, '/api/v1/traces/live', { method: 'POST', body: '{}' }));
      await append(a, pushed.id, [stderr(1)]);
      const share = await json(api(a, `/api/v1/traces/${pushed.id}/shares`, { method: 'POST', body: '{}' }));
      expect((await fetch(`${b.url}/api/v1/shares/${share.id}`)).status).toBe(200);
      const viewer = watch(`${b.url.replace('http', 'ws')}/api/v1/shares/${share.id}/live`);
      await viewer.until(() => viewer.seqs().length === 1, 'the snapshot through the share');
      expect((await api(a, `/api/v1/shares/${share.id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await viewer.closed).code).toBe(4410);
      expect((await fetch(`${b.url}/api/v1/shares/${share.id}/lines`)).status).toBe(410);
    });

    it('runs retention on one collector at a time: while one holds the lock the others skip their turn', async () => {
      const holder = new pg.Client({ connectionString: requirePostgres() });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [LOCKS.retain]);
        expect(await a.retain()).toBeUndefined();
        expect(await b.retain()).toBeUndefined();
        await holder.query('SELECT pg_advisory_unlock($1)', [LOCKS.retain]);
      } finally {
        await holder.end();
      }
      const runs = await Promise.all([a.retain(), b.retain(), a.retain(), b.retain()]);
      expect(runs.filter((run) => run !== undefined).length).toBeGreaterThanOrEqual(1);
      expect(await a.retain()).toEqual({ removed: 0, bytes: 0 });
    });

    it('accepts a team token made on one on the other, until it is revoked', async () => {
      const token = await a.store.createToken('write', 'ci', Date.now());
      const withToken = { headers: { authorization: `Bearer ${token.secret}` } };
      const made = await fetch(`${b.url}/api/v1/traces/live`, { method: 'POST', body: '{}', ...withToken });
      expect(made.status).toBe(201);
      await b.store.revokeToken(token.id, Date.now());
      expect(
        (await fetch(`${a.url}/api/v1/traces/live`, { method: 'POST', body: '{}', ...withToken })).status,
      ).toBe(401);
    });
  },
);
