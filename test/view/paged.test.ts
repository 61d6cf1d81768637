/**
 * A paged trace (`tapedeck view` on a trace too big for the browser) against the same trace loaded whole: the
 * server's index and pages, read through the viewer's own paged API client and row builder, give the rows, the
 * filtered views, the waterfall's bars and the figures the viewer computes from the whole file. Everything in
 * process: the view server on a port, the viewer's data modules in node.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import type { LineQuery } from '../../src/trace/query.js';
import { estimateLines, PAGED_DEFAULTS, pagingPlan } from '../../src/view/paged/plan.js';
import { TraceIndex } from '../../src/view/paged/trace-index.js';
import { startViewServer, type ViewServer, viewFiles } from '../../src/view/server.js';
import { errorPosition, nextError } from '../../viewer/src/data/error-nav.js';
import { compileFilter, filterRows } from '../../viewer/src/data/filter.js';
import { tallyTools, toolTimes } from '../../viewer/src/data/insights.js';
import type { TraceModel } from '../../viewer/src/data/model.js';
import type { PagedApi } from '../../viewer/src/data/paged-api.js';
import { PagedRows } from '../../viewer/src/data/paged-rows.js';
import { progressOf } from '../../viewer/src/data/progress.js';
import type { Row } from '../../viewer/src/data/rows.js';
import { rowDetail, rowTitle } from '../../viewer/src/data/summary.js';
import { waterfallOf } from '../../viewer/src/data/waterfall.js';
import { pagedApi } from '../../viewer/src/source/paged-api.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { SAMPLE } from '../viewer/data/sample.js';
import { openModel, text } from '../viewer/open-model.js';
import { MCP_TAPE, writeRotatedTrace } from '../viewer/traces.js';

/** A real recording with two failing calls (test/fixtures/viewer/README.md). */
const STDIO_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-stdio.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-paged-'));
const servers: ViewServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The trace served paged, its API as the viewer uses it, and the same trace loaded whole. */
async function both(path: string): Promise<{ api: PagedApi; index: TraceIndex; whole: TraceModel }> {
  const files = viewFiles(await traceFilesFor([path]));
  const index = await TraceIndex.open(path, files);
  await index.finished;
  const server = await startViewServer({ files, paged: index });
  servers.push(server);
  const api = pagedApi(new URL('api/', server.url.split('#')[0]));
  const texts: Record<string, string> = {};
  for (const f of files) texts[f.path] = readFileSync(f.file, 'utf8');
  return { api, index, whole: await openModel(texts) };
}

/** What a person sees of a row: key, kind, title, detail, depth, latency and outcome. */
const seen = (row: Row) => ({
  key: row.key,
  kind: row.kind,
  title: rowTitle(row),
  detail: rowDetail(row),
  depth: row.depth,
  latency: row.exchange?.latencyMs,
  outcome: row.exchange?.outcome,
  time: row.time,
  lineNo: row.lineNo,
});

async function pagedRows(api: PagedApi, query: LineQuery = {}): Promise<Row[]> {
  const builder = new PagedRows();
  const out: Row[] = [];
  for (let from = 0; ; from += 7) {
    const page = await api.rows(query, from, 7);
    out.push(...page.rows.map((row) => builder.row(row)));
    if (from + 7 >= page.total) return out;
  }
}

describe('a paged trace', () => {
  let sample: Awaited<ReturnType<typeof both>>;
  let everything: Awaited<ReturnType<typeof both>>;
  beforeAll(async () => {
    const file = join(dir, 'calc.jsonl');
    writeFileSync(file, SAMPLE);
    sample = await both(file);
    everything = await both(MCP_TAPE);
  });

  it('reads as the same rows as the trace loaded whole, a page at a time', async () => {
    for (const { api, whole } of [sample, everything]) {
      const info = await api.info();
      expect(info.done).toBe(true);
      expect(info.rows).toBe(whole.rows().length);
      expect((await pagedRows(api)).map(seen)).toEqual(whole.rows().map(seen));
    }
  });

  it('keeps a request with its answer, its parent and its children, progress included', async () => {
    const rows = await pagedRows(everything.api);
    const long = rows.find((r) => r.kind === 'request' && rowTitle(r).includes('trigger-long-running'))!;
    expect(progressOf(long.exchange!)).toMatchObject({ progress: 4, total: 4, fraction: 1, count: 4 });
    expect(long.exchange!.children.map((c) => c.kind === 'notification' && c.notification.method)).toEqual(
      Array(4).fill('notifications/progress'),
    );
    const sampling = rows.find((r) => r.kind === 'request' && rowTitle(r) === 'sampling/createMessage')!;
    expect(sampling.exchange!.parent?.method).toBe('tools/call');
    expect(sampling.exchange!.via).toBe('open-request');
    expect(sampling.exchange!.response?.result).toBeDefined();
  });

  it('filters on the server as the viewer filters the whole trace', async () => {
    // One query, asked of the server and of the viewer's own filter.
    const cases: LineQuery[] = [
      { tool: 'long' },
      { method: 'resources' },
      { dir: 'out' },
      { errors: true },
      { q: 'sum of 1 and 2' },
      { q: 'SUM OF' },
      { q: 'Step \\d', regex: true },
    ];
    for (const { api, whole } of [sample, everything]) {
      for (const query of cases) {
        const expected = filterRows(whole.rows(), compileFilter(query), () => '').map((r) => r.key);
        expect(
          (await pagedRows(api, query)).map((r) => r.key),
          JSON.stringify(query),
        ).toEqual(expected);
      }
    }
    const bad = await sample.api.rows({ q: '(', regex: true }, 0, 10);
    expect(bad.total).toBe(0);
    expect(bad.error).toMatch(/regular expression/i);
  });

  it('answers a search’s first page before its count, and both agree with the trace loaded whole', async () => {
    // Queries no other test asks (the server keeps each query's counted view, which then answers at once), of
    // texts both ways of searching find in the same rows (the server searches a line's message as written, the
    // viewer a request's method, params and answer).
    const cases: LineQuery[] = [
      { q: 'k' },
      { q: 'V' },
      { q: 'um' },
      { q: 'Ad', dir: 'in' },
      { q: 'ol', errors: false },
      { q: 'st' },
      { q: 'ta' },
      { q: 'Step \\d|sum', regex: true },
      { q: 'no such text anywhere' },
    ];
    let early = 0;
    for (const { api, whole } of [sample, everything]) {
      for (const query of cases) {
        const label = JSON.stringify(query);
        const expected = filterRows(whole.rows(), compileFilter(query), () => '').map((r) => r.key);
        const builder = new PagedRows();
        const first = await api.rows(query, 0, 3, true);
        expect(
          first.rows.map((r) => builder.row(r).key),
          label,
        ).toEqual(expected.slice(0, 3));
        expect(first.rows.map((r) => r.n)).toEqual(first.rows.map((_, i) => i));
        if (first.counted === false) {
          early++;
          // Only the rows found so far: the first page's, never more than the view holds.
          expect(first.total, label).toBe(3);
          expect(expected.length, label).toBeGreaterThanOrEqual(3);
        } else expect(first.total, label).toBe(expected.length);
        const counted = await api.rows(query, 0, 0);
        expect(counted.counted, label).toBe(true);
        expect(counted.rows).toEqual([]);
        expect(counted.total, label).toBe(expected.length);
        // Once counted, a page asked early is the counted view's.
        const next = await api.rows(query, 3, 3, true);
        expect(next.counted, label).toBe(true);
        expect(
          next.rows.map((r) => builder.row(r).key),
          label,
        ).toEqual(expected.slice(3, 6));
      }
    }
    // The first page came before the count for most of them (not for a text no row holds).
    expect(early).toBeGreaterThanOrEqual(8);
  });

  it('counts failures per failing call and steps from one to the next as the viewer does on the whole trace', async () => {
    const stdio = await both(STDIO_SESSION);
    for (const { api, whole } of [sample, everything, stdio]) {
      for (const query of [{}, { errors: true }, { dir: 'out' }] satisfies LineQuery[]) {
        const rows = filterRows(whole.rows(), compileFilter(query), () => '');
        // From nothing selected, and from every row of the view.
        for (let i = -1; i < rows.length; i++) {
          const key = i < 0 ? undefined : rows[i]!.key;
          const at = await api.errors(query, key, 0);
          const expected = errorPosition(rows, i);
          expect({ count: at.count, at: at.at ?? undefined }, `${key} ${JSON.stringify(query)}`).toEqual(
            expected,
          );
          for (const step of [1, -1] as const) {
            const next = nextError(rows, i, step);
            const answer = await api.errors(query, key, step);
            expect(answer.target?.key, `${key} ${step}`).toBe(
              next === undefined ? undefined : rows[next]!.key,
            );
            expect(answer.target?.n).toBe(next);
          }
        }
      }
    }
    // Two failing calls, four red rows: two failures.
    expect((await stdio.api.errors({}, undefined, 0)).count).toBe(2);
  });

  it('finds a row by key, and its place in a filtered view', async () => {
    const found = await everything.api.find({ tool: 'long' }, '0.37');
    expect(found?.row.key).toBe('0.37');
    const shown = filterRows(everything.whole.rows(), compileFilter({ tool: 'long' }), () => '');
    expect(found?.n).toBe(shown.findIndex((r) => r.key === '0.37'));
    expect(found?.n).toBeGreaterThan(0);
    expect(await everything.api.find({}, '0.99999')).toBeUndefined();
    expect((await everything.api.find({}, '0.end'))?.row.kind).toBe('end');
  });

  it('draws the waterfall’s bars and overview as the viewer draws them from the whole trace', async () => {
    const { api, whole } = everything;
    const expected = waterfallOf(whole.rows(), whole.start()).bars;
    const page = await api.bars({}, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 0, 1000);
    expect(page.total).toBe(expected.length);
    expect(
      page.bars.map((b) => [
        b.key,
        b.label,
        b.depth,
        b.start,
        b.end ?? undefined,
        b.outcome,
        b.guess,
        b.marks.length,
      ]),
    ).toEqual(
      expected.map((b) => [b.key, b.label, b.depth, b.start, b.end, b.outcome, b.guess, b.marks.length]),
    );
    const t0 = whole.start()!;
    const zoomed = await api.bars({}, t0 + 1000, t0 + 2600, 0, 1000);
    expect(zoomed.total).toBeGreaterThan(0);
    expect(zoomed.total).toBeLessThan(page.total);
    const counts = await api.density({}, 100);
    expect(counts).toHaveLength(100);
    expect(Math.max(...counts)).toBeGreaterThan(0);
  });

  it('gives the Tools view the figures and tool time the whole trace gives', async () => {
    const { api, whole } = everything;
    const { stats, toolTimes: times, samples } = await api.stats();
    const source = whole.sources[0]!;
    expect(stats).toEqual(source.statistics());
    const expected = toolTimes(tallyTools(source.exchanges));
    expect(times.map((t) => [t.name, t.calls, t.totalMs, t.errors, t.share.toFixed(6)])).toEqual(
      expected.map((t) => [t.name, t.calls, t.totalMs, t.errors, t.share.toFixed(6)]),
    );
    expect(samples.find((s) => s.tool === 'echo')?.values).toHaveLength(1);
  });

  it('exports a filtered view as JSONL that opens as a trace', async () => {
    const response = await fetch(sample.api.exportUrl({ tool: 'add' }));
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="calc-filtered.jsonl"');
    const exported = await response.text();
    const again = await openModel({ 'd0/calc-filtered.jsonl': exported });
    expect(again.sources[0]!.diagnostics).toEqual([]);
    expect(again.rows().map((r) => r.kind)).toEqual(['request', 'notification', 'response', 'end']);
    // A batch is one line however many of its items are rows: the whole trace comes back line for line.
    const [meta, ...rest] = (await (await fetch(sample.api.exportUrl({}))).text()).trimEnd().split('\n');
    const [sampleMeta, ...sampleLines] = SAMPLE.trimEnd().split('\n');
    expect(rest).toEqual(sampleLines);
    // The meta line says who wrote the file, as every tapedeck export does.
    expect(JSON.parse(meta!)).toEqual({
      ...JSON.parse(sampleMeta!),
      producer: { name: 'tapedeck', version: expect.any(String) },
    });
  });

  it('stitches a rotated trace, keeping each row’s file and line', async () => {
    const rotated = writeRotatedTrace(dir);
    const { api, whole } = await both(rotated.files[1]!);
    expect((await pagedRows(api)).map((r) => [r.key, r.file, r.lineNo])).toEqual(
      whole.rows().map((r) => [r.key, r.file, r.lineNo]),
    );
  });
});

describe('whether tapedeck view pages a trace', () => {
  it('pages one big native trace, and not small ones, several, or other formats', async () => {
    const file = join(dir, 'small.jsonl');
    writeFileSync(file, SAMPLE);
    expect(await pagingPlan([file], [file], undefined)).toEqual({ paged: false, note: undefined });
    expect(await pagingPlan([file], [file], undefined, 100)).toEqual({ paged: true, note: undefined });
    expect(await pagingPlan([file], [file], true)).toEqual({ paged: true, note: undefined });
    expect(await pagingPlan([file], [file], false, 100)).toEqual({ paged: false, note: undefined });
    expect((await pagingPlan([file, MCP_TAPE], [file, MCP_TAPE], undefined, 100)).note).toMatch(
      /^\d.* across 2 traces: the browser reads them whole; name the biggest alone to have it paged$/,
    );
    await expect(pagingPlan([file, MCP_TAPE], [file, MCP_TAPE], true)).rejects.toThrow(
      '--paged shows one trace at a time; got 2: name one',
    );
    const mcporter = join(
      import.meta.dirname,
      '..',
      'fixtures',
      'interop',
      'mcporter',
      'everything-get-sum.ndjson',
    );
    await expect(pagingPlan([mcporter], [mcporter], true)).rejects.toThrow(
      /--paged reads tapedeck or mcp-tape JSONL/,
    );
    expect(await pagingPlan([mcporter], [mcporter], undefined, 10)).toEqual({
      paged: false,
      note: undefined,
    });
    expect(PAGED_DEFAULTS.fromBytes).toBe(256 * 1024 * 1024);
    expect(text(file)).toBe(SAMPLE);
  });

  it('pages a trace of many small messages however few bytes it holds', async () => {
    const file = join(dir, 'small.jsonl');
    writeFileSync(file, SAMPLE);
    const lines = SAMPLE.split('\n').filter((line) => line !== '').length;
    expect(await estimateLines(file, Buffer.byteLength(SAMPLE))).toBe(lines);
    // Under the byte threshold by far, at the message threshold: paged; one message under it: whole.
    expect(await pagingPlan([file], [file], undefined, 1e9, lines)).toEqual({ paged: true, note: undefined });
    expect(await pagingPlan([file], [file], undefined, 1e9, lines + 1)).toEqual({
      paged: false,
      note: undefined,
    });
    // A file bigger than the sample is counted by its first megabyte, scaled to its size.
    const big = join(dir, 'many.jsonl');
    const line = `${JSON.stringify({ t: '2026-01-01T00:00:00.000Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', method: 'ping' } })}\n`;
    const count = Math.ceil((3 * 1024 * 1024) / line.length);
    writeFileSync(big, line.repeat(count));
    const estimate = await estimateLines(big, count * line.length);
    expect(Math.abs(estimate - count) / count).toBeLessThan(0.01);
    expect(PAGED_DEFAULTS.fromMessages).toBe(80_000);
  });
});
