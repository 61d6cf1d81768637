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
