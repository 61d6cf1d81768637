import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { showTrace } from '../../src/cli/commands/show.js';
import { run } from '../../src/cli/main.js';
import { useColor } from '../../src/cli/terminal.js';
import { stripAnsi } from '../../src/report/text/color.js';
import { renderTimeline } from '../../src/report/text/timeline.js';
import { pairTrace } from '../../src/trace/pairing.js';
import { displayWidth } from '../../src/trace/text-width.js';
import type { TraceLine } from '../../src/trace/types.js';
import { memoryIo, TextSink } from '../helpers/cli.js';

const interop = join(import.meta.dirname, '..', 'fixtures', 'interop');
const mcpTape = join(interop, 'mcp-tape', 'everything-stdio.jsonl');

function lines(path: string): TraceLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((text) => text.trim() !== '')
    .map((text) => JSON.parse(text) as TraceLine);
}

/** Runs the CLI in-process against an in-memory CliIo and returns what it printed. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = memoryIo();
  const code = await run(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/**
 * The row that contains `text` (exactly one expected), with the lines it wrapped onto (they start with spaces and
 * no time), joined by single spaces.
 */
function entry(output: string, text: string): string {
  const all = output.split('\n');
  const at = all.findIndex((line) => line.includes(text));
  expect(at, `a row containing ${text}`).toBeGreaterThanOrEqual(0);
  let end = at + 1;
  // Continuation lines are indented and carry no time.
  while (end < all.length && /^ {3,}\S/.test(all[end]!) && !/^ *[+-]\d+\.\d{3}s /.test(all[end]!)) end++;
  return all
    .slice(at, end)
    .map((line) => line.trim())
    .join(' ');
}

/** The row that contains `text` (exactly one expected). */
function row(output: string, text: string): string {
  const found = output.split('\n').filter((line) => line.includes(text));
  expect(found, `rows containing ${text}`).toHaveLength(1);
  return found[0]!;
}

describe('the show timeline', () => {
  // Wide enough that no row of the fixture is cut; narrow terminals are tested below.
  const timeline = renderTimeline(pairTrace(lines(mcpTape)), { color: false, width: 160 });

  it('opens with the session and shows time offsets, arrows, ids and latencies', () => {
    expect(timeline.split('\n')[0]).toBe(
      'everything · node server-everything/dist/index.js stdio · started 2026-11-29T20:41:07.000Z',
    );
    expect(row(timeline, '→ initialize #0')).toMatch(
      /^ {2}\+0\.012s {2}→ initialize #0 +probe 0\.0\.1 · protocol 2025-11-25$/,
    );
    expect(row(timeline, '← initialize #0')).toContain('✓ 354ms');
    expect(row(timeline, '← initialize #0')).toContain('mcp-servers/everything 2.0.0');
  });

  it('names tools, resources and prompts', () => {
    expect(row(timeline, 'tools/call echo #5 ✓')).toMatch(/← tools\/call echo #5 ✓ 5ms +Echo: hello$/);
    expect(row(timeline, '→ resources/read demo://resource/dynamic/text/1 #22')).toBeTruthy();
    expect(row(timeline, '→ prompts/get simple-prompt #23')).toBeTruthy();
  });

  it('indents what the wire ties to a request under it, and sets a guess beside it, marked', () => {
    // Over stdio nothing names the tool call the sampling request came from: it only came while that call was open.
    expect(row(timeline, '← sampling/createMessage #1')).toMatch(
      /^ {2}\+3\.084s {2}← sampling\/createMessage #1 maybe for #14 /,
    );
    expect(row(timeline, '→ sampling/createMessage #1 ✓ 9ms')).toMatch(
      /^ {2}\+3\.093s {2}→ sampling\/createMessage #1 ✓ 9ms maybe for #14 /,
    );
    // Progress carries the call's token: certain, so indented under the call.
    expect(row(timeline, '← tools/call trigger-long-running-operation #13 ✓')).toMatch(
      /^ {2}\+\d+\.\d+s {2}←/,
    );
    const progress = timeline.split('\n').filter((line) => line.includes('notifications/progress'));
    expect(progress).toHaveLength(4);
    for (const line of progress) expect(line).toMatch(/ {4}← notifications\/progress +\d\/4$/);
    expect(row(timeline, '← roots/list #0')).toMatch(/^ {2}\+0\.730s {2}← roots\/list #0$/);
  });

  it('ends with the end line', () => {
    expect(timeline.trimEnd().split('\n').at(-1)).toBe(' +14.142s  ■ end · 14.142s · exit 0');
  });

  it('marks JSON-RPC errors, tool errors and unanswered requests', () => {
    const t = '2026-01-01T00:00:00.000Z';
    const trace: TraceLine[] = [
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } } },
      { t, dir: 'out', raw: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool: a' } } },
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } } },
      {
        t,
        dir: 'out',
        raw: { jsonrpc: '2.0', id: 2, result: { isError: true, content: [{ type: 'text', text: 'no' }] } },
      },
      { t, dir: 'in', raw: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'c' } } },
      { t, dir: 'out', raw: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } },
    ];
    const out = renderTimeline(pairTrace(trace), { color: false });
    expect(row(out, '← tools/call a #1')).toMatch(/✗ 0ms +error -32602 Unknown tool: a$/);
    expect(entry(out, '← ✗ error -32700')).toMatch(/Parse error \(about a message it could not read\)$/);
    const made = renderTimeline(
      pairTrace([
        { t, dir: 'in', raw: { jsonrpc: '2.0', id: 4, method: 'ping' } },
        {
          t,
          dir: 'out',
          raw: { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'upstream unreachable' } },
          producedBy: 'tapedeck',
        },
      ]),
      { color: false, width: 200 },
    );
    expect(row(made, '← ping #4')).toMatch(
      /error -32000 upstream unreachable \(from tapedeck, not the server\)$/,
    );
    expect(row(out, '← tools/call b #2')).toMatch(/✗ 0ms +tool error: no$/);
    expect(out).toContain('unanswered requests:');
    expect(row(out, 'never answered')).toContain('tools/call c #3');
  });

  it('shows stderr, text lines, events and batches', () => {
    const t = '2026-01-01T00:00:01.500Z';
    const trace: TraceLine[] = [
      { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'demo', transport: 'stdio' },
      { t, seq: 1, type: 'stderr', text: 'server listening on stdio' },
      { t, seq: 2, type: 'text', dir: 'out', text: 'Welcome banner' },
      { t, seq: 3, type: 'event', name: 'truncated', bytes: 20_000_000 },
      {
        t,
        seq: 4,
        dir: 'in',
        raw: [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: 2, method: 'ping' },
        ],
      },
    ];
    const out = renderTimeline(pairTrace(trace), { color: false });
    expect(out.split('\n')).toEqual([
      'demo · stdio · started 2026-01-01T00:00:00.000Z',
      '  +1.500s  stderr server listening on stdio',
      '  +1.500s  ← text Welcome banner',
      '  +1.500s  ⚑ truncated {"bytes":20000000}',
      '  +1.500s  → [batch 1] ping #1',
      '  +1.500s  → [batch 2] ping #2',
      'unanswered requests:',
      '  +1.500s  → [batch 1] ping #1        never answered',
      '  +1.500s  → [batch 2] ping #2        never answered',
      '',
    ]);
  });

  it('shows where each session starts, with its era and client', () => {
    const t = '2026-01-01T00:00:01.000Z';
    const trace: TraceLine[] = [
      { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'demo', transport: 'http' },
      {
        t,
        seq: 1,
        type: 'event',
        name: 'session',
        conn: 'k1',
        stream: 'h1',
        sessionId: 'k1',
        era: 'stateless',
        minted: true,
        protocolVersion: '2026-07-28',
        client: { name: 'probe', version: '1.0.0' },
      },
      {
        t,
        seq: 2,
        type: 'event',
        name: 'session',
        conn: 's-9',
        stream: 'h2',
        sessionId: 's-9',
        era: 'initialize',
      },
    ];
    const out = renderTimeline(pairTrace(trace), { color: false });
    expect(out.split('\n').slice(1, 3)).toEqual([
      '  +1.000s  ⚑ session k1 · stateless 2026-07-28 · probe 1.0.0',
      '  +1.000s  ⚑ session s-9 · initialize',
    ]);
  });

  it('colours only when asked, and fits a terminal width', () => {
    const coloured = renderTimeline(pairTrace(lines(mcpTape)), { color: true, width: 100 });
    const plain = renderTimeline(pairTrace(lines(mcpTape)), { color: false, width: 100 });
    expect(coloured).toContain('\u001b[');
    expect(stripAnsi(coloured)).toBe(plain);
    for (const line of plain.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(100);
  });
});

describe('colour decisions', () => {
  it('colours a TTY unless NO_COLOR is set to something', () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
  });
});

describe('tapedeck show', () => {
  it('prints the timeline of a trace file', async () => {
    const { code, stdout, stderr } = await cli(['show', mcpTape]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toContain('\u001b[');
    expect(row(stdout, '← tools/call trigger-long-running-operation #13')).toContain('✓ 2005ms');
  });

  it('reads every importable format', async () => {
    for (const file of [
      'mcporter/everything-get-sum.ndjson',
      'mcporter/everything-long-running.ndjson',
      'shack/my_session.json',
      'era2026/era2026-stdio.jsonl',
      'era2026/era2026-http.jsonl',
      'era2026/era2026-http-exchanges.json',
    ]) {
      const { code, stdout } = await cli(['show', join(interop, file)]);
      expect(code, file).toBe(0);
      expect(stdout, file).toMatch(/→ (initialize|server\/discover|tools\/call|tools\/list)\b.* #/);
    }
  });

  it('prints lines as JSONL with --raw', async () => {
    const { code, stdout } = await cli([
      'show',
      '--raw',
      join(interop, 'mcporter', 'everything-get-sum.ndjson'),
    ]);
    expect(code).toBe(0);
    const parsed = stdout
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text) as TraceLine);
    expect(parsed[0]).toMatchObject({ type: 'meta', label: 'everything' });
    expect(parsed.at(-1)).toMatchObject({ type: 'end', reason: 'imported' });
    expect(parsed.filter((line) => line.type === undefined)).toHaveLength(8);
  });

  it('says which file is missing', async () => {
    const { code, stderr } = await cli(['show', 'no/such/trace.jsonl']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^tapedeck: .*no\/such\/trace\.jsonl/);
    expect(stderr.split('\n')).toHaveLength(2);
  });
});

describe('tapedeck show --follow', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints lines as they are appended, waits out a half-written line, and stops at the end line', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-follow-'));
    const file = join(dir, 'live.jsonl');
    const all = readFileSync(mcpTape, 'utf8').split('\n');
    writeFileSync(file, `${all.slice(0, 3).join('\n')}\n`);
    const stdout = new TextSink();
    const done = showTrace(file, { follow: true }, { ...memoryIo(), stdout });
    await vi.waitFor(() => expect(stdout.text).toContain('← initialize #0'), { timeout: 5000 });
    const next = `${all[3]}\n`;
    appendFileSync(file, next.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stdout.text).not.toContain('notifications/initialized');
    appendFileSync(file, next.slice(20));
    await vi.waitFor(() => expect(stdout.text).toContain('→ notifications/initialized'), { timeout: 5000 });
    appendFileSync(file, `${all.slice(4).join('\n')}`);
    await done;
    expect(stdout.text).toContain('■ end · 14.142s');
  });

  it('stops when interrupted and reports what was still open', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-follow-'));
    const file = join(dir, 'live.jsonl');
    const all = readFileSync(mcpTape, 'utf8').split('\n');
    writeFileSync(file, `${all.slice(0, 2).join('\n')}\n`);
    const stdout = new TextSink();
    const stop = new AbortController();
    const done = showTrace(file, { follow: true }, { ...memoryIo(), stdout }, stop.signal);
    await vi.waitFor(() => expect(stdout.text).toContain('→ initialize #0'), { timeout: 5000 });
    stop.abort();
    await done;
    expect(stdout.text).toContain('unanswered requests:');
  });

  it('follows the recorder onto a new file when it rotates', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-follow-'));
    const file = join(dir, 'live.jsonl');
    const t = '2026-01-01T00:00:00.000Z';
    const meta = (segment: number) =>
      JSON.stringify({ v: 1, type: 'meta', startedAt: t, label: 'live', traceId: 'abc', segment });
    const request = JSON.stringify({
      t,
      seq: 1,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    writeFileSync(file, `${meta(0)}\n${request}\n`);
    const stdout = new TextSink();
    const done = showTrace(file, { follow: true }, { ...memoryIo(), stdout });
    await vi.waitFor(() => expect(stdout.text).toContain('→ tools/list #1'), { timeout: 5000 });
    renameSync(file, join(dir, 'live.1.jsonl'));
    const response = JSON.stringify({
      t,
      seq: 2,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 1, result: { tools: [] } },
    });
    const end = JSON.stringify({ t, type: 'end', durationMs: 5, reason: 'process_exit' });
    writeFileSync(file, `${meta(1)}\n${response}\n${end}\n`);
    await done;
    expect(stdout.text).toContain('── segment 1 ──');
    expect(stdout.text).toContain('← tools/list #1 ✓ 0ms');
    expect(stdout.text).not.toContain('unanswered');
  });
});
