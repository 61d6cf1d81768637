import type { PagedFound, PagedInfo, PagedRow } from 'mcp-tapedeck/trace';
import { describe, expect, it } from 'vitest';
import type { PagedApi } from '../../../viewer/src/data/paged-api.js';
import { PagedSourceModel } from '../../../viewer/src/data/paged-source.js';
import { PagedView } from '../../../viewer/src/data/paged-view.js';

const INFO: PagedInfo = {
  name: 'big.jsonl',
  format: 'tapedeck',
  meta: { v: 1, type: 'meta', startedAt: '2026-12-01T10:00:00.000Z', label: 'big' },
  files: [{ path: 'big.jsonl', size: 1 }],
  rows: 0,
  requests: 0,
  done: false,
  failure: null,
  progress: 0,
  start: null,
  end: null,
  maxLatency: 0,
  tools: [],
  methods: [],
  servers: [],
  calls: 0,
  diagnostics: [],
};

const ROW: PagedRow = {
  n: 30_000,
  key: '0.30001',
  kind: 'notification',
  file: 'big.jsonl',
  lineNo: 30_002,
  item: null,
  time: 1_000,
  dir: 'out',
  depth: 0,
  error: false,
  via: null,
  line: '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"far"}}',
  exchange: null,
};

/** An API whose index holds `indexed()` rows: `find` answers only for a row already indexed. */
function fakeApi(indexed: () => number): PagedApi & { finds: number } {
  const api = {
    finds: 0,
    info: async () => INFO,
    rows: async () => ({ total: indexed(), done: false, error: null, rows: [] }),
    find: async (_query: unknown, key: string): Promise<PagedFound | undefined> => {
      api.finds += 1;
      return key === ROW.key && indexed() > ROW.n ? { n: ROW.n, row: ROW } : undefined;
    },
    bars: async () => ({ total: 0, rows: [], bars: [] }) as never,
    density: async () => [],
    errors: async () => ({ count: 0, at: null, target: null }),
    stats: async () => ({}) as never,
    exportUrl: () => '',
  };
  return api;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('following a link to a row of a paged trace', () => {
  it('asks again as the index grows, and finds a row indexed after the first ask', async () => {
    let indexed = 10_000;
    const api = fakeApi(() => indexed);
    const view = new PagedView(api, new PagedSourceModel(INFO), {}, true, () => {});
    view.grew(indexed, false);
    let found: number | undefined;
    void view.locate(ROW.key).then((n) => {
      found = n;
    });
    await settle();
    expect(api.finds).toBe(1);
    expect(found).toBeUndefined();
    indexed = 20_000;
    view.grew(indexed, false);
    await settle();
    expect(api.finds).toBe(2);
    expect(found).toBeUndefined();
    indexed = 40_000;
    view.grew(indexed, false);
    await settle();
    expect(found).toBe(30_000);
  });

  it('gives up only once the index is complete without the row', async () => {
    const api = fakeApi(() => 100);
    const view = new PagedView(api, new PagedSourceModel(INFO), {}, true, () => {});
    view.grew(50, false);
    const missing = view.locate('0.99999');
    await settle();
    view.grew(100, true);
    expect(view.complete).toBe(true);
    expect(await missing).toBe(-1);
    expect(api.finds).toBe(2);
    // Asked when already complete: one ask, no wait.
    expect(await view.locate('0.12345')).toBe(-1);
    expect(api.finds).toBe(3);
  });
});

describe('a search whose first page comes before its count', () => {
  it('shows the page at once, says it is counting, and takes the count when it comes', async () => {
    const asked: { count: number; early: boolean | undefined }[] = [];
    let count!: (total: number) => void;
    const api: PagedApi = {
      ...fakeApi(() => 0),
      rows: (_query, _from, n, early) => {
        asked.push({ count: n, early });
        if (n === 0)
          return new Promise(
            (resolve) => (count = (total) => resolve({ total, done: true, error: null, rows: [] })),
          );
        return Promise.resolve({
          total: 1,
          counted: false,
          done: true,
          error: null,
          rows: [{ ...ROW, n: 0 }],
        });
      },
    };
    let changes = 0;
    const view = new PagedView(api, new PagedSourceModel(INFO), { q: 'f' }, false, () => changes++);
    view.grew(50_000, true);
    await settle();
    // The first page asked for early, then the count (a page of no rows), while the page's row shows.
    expect(asked).toEqual([
      { count: 200, early: true },
      { count: 0, early: undefined },
    ]);
    expect(view.known).toBe(true);
    expect(view.counting).toBe(true);
    expect(view.count).toBe(1);
    expect(view.at(0)?.key).toBe(ROW.key);
    const before = changes;
    count(12_345);
    await settle();
    expect(view.counting).toBe(false);
    expect(view.count).toBe(12_345);
    expect(changes).toBeGreaterThan(before);
  });
});
