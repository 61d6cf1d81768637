import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CollectorStore, StoredLine } from '../../../src/collector/store.js';
import { ManualClock } from '../../helpers/clock.js';
import { call, ENGINES, type Engine, meta, push } from './engines.js';

/** A fresh store of `engine` for each test, on a manual clock; `all` reads a trace's lines a small page at a time. */
function useStore(engine: Engine) {
  const h = {} as { store: CollectorStore; clock: ManualClock; dispose: () => Promise<void> };
  beforeEach(async () => {
    h.clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    const opened = await engine.open(() => h.clock.now());
    h.store = opened.store;
    h.dispose = opened.dispose;
  });
  afterEach(async () => {
    await h.dispose();
  });
  const all = async (n: number, filter = {}) => {
    const lines: StoredLine[] = [];
    for (let after = 0; ; ) {
      const page = await h.store.pageLines(n, after, 7, filter);
      lines.push(...page);
      if (page.length < 7) return lines;
      after = page[page.length - 1]!.seq;
    }
  };
  return { h, all };
}

// The store contract: every engine behind CollectorStore passes the same suite.
for (const engine of ENGINES) {
  const title = `the ${engine.name} store${engine.skip === undefined ? '' : ` ${engine.skip}`}`;
  describe.skipIf(engine.skip !== undefined)(`${title}: lines and traces`, () => {
    const { h, all } = useStore(engine);
    it('reads back every line byte for byte as it was pushed, a page at a time', async () => {
      const odd = [
        // Spacing, key order, escapes, non-ASCII text and numbers beyond 2^53 are kept as sent.
        '{"seq":1,  "t":"2026-03-01T00:00:01.000Z","dir":"in","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}',
        '{"t":"2026-03-01T00:00:01.000Z","seq":2,"dir":"out","raw":{"jsonrpc":"2.0","method":"x","params":{"é":"\\u00e9 ✓ 𝄞","big":12345678901234567890123,"f":1.50}}}',
        '{"t":"2026-03-01T00:00:01.000Z","seq":3,"type":"stderr","text":"tab\\there \\"quoted\\" \\\\ back"}',
        ...Array.from({ length: 30 }, (_, i) => call(4 + i * 2, `tool${i % 3}`, i % 5 === 0)).flat(),
      ];
      const row = await h.store.create({ format: 'tapedeck', state: 'uploading' });
      const result = await push(h.store, row, `${meta()}\n${odd.join('\n')}\n`, 'upload', 5);
      expect(result.lines).toBe(odd.length);
      const back = await all(row.n);
      expect(back.map((line) => line.text)).toEqual(odd);
      expect(back.map((line) => line.seq)).toEqual(odd.map((_, i) => i + 1));
      const stored = (await h.store.get(row.id))!;
      expect(stored).toMatchObject({
        line_count: odd.length,
        last_seq: odd.length,
        label: 'contract',
        server: 'srv',
      });
      expect(stored.bytes).toBe(odd.reduce((sum, line) => sum + line.length, 0));
      expect(stored.meta).toBe(meta());
    });

    it('filters lines by tool, direction, kind and errors; a response carries its request’s tool', async () => {
      const row = await h.store.create({ format: 'tapedeck', state: 'live' });
      await push(
        h.store,
        row,
        `${[meta(), ...call(1, 'echo'), ...call(3, 'add', true), ...call(5, 'echo', true)].join('\n')}\n`,
      );
      expect((await all(row.n, { tool: 'echo' })).map((l) => l.seq)).toEqual([1, 2, 5, 6]);
      expect((await all(row.n, { errors: true })).map((l) => l.seq)).toEqual([4, 6]);
      expect((await all(row.n, { dir: 'out', tool: 'add' })).map((l) => l.seq)).toEqual([4]);
      expect((await all(row.n, { kind: 'stderr' })).map((l) => l.seq)).toEqual([]);
      expect(await h.store.terms(row.n, 'tool')).toEqual([
        { name: 'echo', count: 2 },
        { name: 'add', count: 1 },
      ]);
      expect((await h.store.get(row.id))!).toMatchObject({ errors: 2, msg_in: 3, msg_out: 3 });
    });

    it('numbers lines without seq on upload and skips lines at or below the last one on append', async () => {
      const row = await h.store.create({ format: 'mcp-tape', state: 'live' });
      const bare =
        '{"t":"2026-03-01T00:00:01.000Z","dir":"in","raw":{"jsonrpc":"2.0","method":"ping","id":9}}';
      await push(h.store, row, `${bare}\n${bare}\n`, 'upload');
      expect((await all(row.n)).map((l) => [l.seq, JSON.parse(l.text).seq])).toEqual([
        [1, 1],
        [2, 2],
      ]);
      const appended = await push(
        h.store,
        row,
        `${call(2, 'echo').join('\n')}\n${call(3, 'echo')[1]}\n`,
        'append',
      );
      expect(appended).toMatchObject({ lines: 2, duplicates: 1 });
      expect((await h.store.get(row.id))!.last_seq).toBe(4);
    });
  });

  describe.skipIf(engine.skip !== undefined)(`${title}: events, shares, retention, tokens`, () => {
    const { h } = useStore(engine);

    it('tells listeners of appends, the end, a removal and a revoked share once they are committed', async () => {
      const heard: string[] = [];
      h.store.on({
        append: (id, lines) => heard.push(`append ${id} ${lines.map((l) => l.seq).join(',')}`),
        end: (id, text) => heard.push(`end ${id} ${JSON.parse(text).reason}`),
        remove: (id) => heard.push(`remove ${id}`),
        shareRevoked: (id) => heard.push(`revoked ${id}`),
      });
      const row = await h.store.create({ format: 'tapedeck', state: 'live' });
      await push(h.store, row, `${call(1, 'echo').join('\n')}\n`, 'append');
      const end =
        '{"t":"2026-03-01T00:00:02.000Z","type":"end","durationMs":1,"reason":"process_exit","counts":{}}';
      await push(h.store, row, `${end}\n`, 'append');
      expect((await h.store.get(row.id))!.state).toBe('complete');
      const share = await h.store.createShare(row, 1000, h.clock.now());
      expect(await h.store.revokeShare(share.id, h.clock.now())).toBe(true);
      await h.store.remove(row);
      expect(heard).toEqual([
        `append ${row.id} 1,2`,
        `end ${row.id} process_exit`,
        `revoked ${share.id}`,
        `remove ${row.id}`,
      ]);
      expect(await h.store.get(row.id)).toBeUndefined();
      expect(await h.store.pageLines(row.n, 0, 10)).toEqual([]);
      expect(await h.store.resolveShare(share.id, h.clock.now())).toEqual({ kind: 'missing' });
    });

    it('searches newest first by label (any case), tool, server and errors, a page at a time; unfinished uploads never show', async () => {
      const ids: string[] = [];
      for (const [label, fail] of [
        ['Alpha one', false],
        ['beta', true],
        ['alpha two', false],
      ] as const) {
        const row = await h.store.create({ format: 'tapedeck', state: 'uploading', label });
        await push(
          h.store,
          row,
          `${[meta(label), ...call(1, label.startsWith('b') ? 'add' : 'echo', fail)].join('\n')}\n`,
        );
        await h.store.completeUpload(row.n, 'tapedeck');
        ids.push(row.id);
      }
      await h.store.create({ format: 'tapedeck', state: 'uploading', label: 'alpha hidden' });
      const labels = async (query: object) =>
        (await h.store.search({ limit: 10, ...query })).rows.map((row) => row.label);
      expect(await labels({})).toEqual(['alpha two', 'beta', 'Alpha one']);
      expect(await labels({ label: 'ALPHA' })).toEqual(['alpha two', 'Alpha one']);
      expect(await labels({ tool: 'add' })).toEqual(['beta']);
      expect(await labels({ errors: true })).toEqual(['beta']);
      expect(await labels({ server: 'srv', errors: false })).toEqual(['alpha two', 'Alpha one']);
      const first = await h.store.search({ limit: 2 });
      expect(first.rows.map((row) => row.id)).toEqual([ids[2], ids[1]]);
      const second = await h.store.search({ limit: 2, before: first.next! });
      expect(second).toMatchObject({ next: null });
      expect(second.rows.map((row) => row.id)).toEqual([ids[0]]);
    });

    it('opens a share until it expires or is revoked, and lists shares', async () => {
      const row = await h.store.create({ format: 'tapedeck', state: 'live' });
      const share = await h.store.createShare(row, 60_000, h.clock.now());
      expect(await h.store.resolveShare(share.id, h.clock.now())).toMatchObject({
        kind: 'ok',
        trace: { id: row.id },
      });
      expect(await h.store.resolveShare(share.id, h.clock.now() + 60_000)).toEqual({ kind: 'expired' });
      expect(await h.store.resolveShare('x'.repeat(32), h.clock.now())).toEqual({ kind: 'missing' });
      expect((await h.store.listShares(row)).map((s) => [s.id, s.revoked])).toEqual([[share.id, false]]);
      await h.store.revokeShare(share.id, h.clock.now());
      expect(await h.store.revokeShare('y'.repeat(32), h.clock.now())).toBe(false);
      expect(await h.store.resolveShare(share.id, h.clock.now())).toEqual({ kind: 'revoked' });
      expect((await h.store.listAllShares()).map((s) => [s.traceId, s.revoked])).toEqual([[row.id, true]]);
    });

    it('applies retention by age, then by size, oldest first, never touching uploads in progress', async () => {
      const make = async (label: string) => {
        const row = await h.store.create({ format: 'tapedeck', state: 'live', label });
        await push(h.store, row, `${call(1, 'echo').join('\n')}\n`, 'append');
        await h.clock.advance(1000);
        return row;
      };
      await make('a');
      await h.clock.advance(10 * 60_000);
      const b = await make('b');
      await make('c');
      await make('d');
      const uploading = await h.store.create({ format: 'tapedeck', state: 'uploading' });
      expect(await h.store.retain({ maxAgeMs: 5 * 60_000 }, h.clock.now())).toMatchObject({ removed: 1 });
      const size = (await h.store.get(b.id))!.bytes;
      expect(await h.store.retain({ maxBytes: size * 2 }, h.clock.now())).toEqual({
        removed: 1,
        bytes: size,
      });
      expect((await h.store.search({ limit: 10 })).rows.map((row) => row.label)).toEqual(['d', 'c']);
      expect(await h.store.get(uploading.id)).toBeDefined();
      expect(await h.store.removeUnfinished(0)).toBe(1);
      expect(await h.store.get(uploading.id)).toBeUndefined();
    });

    it('keeps team tokens as hashes: made, listed, checked by scope and revoked', async () => {
      const read = await h.store.createToken('read', 'ci', h.clock.now());
      await h.clock.advance(1);
      const write = await h.store.createToken('write', '', h.clock.now());
      expect(read.secret).toMatch(/^tdk_[A-Za-z0-9_-]{43}$/);
      expect(await h.store.tokenScope(read.secret, h.clock.now())).toBe('read');
      expect(await h.store.tokenScope(write.secret, h.clock.now())).toBe('write');
      expect(await h.store.tokenScope(`${read.secret}x`, h.clock.now())).toBeUndefined();
      const listed = await h.store.listTokens();
      expect(listed.map((t) => [t.id, t.scope, t.label, t.revokedAt])).toEqual([
        [read.id, 'read', 'ci', null],
        [write.id, 'write', '', null],
      ]);
      expect(JSON.stringify(listed)).not.toContain(read.secret);
      expect(await h.store.revokeToken(read.id, h.clock.now())).toBe(true);
      expect(await h.store.revokeToken('tok_nonexistent1', h.clock.now())).toBe(false);
      expect(await h.store.tokenScope(read.secret, h.clock.now())).toBeUndefined();
      expect((await h.store.listTokens())[0]!.revokedAt).toBe(new Date(h.clock.now()).toISOString());
    });
  });
}
