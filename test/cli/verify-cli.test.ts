/**
 * `tapedeck verify` run in-process through the CLI harness against the configurable fixture server: what it
 * prints, and how its flags read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/main.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { Direction, Json } from '../../src/trace/types.js';
import { memoryIo, useCliHarness } from '../helpers/cli.js';
import { call, note, req, res, traceLines } from '../replay/helpers.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changed-server.mjs', import.meta.url));

const io = useCliHarness('tapedeck-verify-cli-');

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** Writes a cassette of `steps` (each a recorded message) into the harness folder and returns its path. */
function cassette(name: string, steps: [Direction, Json][]): string {
  const path = join(io.dir, name);
  const lines = traceLines(steps);
  lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
  writeFileSync(path, lines.map(encodeLine).join(''));
  return path;
}

describe('verify --timeout', () => {
  it('waits as long as the duration says: 1.5s is 1500 ms', async () => {
    const path = cassette('hang.jsonl', [
      ['in', req(5, 'tools/call', call('hang'))],
      ['out', res(5, text('done'))],
    ]);
    expect(await io.run(['verify', path, '--timeout', '1.5s', '--', process.execPath, SERVER])).toBe(1);
    expect(io.stdout).toContain(
      '✗ #0 tools/call hang (line 2)\n    no answer to tools/call within 1500 ms (raise --timeout if the server is just slow)\n',
    );
    expect(io.stdout).toContain('verified 1 exchange: 0 match, 1 differ\n');
  });
});

const INIT_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'recorder', version: '1.0.0' },
};
const INIT_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'changed-server', version: '1.0.0' },
};
/** The handshake, an add and a greet, answered as the fixture server answers unchanged. */
const SESSION: [Direction, Json][] = [
  ['in', req(0, 'initialize', INIT_PARAMS)],
  ['out', res(0, INIT_RESULT)],
  ['in', note('notifications/initialized')],
  ['in', req(1, 'tools/call', call('add', { a: 2, b: 3 }))],
  ['out', res(1, text('The sum of 2 and 3 is 5.'))],
  ['in', req(2, 'tools/call', call('greet', { name: 'Ada' }))],
  ['out', res(2, text('Hello, Ada!'))],
];

/** A stdout whose reader has gone away: every write fails with EPIPE, as `tapedeck verify … | head -1` sees it. */
class GoneReader extends Writable {
  writes = 0;
  override _write(_chunk: Buffer, _encoding: string, done: (err?: Error) => void): void {
    this.writes += 1;
    done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  }
}

describe('verify prints each verdict through the CLI writer', () => {
  const CHANGED = [
    '✗ #1 tools/call add {"a":2,"b":3} (line 5)',
    '    $.result.content[0].text',
    '      recorded "The sum of 2 and 3 is 5."',
    '      live     "The sum of 2 and 3 is 6."',
  ].join('\n');

  it('writes the verdicts, then the summary, to the run’s stdout and nothing to the process’s', async () => {
    const path = cassette('session.jsonl', SESSION);
    const processOut = vi.spyOn(process.stdout, 'write');
    try {
      expect(await io.run(['verify', path, '--', process.execPath, SERVER, '--change', 'add'])).toBe(1);
      expect(processOut).not.toHaveBeenCalled();
    } finally {
      processOut.mockRestore();
    }
    expect(io.stdout).toBe(`${CHANGED}\nverified 3 exchanges: 2 match, 1 differ\n`);
    expect(io.stderr).toBe('');
  });

  it('prints no verdicts when a document takes stdout (--json)', async () => {
    const path = cassette('session.jsonl', SESSION);
    expect(await io.run(['verify', path, '--json', '--', process.execPath, SERVER, '--change', 'add'])).toBe(
      1,
    );
    const report = JSON.parse(io.stdout) as { summary: { differ: number } };
    expect(report.summary.differ).toBe(1);
  });

  it('stops printing quietly when the reader went away, and still answers with the exit code', async () => {
    const path = cassette('session.jsonl', SESSION);
    const stdout = new GoneReader();
    const runIo = { ...memoryIo({ env: io.env, cwd: io.cwd }), stdout };
    expect(await run(['verify', path, '--', process.execPath, SERVER, '--change', 'add'], runIo)).toBe(1);
    // The first verdict found the reader gone; nothing more was tried, and no failure was reported.
    expect(stdout.writes).toBe(1);
    expect(runIo.stderr.text).toBe('');
  });
});

describe('verify -', () => {
  it('reads the cassette from the run’s stdin; the server it starts has stdin of its own', async () => {
    const path = cassette('session.jsonl', SESSION);
    const stdin = Readable.from([readFileSync(path)]);
    expect(await io.run(['verify', '-', '--', process.execPath, SERVER], stdin)).toBe(0);
    expect(io.stdout).toBe('verified 3 exchanges: 3 match, 0 differ\n');
  });

  it('refuses --update in one line, exit 2: there is no file to rewrite', async () => {
    const stdin = Readable.from([readFileSync(cassette('session.jsonl', SESSION))]);
    expect(await io.run(['verify', '-', '--update', '--', process.execPath, SERVER], stdin)).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: --update rewrites the cassette file, and - (standard input) is none: name the cassette file to update\n',
    );
  });
});

describe('verify without --', () => {
  it('starts the server command at the word after the cassette and passes every later word to it', async () => {
    const path = cassette('greet.jsonl', [
      ['in', req(1, 'tools/call', call('greet', { name: 'Ada' }))],
      ['out', res(1, text('Hello, Ada!'))],
    ]);
    const marker = join(io.dir, 'started.txt');
    // `--timeout 1` after the server's path is the server's (which ignores it): verify's own limit stays the
    // default, so the answer is in time; `--marker` shows the server got the words.
    const code = await io.run([
      'verify',
      path,
      '--json',
      process.execPath,
      SERVER,
      '--marker',
      marker,
      '--timeout',
      '1',
    ]);
    expect({ code, stderr: io.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(io.stdout)).toMatchObject({ summary: { match: 1, differ: 0 } });
    expect(readFileSync(marker, 'utf8')).toMatch(/^started \d+\n$/);
  });
});
