import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toMcporter } from '../../src/trace/export/mcporter.js';
import { toTapedeck } from '../../src/trace/export/tapedeck.js';
import { memoryTraceFiles } from '../../src/trace/import/files.js';
import { openTraceWith } from '../../src/trace/import/open.js';
import type { OpenedTrace, TraceEntry } from '../../src/trace/import/opened.js';

const FIXTURES = ['everything-get-sum.ndjson', 'everything-long-running.ndjson'];
const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/interop/mcporter/${name}`, import.meta.url)), 'utf8');

async function open(text: string, name = 'rec.ndjson'): Promise<OpenedTrace> {
  return openTraceWith(memoryTraceFiles({ [name]: text }), name);
}

async function lines(trace: OpenedTrace): Promise<TraceEntry['line'][]> {
  const out: TraceEntry['line'][] = [];
  for await (const entry of trace.lines()) out.push(entry.line);
  return out;
}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const chunk of chunks) all += chunk;
  return all;
}

const parsed = (ndjson: string) =>
  ndjson
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

const rec = (dir: string, server: string, ts: string, body: object) =>
  JSON.stringify({ ...body, _meta: { dir, server, ts } });

describe('mcporter import', () => {
  it('puts the server on every line of a multi-server recording and labels the trace with all of them', async () => {
    const ndjson = [
      rec('lifecycle', 'alpha', '2026-01-01T00:00:00.000Z', { jsonrpc: '2.0', method: '$transport/start' }),
      rec('lifecycle', 'beta', '2026-01-01T00:00:00.100Z', { jsonrpc: '2.0', method: '$transport/start' }),
      rec('send', 'alpha', '2026-01-01T00:00:00.200Z', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      rec('send', 'beta', '2026-01-01T00:00:00.210Z', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      rec('recv', 'beta', '2026-01-01T00:00:00.300Z', { jsonrpc: '2.0', id: 1, result: { tools: [] } }),
      rec('recv', 'alpha', '2026-01-01T00:00:00.400Z', {
        jsonrpc: '2.0',
        id: 1,
        result: { tools: [{ name: 'a' }] },
      }),
      rec('lifecycle', 'alpha', '2026-01-01T00:00:01.000Z', { jsonrpc: '2.0', method: '$transport/close' }),
      rec('lifecycle', 'beta', '2026-01-01T00:00:01.500Z', { jsonrpc: '2.0', method: '$transport/close' }),
    ].join('\n');
    const trace = await open(`${ndjson}\n`);
    expect(trace.format).toBe('mcporter');
    expect(trace.meta).toMatchObject({ label: 'alpha, beta', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(trace.meta.server).toBeUndefined();
    const all = await lines(trace);
    expect(all.map((l) => [l.seq, l.type ?? l.dir, 'server' in l ? l.server : undefined])).toEqual([
      [1, 'event', 'alpha'],
      [2, 'event', 'beta'],
      [3, 'in', 'alpha'],
      [4, 'in', 'beta'],
      [5, 'out', 'beta'],
      [6, 'out', 'alpha'],
      [7, 'event', 'alpha'],
      [8, 'event', 'beta'],
      [undefined, 'end', undefined],
    ]);
    expect(all.at(-1)).toMatchObject({ durationMs: 1500, reason: 'imported' });
    // Round trip keeps each line with its server.
    expect(parsed(await text(toMcporter(trace)))).toEqual(parsed(ndjson));
  });

  it("strips only mcporter's top-level _meta, never the message's own params._meta or result._meta", async () => {
    const body = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'x', _meta: { progressToken: 7, dir: 'send', server: 'fake', ts: 'not ours' } },
    };
    const trace = await open(`${rec('send', 'alpha', '2026-01-01T00:00:00.000Z', body)}\n`);
    const [first] = await lines(trace);
    expect(first).toMatchObject({ dir: 'in', raw: body });
  });

  it('gives each connection its own conn when a server reconnects, so ids 0, 1 … do not pair across them', async () => {
    const start = { jsonrpc: '2.0', method: '$transport/start' };
    const ndjson = [
      rec('lifecycle', 's', '2026-01-01T00:00:00.000Z', start),
      rec('send', 's', '2026-01-01T00:00:00.001Z', { jsonrpc: '2.0', id: 0, method: 'initialize' }),
      rec('lifecycle', 's', '2026-01-01T00:00:00.002Z', { jsonrpc: '2.0', method: '$transport/close' }),
      rec('lifecycle', 's', '2026-01-01T00:00:00.003Z', start),
      rec('send', 's', '2026-01-01T00:00:00.004Z', { jsonrpc: '2.0', id: 0, method: 'initialize' }),
    ].join('\n');
    const all = await lines(await open(ndjson));
    expect(all.slice(0, 5).map((l) => ('conn' in l ? l.conn : undefined))).toEqual(['1', '1', '1', '2', '2']);
  });

  it('reports lines without the envelope or with an unknown dir, by line number', async () => {
    const ndjson = [
      rec('send', 's', '2026-01-01T00:00:00.000Z', { jsonrpc: '2.0', id: 0, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 0, result: {} }),
      rec('sideways', 's', '2026-01-01T00:00:00.000Z', { jsonrpc: '2.0' }),
    ].join('\n');
    const trace = await open(ndjson, 'x.ndjson');
    await lines(trace);
    expect(trace.diagnostics.map((d) => d.message)).toEqual([
      'x.ndjson:2: not an mcporter line: expected a JSON-RPC object with _meta {dir, server, ts}',
      'x.ndjson:3: _meta.dir must be "send", "recv" or "lifecycle", got "sideways"',
    ]);
  });

  it('is detected by content, whatever the file is called', async () => {
    const trace = await open(fixture('everything-get-sum.ndjson'), 'recording.txt');
    expect(trace.format).toBe('mcporter');
  });
});

describe('mcporter export', () => {
  it.each(FIXTURES)(
    'round-trips %s: import then export gives the same records, byte for byte',
    async (name) => {
      const original = fixture(name);
      const exported = await text(toMcporter(await open(original)));
      expect(parsed(exported)).toEqual(parsed(original));
      expect(exported).toBe(original);
    },
  );

  it.each(FIXTURES)('round-trips %s through a tapedeck file too', async (name) => {
    const jsonl = await text(toTapedeck(await open(fixture(name))));
    const again = await openTraceWith(memoryTraceFiles({ 't.jsonl': jsonl }), 't.jsonl');
    expect(again.format).toBe('tapedeck');
    expect(parsed(await text(toMcporter(again)))).toEqual(parsed(fixture(name)));
  });

  it('writes a tapedeck stdio trace with lifecycle lines around it, server from the meta, other lines left out', async () => {
    const jsonl = [
      {
        v: 1,
        type: 'meta',
        startedAt: '2026-01-01T00:00:00.000Z',
        label: 'everything',
        producer: { name: 'tapedeck' },
      },
      { t: '2026-01-01T00:00:00.001Z', seq: 1, type: 'event', name: 'spawn', pid: 4 },
      { t: '2026-01-01T00:00:00.010Z', seq: 2, dir: 'in', raw: { jsonrpc: '2.0', id: 0, method: 'ping' } },
      { t: '2026-01-01T00:00:00.011Z', seq: 3, type: 'stderr', text: 'hello' },
      { t: '2026-01-01T00:00:00.020Z', seq: 4, dir: 'out', raw: [{ jsonrpc: '2.0', id: 0, result: {} }, 5] },
      { t: '2026-01-01T00:00:00.030Z', type: 'end', durationMs: 30, reason: 'process_exit' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const dropped: string[] = [];
    const trace = await openTraceWith(memoryTraceFiles({ 't.jsonl': jsonl }), 't.jsonl');
    const out = parsed(
      await text(toMcporter(trace, { onDropped: (e, why) => dropped.push(`${e.lineNo}: ${why}`) })),
    );
    expect(out).toEqual([
      {
        jsonrpc: '2.0',
        method: '$transport/start',
        _meta: { dir: 'lifecycle', server: 'everything', ts: '2026-01-01T00:00:00.000Z' },
      },
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'ping',
        _meta: { dir: 'send', server: 'everything', ts: '2026-01-01T00:00:00.010Z' },
      },
      {
        jsonrpc: '2.0',
        id: 0,
        result: {},
        _meta: { dir: 'recv', server: 'everything', ts: '2026-01-01T00:00:00.020Z' },
      },
      {
        jsonrpc: '2.0',
        method: '$transport/close',
        _meta: { dir: 'lifecycle', server: 'everything', ts: '2026-01-01T00:00:00.030Z' },
      },
    ]);
    expect(dropped).toEqual([
      '2: event "spawn" has no mcporter equivalent',
      '4: stderr lines have no mcporter equivalent',
      "5: a message that is not a JSON object cannot carry mcporter's _meta",
    ]);
  });
});
