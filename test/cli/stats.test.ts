import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { traceStats } from '../../src/cli/commands/stats.js';
import { run } from '../../src/cli/main.js';
import { renderStats } from '../../src/report/text/stats-report.js';
import { computeStats, percentile, type TraceStats, utf8Length } from '../../src/trace/stats.js';
import type { TraceLine } from '../../src/trace/types.js';
import { memoryIo } from '../helpers/cli.js';

const interop = join(import.meta.dirname, '..', 'fixtures', 'interop');
const mcpTape = join(interop, 'mcp-tape', 'everything-stdio.jsonl');

/** Runs the CLI in-process against an in-memory CliIo and returns what it printed. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = memoryIo();
  const code = await run(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

function fileBytes(path: string, dir: 'in' | 'out'): number {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => JSON.parse(text) as TraceLine)
    .filter((line) => line.type === undefined && line.dir === dir)
    .reduce((sum, line) => sum + Buffer.byteLength(JSON.stringify((line as { raw: unknown }).raw)), 0);
}

describe('stats of the mcp-tape fixture', () => {
  let stats: TraceStats;
  beforeAll(async () => {
    stats = await traceStats(mcpTape);
  });

  it('knows the session, the server and its protocol version', () => {
    expect(stats).toMatchObject({
      version: 1,
      label: 'everything',
      startedAt: '2026-11-29T20:41:07.000Z',
      endedAt: '2026-11-29T20:41:21.142Z',
      durationMs: 14142,
      ended: true,
      exitCode: 0,
      orphanResponses: 0,
      unanswered: [],
    });
    expect(stats.servers).toEqual([
      {
        server: null,
        name: 'mcp-servers/everything',
        title: 'Everything Reference Server',
        version: '2.0.0',
        protocolVersion: '2025-11-25',
        era: 'initialize',
      },
    ]);
  });

  it('counts messages and UTF-8 bytes per direction', () => {
    expect(stats.messages.in).toMatchObject({ messages: 31, requests: 26, responses: 4, notifications: 1 });
    expect(stats.messages.out).toMatchObject({ messages: 46, requests: 4, responses: 26, notifications: 16 });
    expect(stats.messages.in.bytes).toBe(fileBytes(mcpTape, 'in'));
    expect(stats.messages.out.bytes).toBe(fileBytes(mcpTape, 'out'));
  });

  it('gives calls and latency percentiles per method, both directions', () => {
    const method = (dir: string, name: string) =>
      stats.methods.find((m) => m.dir === dir && m.method === name);
    expect(method('in', 'tools/call')).toMatchObject({ calls: 16, errors: 0, unanswered: 0 });
    expect(method('in', 'tools/call')?.latencyMs).toEqual({ count: 16, p50: 2, p95: 2005, max: 2005 });
    expect(method('in', 'initialize')?.latencyMs).toEqual({ count: 1, p50: 354, p95: 354, max: 354 });
    expect(method('out', 'elicitation/create')).toMatchObject({ calls: 2, latencyMs: { p50: 1, max: 12 } });
    expect(method('out', 'roots/list')?.calls).toBe(1);
  });

  it('gives the same per tool', () => {
    const tool = (name: string) => stats.tools.find((t) => t.name === name);
    expect(stats.tools).toHaveLength(14);
    expect(tool('trigger-long-running-operation')).toMatchObject({ calls: 1, latencyMs: { p50: 2005 } });
    expect(tool('toggle-simulated-logging')?.calls).toBe(2);
  });

  it('counts notifications per method', () => {
    expect(stats.notifications).toContainEqual({
      server: null,
      dir: 'out',
      method: 'notifications/progress',
      count: 4,
    });
  });

  it('renders a report', () => {
    const report = renderStats(stats, { color: false });
    expect(report).toContain(
      '  server    mcp-servers/everything 2.0.0 "Everything Reference Server" · protocol 2025-11-25',
    );
    expect(report).toContain('  duration  14.142s  (ended, exit 0)');
    expect(report).toMatch(/ {2}→ tools\/call +16 +0 +0 +2ms +2005ms +2005ms\n/);
    expect(report).toMatch(/ {2}trigger-long-running-operation +1 +0 +0 +2005ms +2005ms +2005ms\n/);
    expect(report).not.toContain('unanswered\n');
  });
});

describe('stats of other traces', () => {
  it('reads the 2026 era: serverInfo from _meta, unanswered listen, MRTR rounds', async () => {
    const stats = await traceStats(join(interop, 'era2026', 'era2026-stdio.jsonl'));
    expect(stats.servers).toEqual([
      {
        server: null,
        name: 'era-scratch-server',
        title: null,
        version: '0.0.1',
        protocolVersion: '2026-07-28',
        era: 'discover',
      },
    ]);
    expect(stats.unanswered).toEqual([
      {
        server: null,
        conn: null,
        dir: 'in',
        id: 'listen:0',
        method: 'subscriptions/listen',
        tool: null,
        t: '2026-11-29T21:17:08.600Z',
        cancelled: true,
      },
    ]);
    expect(stats.tools.find((t) => t.name === 'deploy')).toMatchObject({ calls: 3, inputRequired: 2 });
    expect(renderStats(stats, { color: false })).toContain(
      '  → subscriptions/listen #"listen:0" (cancelled)',
    );
  });

  it('reads an mcporter recording (server named per line)', async () => {
    const stats = await traceStats(join(interop, 'mcporter', 'everything-long-running.ndjson'));
    expect(stats.servers.map((s) => [s.server, s.name])).toEqual([['everything', 'mcp-servers/everything']]);
    expect(stats.tools).toMatchObject([
      { server: 'everything', name: 'trigger-long-running-operation', calls: 1 },
    ]);
    expect(stats.lines.events).toBe(2);
  });

  it('counts JSON-RPC errors and tool errors apart, and orphans', async () => {
    const t = '2026-01-01T00:00:00.000Z';
    const stats = await computeStats([
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } } },
      { t, dir: 'out', raw: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } } },
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a' } } },
      { t, dir: 'out', raw: { jsonrpc: '2.0', id: 2, result: { isError: true, content: [] } } },
      { t, dir: 'out', raw: { jsonrpc: '2.0', id: 3, result: {} } },
    ]);
    expect(stats.tools).toMatchObject([{ name: 'a', calls: 2, errors: 1, toolErrors: 1 }]);
    expect(stats.orphanResponses).toBe(1);
    expect(stats.ended).toBe(false);
    expect(stats.durationMs).toBe(0);
  });
});

describe('stats helpers', () => {
  it('measures UTF-8 without encoding', () => {
    for (const text of ['', 'abc', 'é', '✅', '😀 x', '\ud800'])
      expect(utf8Length(text)).toBe(Buffer.byteLength(text));
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(percentile([7], 0.5)).toBe(7);
  });
});

describe('tapedeck stats', () => {
  it('prints a report', async () => {
    const { code, stdout, stderr } = await cli(['stats', mcpTape]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('requests\n  method ');
    expect(stdout).toContain('tools\n  tool ');
  });

  it('prints stable JSON with --json', async () => {
    const first = await cli(['stats', mcpTape, '--json']);
    const second = await cli(['stats', '--json', mcpTape]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    const parsed = JSON.parse(first.stdout) as TraceStats;
    expect(Object.keys(parsed)).toEqual([
      'version',
      'label',
      'startedAt',
      'endedAt',
      'durationMs',
      'ended',
      'endReason',
      'exitCode',
      'servers',
      'messages',
      'lines',
      'methods',
      'tools',
      'notifications',
      'unanswered',
      'orphanResponses',
    ]);
  });

  it('says which file is missing, in one line', async () => {
    const { code, stdout, stderr } = await cli(['stats', 'missing-trace.jsonl']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^tapedeck: .*missing-trace\.jsonl.*\n$/);
  });
});

describe('stats of a trace written without redaction', () => {
  it('hides a secret in a tool name even where the report wraps the name over two rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-stats-'));
    try {
      // Another producer's trace, unredacted: the name is longer than the tool column of an 80-column report.
      const secret = `ghp_${'Q7'.repeat(18)}`;
      const file = join(dir, 'unredacted.jsonl');
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: `lookup-${secret}` } };
      const answer = { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } };
      writeFileSync(
        file,
        [
          { t: '2026-12-06T09:00:00.001Z', seq: 1, dir: 'in', raw: call },
          { t: '2026-12-06T09:00:00.002Z', seq: 2, dir: 'out', raw: answer },
        ]
          .map((line) => JSON.stringify(line))
          .join('\n'),
      );
      for (const args of [
        ['stats', file],
        ['stats', '--json', file],
      ]) {
        const io = memoryIo({ env: { COLUMNS: '80', NO_COLOR: '1' } });
        await run(args, io);
        expect(io.stdout.text).toContain('lookup-[REDACTED:github-token]');
        expect(io.stdout.text).not.toContain('Q7Q7');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
