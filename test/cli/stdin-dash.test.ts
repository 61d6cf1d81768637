/**
 * `-` names a trace read from standard input: the run's stdin (io.stdin), never the process's, so an in-process
 * run can pipe a trace in. One test per command that takes a trace that way.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeLine } from '../../src/trace/encode.js';
import type { Direction, Json } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { call, note, req, res, traceLines } from '../replay/helpers.js';

const io = useCliHarness('tapedeck-stdin-dash-', { env: { COLUMNS: '120', NO_COLOR: '1' } });

const INIT_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'piped', version: '1.0.0' },
};
const INIT_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: {} },
  serverInfo: { name: 'echo-server', version: '1.0.0' },
};
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** A recorded session: the handshake, then one echo call answered with `answer`. */
function session(answer: string): string {
  const steps: [Direction, Json][] = [
    ['in', req(0, 'initialize', INIT_PARAMS)],
    ['out', res(0, INIT_RESULT)],
    ['in', note('notifications/initialized')],
    ['in', req(1, 'tools/call', call('echo', { message: 'hi' }))],
    ['out', res(1, text(answer))],
  ];
  const lines = traceLines(steps);
  lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
  return lines.map(encodeLine).join('');
}

/** The run's stdin, holding `text` and then closed, as `cat trace.jsonl | tapedeck …` gives it. */
const piped = (text: string) => Readable.from([Buffer.from(text)]);

/** The lines of a JSON Lines text, parsed. */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('diff -', () => {
  it('reads the first trace from the run’s stdin and names it -', async () => {
    const b = join(io.dir, 'b.jsonl');
    writeFileSync(b, session('Echo: hello'));
    expect(await io.run(['diff', '-', b, '--json'], piped(session('Echo: hi')))).toBe(1);
    const diff = JSON.parse(io.stdout) as {
      a: { path: string };
      summary: { same: number; changed: number };
      items: { kind: string; target: string | null }[];
    };
    expect(diff.a.path).toBe('-');
    expect(diff.summary).toMatchObject({ same: 1, changed: 1 });
    expect(diff.items.find((item) => item.kind === 'changed')?.target).toBe('echo');
    expect(io.stderr).toBe('');
  });

  it('finds the same trace on stdin and in a file the same', async () => {
    const b = join(io.dir, 'b.jsonl');
    writeFileSync(b, session('Echo: hi'));
    expect(await io.run(['diff', b, '-'], piped(session('Echo: hi')))).toBe(0);
    expect(io.stdout).toContain('no differences: 2 requests in a, 2 in b, all the same');
  });

  it('refuses - for both sides in one line, exit 2: stdin holds one trace', async () => {
    expect(await io.run(['diff', '-', '-'], piped(session('Echo: hi')))).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: diff reads one trace from standard input (-), not both: save one of them to a file and name it\n',
    );
  });
});

describe('convert -', () => {
  it('converts the trace on the run’s stdin', async () => {
    expect(await io.run(['convert', '-', '--to', 'mcp-tape'], piped(session('Echo: hi')))).toBe(0);
    const lines = jsonLines(io.stdout);
    expect(lines[0]).toMatchObject({ type: 'meta', label: 'test' });
    expect(lines.at(-2)).toMatchObject({ dir: 'out', raw: { id: 1, result: text('Echo: hi') } });
    expect(lines.at(-1)).toMatchObject({ type: 'end' });
    expect(lines).toHaveLength(7);
  });
});

describe('report -', () => {
  it('embeds the trace on the run’s stdin in the page', async () => {
    const out = join(io.dir, 'report.html');
    expect(await io.run(['report', '-', '-o', out], piped(session('Echo: piped through stdin')))).toBe(0);
    expect(io.stdout).toMatch(/^tapedeck: wrote .*report\.html \(1 trace, \d+ KB\)/);
    expect(readFileSync(out, 'utf8')).toContain('Echo: piped through stdin');
  });

  it('refuses - twice in one line, exit 2', async () => {
    const out = join(io.dir, 'report.html');
    expect(await io.run(['report', '-', '-', '-o', out], piped(session('Echo: hi')))).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: report reads one trace from standard input (-), not several: save the others to files and name them\n',
    );
  });
});

describe('replay', () => {
  const requests = [
    req(0, 'initialize', INIT_PARAMS),
    note('notifications/initialized'),
    req(7, 'tools/call', call('echo', { message: 'hi' })),
  ];

  it('serves a stdio session on the run’s stdin and stdout', async () => {
    const cassette = join(io.dir, 'cassette.jsonl');
    writeFileSync(cassette, session('Echo: hi'));
    const input = requests.map((message) => `${JSON.stringify(message)}\n`).join('');
    expect(await io.run(['replay', cassette], piped(input))).toBe(0);
    const answers = jsonLines(io.stdout);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 0, result: INIT_RESULT },
      { jsonrpc: '2.0', id: 7, result: text('Echo: hi') },
    ]);
    expect(io.stderr).toBe('tapedeck: replayed 2/2 exchanges\n');
  });

  it('over stdio is refused in one line, exit 2: the session would find its stdin used up by the cassette', async () => {
    expect(await io.run(['replay', '-'], piped(session('Echo: hi')))).toBe(2);
    expect(io.stdout).toBe('');
    expect(io.stderr).toBe(
      "tapedeck: replay - reads the cassette from standard input, where a stdio session's requests come too: serve it over HTTP (replay - --http 127.0.0.1:0) or save it to a file\n",
    );
  });
});

describe('view -', () => {
  it('is refused in one line, exit 2, before stdin is read or anything listens: the browser reads files', async () => {
    expect(await io.run(['view', '-', '--no-open'], piped(session('Echo: hi')))).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: view serves trace files, and - (standard input) is none: save the trace to a file and name it, or write a page with tapedeck report - -o report.html\n',
    );
    expect(io.stdout).toBe('');
  });
});
