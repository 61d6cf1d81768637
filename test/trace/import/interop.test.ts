import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TraceFormat } from '../../../src/trace/import/opened.js';
import { loadTrace } from '../../../src/trace/io.js';
import { isMessageLine, type MessageLine } from '../../../src/trace/types.js';

const INTEROP = fileURLToPath(new URL('../../fixtures/interop/', import.meta.url));

/** Every fixture file and the format it must be detected as. A file missing here fails the suite: no silent skips. */
const EXPECTED: Record<string, TraceFormat> = {
  'era2026/era2026-http-exchanges.json': 'http-exchanges',
  'era2026/era2026-http.jsonl': 'mcp-tape',
  'era2026/era2026-stdio-sibling-probe.jsonl': 'mcp-tape',
  'era2026/era2026-stdio-sibling-session.jsonl': 'mcp-tape',
  'era2026/era2026-stdio.jsonl': 'mcp-tape',
  'mcp-tape/everything-stdio.jsonl': 'mcp-tape',
  'mcporter/everything-get-sum.ndjson': 'mcporter',
  'mcporter/everything-long-running.ndjson': 'mcporter',
  'shack/my_session.json': 'shack',
};

function fixtureFiles(dir = INTEROP): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return fixtureFiles(path);
    return name === 'README.md' ? [] : [relative(INTEROP, path)];
  });
}

function messages(entries: { line: unknown }[]): MessageLine[] {
  return entries.map((e) => e.line as MessageLine).filter((line) => isMessageLine(line));
}

describe('interop fixtures', () => {
  it('has an expectation for every fixture file', () => {
    expect(fixtureFiles().sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('imports %s as %s without complaint', async (file, format) => {
    const trace = await loadTrace(join(INTEROP, file), { mode: 'strict' });
    expect(trace.format).toBe(format);
    expect(trace.diagnostics).toEqual([]);
    expect(messages(trace.entries).length).toBeGreaterThan(0);
    const seqs = trace.entries.flatMap((e) => (e.line.type === 'end' ? [] : [e.line.seq]));
    expect(seqs.every((seq, i) => typeof seq === 'number' && (i === 0 || seq > (seqs[i - 1] ?? 0)))).toBe(
      true,
    );
    expect(trace.entries.at(-1)?.line.type).toBe('end');
  });

  it('gives mcp-tape lines seq 1, 2, … in file order and keeps their fields', async () => {
    const trace = await loadTrace(join(INTEROP, 'mcp-tape/everything-stdio.jsonl'));
    expect(trace.meta).toMatchObject({
      type: 'meta',
      label: 'everything',
      startedAt: '2026-11-29T20:41:07.000Z',
    });
    const first = trace.entries[0];
    expect(first?.lineNo).toBe(2);
    expect(Object.keys(first?.line ?? {})).toEqual(['t', 'seq', 'dir', 'raw']);
    expect(first?.line).toMatchObject({ seq: 1, dir: 'in', raw: { method: 'initialize', id: 0 } });
    const end = trace.entries.at(-1)?.line;
    expect(end).toMatchObject({ type: 'end', exitCode: 0, durationMs: 14142 });
  });

  it('imports mcporter NDJSON as messages plus connect/disconnect events, _meta stripped', async () => {
    const trace = await loadTrace(join(INTEROP, 'mcporter/everything-get-sum.ndjson'));
    expect(trace.meta).toMatchObject({
      label: 'everything',
      server: 'everything',
      startedAt: '2026-11-29T20:51:26.684Z',
      importedFrom: 'mcporter',
    });
    const lines = trace.entries.map((e) => e.line);
    expect(lines[0]).toEqual({
      t: '2026-11-29T20:51:26.684Z',
      seq: 1,
      type: 'event',
      name: 'connect',
      server: 'everything',
      method: '$transport/start',
    });
    expect(lines[1]).toMatchObject({
      seq: 2,
      dir: 'in',
      server: 'everything',
      t: '2026-11-29T20:51:26.693Z',
    });
    const raws = messages(trace.entries).map((m) => m.raw as Record<string, unknown>);
    expect(raws.every((raw) => !('_meta' in raw))).toBe(true);
    expect(raws.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }] },
    });
    expect(lines.at(-2)).toMatchObject({ type: 'event', name: 'disconnect', method: '$transport/close' });
    expect(lines.at(-1)).toEqual({
      t: '2026-11-29T20:51:27.000Z',
      type: 'end',
      durationMs: 316,
      reason: 'imported',
      counts: { in: 4, out: 4, events: 2 },
    });
  });

  it('imports a shack trajectory with synthesized ids so requests and responses pair', async () => {
    const trace = await loadTrace(join(INTEROP, 'shack/my_session.json'));
    expect(trace.meta).toMatchObject({ label: 'my_session', startedAt: '2026-11-29T12:00:00.000Z' });
    expect(messages(trace.entries).map((m) => [m.dir, m.t, m.raw])).toEqual([
      [
        'in',
        '2026-11-29T12:00:01.000Z',
        {
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 'search', arguments: { q: 'typescript mcp' } },
          id: 1,
        },
      ],
      ['out', '2026-11-29T12:00:01.000Z', { jsonrpc: '2.0', id: 1, result: { hits: ['doc1', 'doc2'] } }],
      [
        'in',
        '2026-11-29T12:00:02.500Z',
        {
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 'search', arguments: { q: 'replay' } },
          id: 2,
        },
      ],
      ['out', '2026-11-29T12:00:02.500Z', { jsonrpc: '2.0', id: 2, result: { hits: [] } }],
    ]);
    expect(trace.entries.at(-1)?.line).toMatchObject({ type: 'end', reason: 'imported', durationMs: 2500 });
  });

  it('imports HTTP exchanges as http envelope lines plus the messages of the bodies, SSE included', async () => {
    const trace = await loadTrace(join(INTEROP, 'era2026/era2026-http-exchanges.json'));
    expect(trace.meta).toMatchObject({ transport: 'http', startedAt: '2026-11-29T21:16:34.000Z' });
    const lines = trace.entries.map((e) => e.line);
    expect(
      lines.slice(0, 4).map((l) => [l.type ?? 'message', 'dir' in l ? l.dir : '', 'conn' in l ? l.conn : '']),
    ).toEqual([
      ['http', 'in', '1'],
      ['message', 'in', '1'],
      ['http', 'out', '1'],
      ['message', 'out', '1'],
    ]);
    expect(lines[0]).toMatchObject({ method: 'POST', headers: { 'mcp-method': 'server/discover' } });
    expect(lines[2]).toMatchObject({ status: 200 });
    const out = messages(trace.entries).filter((m) => m.dir === 'out');
    const methods = out.map((m) => (m.raw as { method?: string }).method).filter(Boolean);
    expect(methods).toContain('notifications/subscriptions/acknowledged');
    const refused = lines.find((l) => l.type === 'http' && l.status === 405);
    const request = lines.find((l) => l.type === 'http' && l.dir === 'in' && l.conn === refused?.conn);
    expect(request).toMatchObject({ method: 'GET', label: expect.any(String) });
  });
});
