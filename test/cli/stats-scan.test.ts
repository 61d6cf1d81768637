import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { traceStats } from '../../src/cli/commands/stats.js';
import { openTrace } from '../../src/trace/io.js';
import { KEPT_KEYS, scanMessageLine } from '../../src/trace/line-scan.js';
import type { TraceDiagnostic } from '../../src/trace/reader.js';
import { computeStats, type TraceStats, utf8Length } from '../../src/trace/stats.js';
import type { TraceLine } from '../../src/trace/types.js';

// `tapedeck stats` reads message lines from their bytes (line-scan.ts) and parses only what it counts. These tests
// hold it to the ordinary reader: every line parsed whole and paired, as stats read traces before.

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const recorded = [
  ...readdirSync(join(fixtures, 'viewer')).map((name) => join(fixtures, 'viewer', name)),
  ...readdirSync(join(fixtures, 'interop', 'era2026')).map((name) =>
    join(fixtures, 'interop', 'era2026', name),
  ),
  join(fixtures, 'interop', 'mcp-tape', 'everything-stdio.jsonl'),
].filter((path) => path.endsWith('.jsonl'));

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-stats-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Statistics as every line parsed whole gives them (the reader without its scan), with its diagnostics. */
async function reference(path: string): Promise<{ stats: TraceStats; diagnostics: string[] }> {
  const diagnostics: string[] = [];
  const trace = await openTrace(path, { onDiagnostic: (d) => diagnostics.push(d.message) });
  const lines = async function* (): AsyncGenerator<TraceLine> {
    let segment = trace.segments[0]?.segment ?? 0;
    yield trace.meta;
    for await (const entry of trace.lines()) {
      if (entry.segment !== segment) {
        segment = entry.segment;
        const meta = trace.segments.find((s) => s.segment === segment)?.meta;
        if (meta) yield meta;
      }
      yield entry.line;
    }
  };
  return { stats: await computeStats(lines()), diagnostics };
}

async function scanned(path: string): Promise<{ stats: TraceStats; diagnostics: string[] }> {
  const diagnostics: string[] = [];
  const stats = await traceStats(path, (d: TraceDiagnostic) => diagnostics.push(d.message));
  return { stats, diagnostics };
}

function write(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const META = JSON.stringify({
  v: 1,
  type: 'meta',
  startedAt: '2026-01-01T00:00:00.000Z',
  label: 'edges',
  kind: 'mcp',
  producer: { name: 'tapedeck', version: 'test' },
});

let seq = 0;
function msg(dir: 'in' | 'out', raw: unknown, extra: Record<string, unknown> = {}): string {
  seq++;
  const t = new Date(Date.parse('2026-01-01T00:00:00.000Z') + seq * 7).toISOString();
  return JSON.stringify({ t, seq, dir, ...extra, raw });
}

describe('stats read from the bytes agree with stats of every line parsed', () => {
  it.each(recorded.map((path) => [path.slice(fixtures.length + 1), path]))(
    'on the recording %s',
    async (_, path) => {
      const expected = await reference(path);
      const actual = await scanned(path);
      expect(actual.stats).toEqual(expected.stats);
      expect(actual.diagnostics).toEqual(expected.diagnostics);
      expect(actual.stats.messages.in.messages + actual.stats.messages.out.messages).toBeGreaterThan(0);
    },
  );

  it('on errors, tool errors, batches, notifications, cancellations, unanswered calls and several servers', async () => {
    const lines = [
      META,
      msg('in', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } }),
      msg('out', {
        jsonrpc: '2.0',
        id: 0,
        result: {
          protocolVersion: '2025-11-25',
          serverInfo: { name: 'é-server', version: '1' },
          capabilities: {},
        },
      }),
      msg('in', { jsonrpc: '2.0', method: 'notifications/initialized' }),
      msg('in', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'a "quoted"\n line\t' } },
      }),
      msg('out', {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'ünïcödé 😀' }], isError: true },
      }),
      msg('in', {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow', _meta: { progressToken: 'p2' } },
      }),
      msg('out', {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p2', progress: 0.5 },
      }),
      msg('in', {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 2, reason: 'bored' },
      }),
      msg('in', { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'x://y' } }),
      msg('out', {
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32002, message: 'not found', data: { uri: 'x://y' } },
      }),
      msg('in', [
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } },
        { jsonrpc: '2.0', id: 5, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      ]),
      msg('out', [
        { jsonrpc: '2.0', id: 5, result: {} },
        {
          jsonrpc: '2.0',
          id: 4,
          result: { content: [], structuredContent: { n: 1.5e-7, big: 1.2345678901234567e19 } },
        },
      ]),
      msg('out', { jsonrpc: '2.0', id: 99, result: {} }),
      msg('in', { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'never' } }),
      msg('in', { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { server: 'other' }),
      msg('out', { jsonrpc: '2.0', id: 7, result: { tools: [] } }, { server: 'other' }),
      msg(
        'in',
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo' } },
        { server: 'third', conn: 'c2' },
      ),
      msg('in', { jsonrpc: '2.0', id: null, method: 'bad/id' }),
      msg('in', { jsonrpc: '2.0', what: 'neither' }),
      msg('in', []),
      msg('in', [[{ jsonrpc: '2.0', id: 8, method: 'ping' }]]),
      msg('in', 'just a string'),
      msg('in', { jsonrpc: '2.0', id: 9, method: 'server/discover' }, { server: 'disc' }),
      msg(
        'out',
        {
          jsonrpc: '2.0',
          id: 9,
          result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'disc' } } },
        },
        { server: 'disc' },
      ),
      JSON.stringify({ t: '2026-01-01T00:00:09.000Z', seq: 900, type: 'stderr', text: 'a log line' }),
      JSON.stringify({
        t: '2026-01-01T00:00:09.500Z',
        seq: 901,
        type: 'event',
        name: 'disconnect',
        server: 'third',
        conn: 'c2',
      }),
      JSON.stringify({
        t: '2026-01-01T00:00:10.000Z',
        type: 'end',
        durationMs: 10000,
        reason: 'process_exit',
        exitCode: 0,
      }),
    ];
    const path = write('edges.jsonl', lines);
    const expected = await reference(path);
    const actual = await scanned(path);
    expect(actual.stats).toEqual(expected.stats);
    expect(actual.diagnostics).toEqual(expected.diagnostics);
    // The case is what it claims to be: each kind of figure is there.
    expect(actual.stats.methods.some((m) => m.errors > 0 && m.method === 'resources/read')).toBe(true);
    expect(actual.stats.tools.find((t) => t.name === 'echo')?.toolErrors).toBe(1);
    expect(actual.stats.unanswered.map((u) => u.id)).toEqual(expect.arrayContaining([2, 6]));
    expect(actual.stats.unanswered.find((u) => u.id === 2)?.cancelled).toBe(true);
    expect(actual.stats.orphanResponses).toBe(1);
    expect(actual.stats.messages.in.invalid).toBeGreaterThan(2);
    expect(actual.stats.servers.map((s) => s.name)).toEqual(['é-server', 'disc']);
  });

  it('on lines written otherwise than tapedeck writes them, and on broken ones', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { n: id } },
    });
    const answer = (id: number) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: `ok ${id}` }] },
    });
    const t = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const lines = [
      META,
      // Whitespace between tokens: the message's bytes in the file are not JSON.stringify's.
      `{ "t": "${t(1)}", "seq": 1, "dir": "in", "raw": ${JSON.stringify(call(1), null, 2).replace(/\n/g, ' ')} }`,
      // Escapes JSON.stringify would not write, and numbers written otherwise.
      `{"t":"${t(1)}","seq":2,"dir":"out","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\\u0041\\/b"}],"n":1.0,"m":1E3,"z":-0}}}`,
      // A duplicate key: the last one counts, and the message is one key shorter when written back.
      `{"t":"${t(2)}","seq":3,"dir":"in","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","name":"b"}}}`,
      `{"t":"${t(2)}","seq":4,"dir":"out","raw":{"jsonrpc":"2.0","id":2,"id":2,"result":{}}}`,
      `{"t":"${t(3)}","seq":5,"dir":"in","dir":"out","raw":${JSON.stringify(answer(9))}}`,
      // A BOM-less but CRLF-ended line, a blank line, and lines that are not JSON or not message lines.
      `${msg('in', call(3))}\r`,
      '',
      '   ',
      `{"t":"${t(3)}","seq":8,"dir":"in","raw":{"jsonrpc":"2.0","id":3,`,
      `{"t":"${t(3)}","seq":9,"dir":"sideways","raw":{}}`,
      `{"t":5,"seq":10,"dir":"in","raw":{}}`,
      `{"t":"${t(3)}","seq":1.5,"dir":"in","raw":{}}`,
      `{"t":"${t(4)}","seq":11,"dir":"in"}`,
      `{"t":"${t(4)}","seq":12,"dir":"out","raw":${JSON.stringify(answer(3))}}`,
      `{"t":"${t(4)}","seq":13,"type":"future-kind","dir":"in","raw":{}}`,
      `{"t":"${t(4)}","seq":14,"dir":"in","raw":{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"name":"p"}}}}`,
      `{"t":"${t(4)}","seq":15,"dir":"in","raw":${'['.repeat(1200)}${']'.repeat(1200)}}`,
      `{"t":"${t(4)}","seq":16,"dir":"in","raw":{"jsonrpc":"2.0","method":"ctl","params":{"s":"a\tb"}}}`,
      `{"t":"${t(5)}","seq":17,"dir":"in","raw":{"jsonrpc":"2.0","id":"17","method":"tools/call","params":{"name":"echo","arguments":{"deep":${'{"a":'.repeat(300)}1${'}'.repeat(300)}}}}}`,
      `{"t":"${t(5)}","seq":18,"dir":"out","raw":{"jsonrpc":"2.0","id":"17","result":{"isError":true}}}`,
      `{"t":"${t(5)}","seq":2,"dir":"in","raw":{"jsonrpc":"2.0","method":"notifications/late"}}`,
    ];
    const path = write('written-otherwise.jsonl', lines);
    const bytes = Buffer.concat([
      readFileSync(path),
      Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x0a]),
    ]);
    writeFileSync(path, Buffer.concat([bytes, Buffer.from(msg('in', call(40)).slice(0, 30))]));
    const expected = await reference(path);
    const actual = await scanned(path);
    expect(actual.stats).toEqual(expected.stats);
    expect(actual.diagnostics).toEqual(expected.diagnostics);
    // The broken lines were there to be reported: corrupt, cut off, not UTF-8, too deep, out of order, no end.
    expect(actual.diagnostics.length).toBeGreaterThanOrEqual(8);
    expect(actual.diagnostics.join('\n')).toMatch(/not valid UTF-8/);
    expect(actual.diagnostics.join('\n')).toMatch(/nested deeper/);
  });
  it('on a rotated trace, its segments stitched and a call answered in the next segment', async () => {
    const segmentMeta = (n: number) =>
      JSON.stringify({
        ...JSON.parse(META),
        label: 'calls',
        traceId: 'T1',
        segment: n,
        startedAt: `2026-01-01T00:0${n}:00.000Z`,
      });
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `t${id % 2}` },
    });
    const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [], isError: id === 3 } });
    write('calls.2.jsonl', [segmentMeta(0), msg('in', call(1)), msg('out', answer(1)), msg('in', call(2))]);
    write('calls.1.jsonl', [segmentMeta(1), msg('out', answer(2)), msg('in', call(3))]);
    const path = write('calls.jsonl', [
      segmentMeta(2),
      msg('out', answer(3)),
      msg('in', call(4)),
      JSON.stringify({ t: '2026-01-01T00:03:00.000Z', type: 'end', durationMs: 180000 }),
    ]);
    const expected = await reference(path);
    const actual = await scanned(path);
    expect(actual.stats).toEqual(expected.stats);
    expect(actual.diagnostics).toEqual(expected.diagnostics);
    expect(actual.stats.tools.reduce((n, t) => n + t.calls, 0)).toBe(4);
    expect(actual.stats.unanswered.map((u) => u.id)).toEqual([4]);
  });
});

describe('scanMessageLine', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  /** What the scanner says of a line must be what JSON.parse says of it, or it must decline. */
  function agrees(text: string): boolean {
    const found = scanMessageLine(encode(text));
    if (found === undefined) return false;
    const parsed = JSON.parse(text) as { raw: unknown; [key: string]: unknown };
    expect(found.rawBytes).toBe(utf8Length(JSON.stringify(parsed.raw)));
    const { raw, ...envelope } = found.line;
    const { raw: fullRaw, ...fullEnvelope } = parsed;
    expect(envelope).toEqual(fullEnvelope);
    expect(raw).toEqual(reduce(fullRaw));
    return true;
  }

  /** A message as the scanner reduces it: params and result keep KEPT_KEYS only. */
  function reduce(raw: unknown): unknown {
    if (Array.isArray(raw)) return raw.map((item) => (isPlain(item) ? reduceOne(item) : item));
    return isPlain(raw) ? reduceOne(raw) : raw;
  }
  function reduceOne(message: Record<string, unknown>): unknown {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(message)) {
      out[key] =
        (key === 'params' || key === 'result') && isPlain(value)
          ? Object.fromEntries(Object.entries(value).filter(([k]) => KEPT_KEYS.has(k)))
          : value;
    }
    return out;
  }
  const isPlain = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);

  it('reads every message line of the recordings as JSON.parse does', () => {
    let taken = 0;
    for (const path of recorded) {
      for (const text of readFileSync(path, 'utf8').split('\n')) {
        if (text === '' || !text.includes('"raw"') || text.includes('"type"')) continue;
        expect(agrees(text)).toBe(true);
        taken++;
      }
    }
    expect(taken).toBeGreaterThan(100);
  });

  it('takes the escapes, numbers and characters JSON.stringify writes', () => {
    const line = JSON.stringify({
      t: '2026-01-01T00:00:00.000Z',
      seq: 3,
      dir: 'out',
      server: 'ß',
      raw: {
        jsonrpc: '2.0',
        id: 'a\u0001b',
        result: {
          isError: false,
          content: [{ text: 'tab\there "q" \\ \u001f 日本語 😀', n: [0, -1, 0.25, 1e21, 5e-7, -3.5e300] }],
          _meta: { k: [true, false, null] },
        },
      },
    });
    expect(agrees(line)).toBe(true);
  });

  it.each([
    ['whitespace', '{"t":"x","dir":"in","raw":{"id": 1}}'],
    ['an escaped slash', '{"t":"x","dir":"in","raw":{"a":"\\/"}}'],
    ['an escaped letter', '{"t":"x","dir":"in","raw":{"a":"\\u0041"}}'],
    ['an upper-case escape', '{"t":"x","dir":"in","raw":{"a":"\\u001F"}}'],
    ['a short escape written long', '{"t":"x","dir":"in","raw":{"a":"\\u000a"}}'],
    ['a lone surrogate', '{"t":"x","dir":"in","raw":{"a":"\\ud800"}}'],
    ['a number written long', '{"t":"x","dir":"in","raw":{"a":1.50}}'],
    ['a leading zero', '{"t":"x","dir":"in","raw":{"a":01}}'],
    ['minus zero', '{"t":"x","dir":"in","raw":{"a":-0}}'],
    ['an exponent', '{"t":"x","dir":"in","raw":{"a":1e2}}'],
    ['too many digits', '{"t":"x","dir":"in","raw":{"a":12345678901234567890}}'],
    ['a duplicate key', '{"t":"x","dir":"in","raw":{"a":{"b":1,"b":1}}}'],
    ['a type', '{"t":"x","type":"text","dir":"in","raw":{}}'],
    ['no raw', '{"t":"x","dir":"in"}'],
    ['a bad dir', '{"t":"x","dir":"up","raw":{}}'],
    ['a seq that is no integer', '{"t":"x","seq":1.5,"dir":"in","raw":{}}'],
    ['no t', '{"dir":"in","raw":{}}'],
    ['a control character', '{"t":"x","dir":"in","raw":{"a":"\t"}}'],
    ['a trailing comma', '{"t":"x","dir":"in","raw":{"a":[1,]}}'],
    ['text after the object', '{"t":"x","dir":"in","raw":{}} '],
    ['a cut-off line', '{"t":"x","dir":"in","raw":{"a":"'],
    ['an array', '[{"t":"x","dir":"in","raw":{}}]'],
    ['a __proto__ key', '{"t":"x","dir":"in","raw":{"__proto__":{}}}'],
  ])('declines %s', (_, text) => {
    expect(scanMessageLine(encode(text))).toBeUndefined();
  });

  it('declines bytes that are not UTF-8', () => {
    const bytes = encode('{"t":"x","dir":"in","raw":{"a":"__"}}');
    bytes[32] = 0xc3;
    bytes[33] = 0x28;
    expect(scanMessageLine(bytes)).toBeUndefined();
  });
});
