import { describe, expect, it } from 'vitest';
import { paramsAfterClose } from '../../../viewer/src/data/close.js';
import { facetsOf } from '../../../viewer/src/data/facets.js';
import { loadFiles } from '../../../viewer/src/data/load.js';
import { TraceModel } from '../../../viewer/src/data/model.js';
import type { SourceModel } from '../../../viewer/src/data/source-model.js';
import { waterfallOf } from '../../../viewer/src/data/waterfall.js';
import { inputs, jsonl, openModel } from '../open-model.js';
import { at, SAMPLE, SAMPLE_LINES } from './sample.js';

const META = SAMPLE_LINES[0] as { v: 1; type: 'meta'; startedAt: string; label: string };

/** A trace with what no other here has: an earlier start, a slow call, its own tool, method and servers. */
const ADDED = jsonl([
  { v: 1, type: 'meta', startedAt: at(-50), label: 'added', kind: 'mcp', transport: 'stdio', server: 'beta' },
  {
    t: at(-40),
    seq: 1,
    dir: 'in',
    server: 'gamma',
    raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'probe', arguments: {} } },
  },
  {
    t: at(400),
    seq: 2,
    dir: 'out',
    server: 'gamma',
    raw: { jsonrpc: '2.0', id: 1, result: { content: [] } },
  },
  { t: at(401), seq: 3, dir: 'in', raw: { jsonrpc: '2.0', id: 2, method: 'logging/setLevel' } },
  { t: at(402), seq: 4, dir: 'out', raw: { jsonrpc: '2.0', id: 2, result: {} } },
]);

/** A third trace that calls a tool the first has too. */
const THIRD = jsonl([
  { v: 1, type: 'meta', startedAt: at(5), label: 'third', kind: 'mcp', transport: 'stdio' },
  {
    t: at(6),
    seq: 1,
    dir: 'in',
    raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: {} } },
  },
  { t: at(8), seq: 2, dir: 'out', raw: { jsonrpc: '2.0', id: 1, result: { content: [] } } },
]);

/** Rows named by trace and line, not by index, so two models can be compared. */
const named = (model: TraceModel) =>
  model.rows().map((r) => `${model.source(r.src)!.info.name}${r.key.slice(r.key.indexOf('.'))}`);

/** Everything the views read from a model, by name (the status bar, the filter bar, the waterfall, the Tools view). */
function figures(model: TraceModel) {
  const rows = model.rows();
  const waterfall = waterfallOf(rows, model.start());
  return {
    rows: named(model),
    start: model.start(),
    maxLatency: model.maxLatency(),
    servers: model.servers(),
    facets: facetsOf(model),
    total: model.sources.reduce((n, s) => n + s.rows.length, 0),
    bars: waterfall.bars.length,
    span: [waterfall.start, waterfall.end],
    tools: model.sources.map((s) => [s.info.name, s.toolTimes().map((t) => t.name)]),
    stats: model.sources.map((s) => [s.info.name, s.statistics().messages.in.requests]),
  };
}

describe('closing a trace', () => {
  it('leaves what opening the other traces alone shows: rows, start, latency, servers, filters, waterfall, counts', async () => {
    const three = await openModel({
      'd0/calc.jsonl': SAMPLE,
      'd1/added.jsonl': ADDED,
      'd2/third.jsonl': THIRD,
    });
    const before = figures(three);
    expect(before.facets.tools).toContain('probe');
    expect(before.facets.methods).toContain('logging/setLevel');
    expect(before.servers).toEqual(['beta', 'gamma']);

    const version = three.version;
    expect(three.removeSource(1)).toBe(true);
    expect(three.version).toBeGreaterThan(version);
    const without = await openModel({ 'd0/calc.jsonl': SAMPLE, 'd2/third.jsonl': THIRD });
    const after = figures(three);
    expect(after).toEqual(figures(without));
    // What only the closed trace had is gone from every list and figure.
    expect(after.facets.tools).not.toContain('probe');
    expect(after.facets.methods).not.toContain('logging/setLevel');
    expect(after.facets.servers).toEqual(['calc.jsonl', 'third.jsonl']);
    expect(after.servers).toEqual([]);
    expect(after.start).toBe(Date.parse(at(0)));
    expect(after.maxLatency).toBeLessThan(before.maxLatency);
    expect(after.rows.length).toBe(before.rows.length - 4);
    expect(after.bars).toBeLessThan(before.bars);
    // What stays keeps its keys: a link to a row of the third trace still finds it; the closed one's do not.
    expect(three.sources.map((s) => s.index)).toEqual([0, 2]);
    expect(three.row('2.1')?.exchange?.method).toBe('tools/call');
    expect(three.row('1.1')).toBeUndefined();
    expect(three.source(1)).toBeUndefined();
  });

  it('keeps the last open trace, and one its source keeps, saying why; changes nothing when refused', async () => {
    const model = new TraceModel();
    const first = model.addSource({ name: 'a.jsonl', format: 'tapedeck', meta: META, files: [] });
    expect(model.closeBlock(first.index)).toBe('the last open trace stays open');
    const version = model.version;
    expect(model.removeSource(first.index)).toBe(false);
    expect([model.sources.length, model.version]).toEqual([1, version]);

    const reason = 'a trace followed live stays open';
    const followed = model.addSource({ name: 'live', format: 'live', meta: META, files: [], keep: reason });
    expect(model.closeBlock(followed.index)).toBe(reason);
    expect(model.removeSource(followed.index)).toBe(false);
    expect(model.closeBlock(first.index)).toBeUndefined();
    expect(model.closeBlock(9)).toBe('no such trace is open');
    expect(model.removeSource(first.index)).toBe(true);
    // Now the kept one is the last one, for both reasons; the closed one is gone for good.
    expect(model.closeBlock(followed.index)).toBe('the last open trace stays open');
    expect(model.removeSource(first.index)).toBe(false);

    // Indexes are not reused: a trace added after a close is a new index, so old links cannot name it.
    const later = model.addSource({ name: 'c.jsonl', format: 'tapedeck', meta: META, files: [] });
    expect(later.index).toBe(2);
  });

  it('marks the traces a source keeps as it reads them', async () => {
    const model = new TraceModel();
    await loadFiles(inputs({ 'x/calc.jsonl': SAMPLE }), model, undefined, 'the linked trace stays open');
    model.addSource({ name: 'b.jsonl', format: 'tapedeck', meta: META, files: [] });
    expect(model.sources[0]!.info.keep).toBe('the linked trace stays open');
    expect(model.closeBlock(0)).toBe('the linked trace stays open');
    expect(model.closeBlock(1)).toBeUndefined();
  });

  it('stops reading a trace closed while it is read, and reads the next file', async () => {
    const model = new TraceModel();
    model.addSource({ name: 'open.jsonl', format: 'tapedeck', meta: META, files: [] });
    const lines = [
      META,
      ...Array.from({ length: 20_000 }, (_, i) => ({
        t: at(i),
        seq: i + 1,
        type: 'text',
        dir: 'out',
        text: `line ${i}`,
      })),
    ];
    // Closed the moment it appears, before its first batch.
    let big: SourceModel | undefined;
    const unsubscribe = model.subscribe(() => {
      const found = model.sources.find((s) => s.info.name === 'big.jsonl');
      if (!found) return;
      big = found;
      model.removeSource(found.index);
    });
    await loadFiles(inputs({ 'd0/big.jsonl': jsonl(lines), 'd1/third.jsonl': THIRD }), model);
    unsubscribe();
    expect(model.sources.map((s) => s.info.name)).toEqual(['open.jsonl', 'third.jsonl']);
    expect(model.sources[1]!.rows).toHaveLength(2);
    expect(model.loading).toBeUndefined();
    expect(model.rows().some((r) => r.kind === 'text')).toBe(false);
    expect(big?.closed).toBe(true);
    expect(big?.rows).toHaveLength(0);
  });
});

describe('the link once a trace is closed', () => {
  it('keeps a selection in a trace that stays and drops one in the closed trace', async () => {
    const model = await openModel({
      'd0/calc.jsonl': SAMPLE,
      'd1/added.jsonl': ADDED,
      'd2/third.jsonl': THIRD,
    });
    model.removeSource(1);
    expect(paramsAfterClose(model, 1, { sel: '1.2' })).toEqual({ sel: undefined, pair: undefined });
    expect(paramsAfterClose(model, 1, { sel: '2.1', q: 'add' })).toEqual({ pair: undefined });
    // `sel=12.1` is not trace 1's.
    expect(paramsAfterClose(model, 1, { sel: '12.1' })).toEqual({ pair: undefined });
  });

  it('drops the trace the Tools, Raw and Diff views named when it is the closed one', async () => {
    const model = await openModel({
      'd0/calc.jsonl': SAMPLE,
      'd1/added.jsonl': ADDED,
      'd2/third.jsonl': THIRD,
    });
    model.removeSource(1);
    expect(paramsAfterClose(model, 1, { src: '1', file: 'd1/added.jsonl', line: '3' })).toEqual({
      src: undefined,
      file: undefined,
      line: undefined,
      pair: undefined,
    });
    expect(paramsAfterClose(model, 1, { src: '2', a: '1', b: '2', pair: '4' })).toEqual({
      a: undefined,
      pair: undefined,
    });
  });

  it('drops a tool, method or server filter nothing open matches any more, and keeps one that still matches', async () => {
    const model = await openModel({
      'd0/calc.jsonl': SAMPLE,
      'd1/added.jsonl': ADDED,
      'd2/third.jsonl': THIRD,
    });
    model.removeSource(1);
    expect(paramsAfterClose(model, 1, { tool: 'probe', method: 'logging/setLevel', server: 'beta' })).toEqual(
      {
        tool: undefined,
        method: undefined,
        server: undefined,
        pair: undefined,
      },
    );
    // Part of a name, as the filter matches: `ad` is part of `add`, which the other traces call.
    expect(paramsAfterClose(model, 1, { tool: 'ad', method: 'tools/', server: 'third.jsonl' })).toEqual({
      pair: undefined,
    });
    // Down to one trace: the server picker is gone, so a filter on a trace's name goes too.
    model.removeSource(2);
    expect(paramsAfterClose(model, 2, { server: 'calc.jsonl' })).toEqual({
      server: undefined,
      pair: undefined,
    });
  });
});
