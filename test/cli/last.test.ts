/**
 * Finding the trace just recorded: `record` says where it writes, and `--last` picks the newest trace of the
 * recording folder (or of a folder given) for show, stats, view, report and replay. The end-to-end cases run the
 * built CLI (`npm run build` first).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { traceArguments } from '../../src/cli/flags/last.js';
import { memoryIo, useCliHarness } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';

/** The executable npm installs as `tapedeck` (package.json "bin"). */
const LAUNCHER = join(REPO_ROOT, 'dist', 'cli', 'tapedeck.cjs');

const io = useCliHarness('tapedeck-last-');

const INIT = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
})}\n`;

/** A finished recording of one initialize exchange, labelled and started at the given time. */
function trace(dir: string, label: string, startedAt: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${label}.jsonl`);
  const t = (ms: number) => new Date(Date.parse(startedAt) + ms).toISOString();
  const lines = [
    { v: 1, type: 'meta', startedAt, label, transport: 'stdio', kind: 'mcp', traceId: label },
    { t: t(1), seq: 1, dir: 'in', raw: JSON.parse(INIT) },
    {
      t: t(2),
      seq: 2,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', serverInfo: { name: label } } },
    },
    { t: t(3), type: 'end', durationMs: 3, reason: 'process_exit', counts: { in: 1, out: 1, errors: 0 } },
  ];
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}

describe('--last', () => {
  it('show --last shows the newest trace of the recording folder and says which one', async () => {
    const dir = join(io.dir, 'recorded');
    io.env.TAPEDECK_DIR = dir;
    trace(dir, 'monday', '2026-03-02T10:00:00.000Z');
    const newest = trace(dir, 'tuesday', '2026-03-03T10:00:00.000Z');
    trace(dir, 'sunday', '2026-03-01T10:00:00.000Z');
    expect(await io.run(['show', '--last'])).toBe(0);
    expect(io.stderr).toBe(`tapedeck: the newest trace: ${newest}\n`);
    expect(io.stdout).toMatch(/^tuesday · stdio/);
  });

  it('takes a folder in place of the trace: stats --last DIR', async () => {
    const dir = join(io.dir, 'elsewhere');
    trace(dir, 'a', '2026-03-01T10:00:00.000Z');
    trace(dir, 'b', '2026-03-05T10:00:00.000Z');
    expect(await io.run(['stats', '--last', dir, '--json'])).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ label: 'b' });
  });

  it('report --last writes the newest trace into the report', async () => {
    const dir = join(io.dir, 'r');
    trace(dir, 'old', '2026-03-01T10:00:00.000Z');
    trace(dir, 'fresh', '2026-03-09T10:00:00.000Z');
    const out = join(io.dir, 'report.html');
    expect(await io.run(['report', '--last', dir, '-o', out])).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('fresh');
    expect(html).not.toContain('"label":"old"');
  });

  it('refuses a file with --last, and says when a folder holds no trace', async () => {
    const file = trace(io.dir, 'x', '2026-03-01T10:00:00.000Z');
    expect(await io.run(['show', '--last', file])).toBe(2);
    expect(io.stderr).toMatch(
      /^tapedeck: --last picks the newest trace of a folder; '.*x\.jsonl' is not a folder/,
    );
    io.stderr = '';
    const empty = join(io.dir, 'empty');
    mkdirSync(empty);
    expect(await io.run(['stats', '--last', empty])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: --last: no traces in ${empty}\n`);
    io.stderr = '';
    expect(await io.run(['replay'])).toBe(2);
    expect(io.stderr).toBe(
      'tapedeck: replay needs a trace file, or --last for the newest trace of the recording folder\n',
    );
  });

  it('view DIR opens the newest traces of a folder (--newest N of them)', () => {
    const dir = join(io.dir, 'v');
    const names = ['a', 'b', 'c', 'd'].map((label, i) =>
      trace(dir, label, `2026-03-0${i + 1}T10:00:00.000Z`),
    );
    const cli = memoryIo({ env: io.env, cwd: io.cwd });
    expect(traceArguments([dir], {}, 'view', cli, 2)).toEqual([names[3], names[2]]);
    expect(cli.stderr.text).toBe(`tapedeck: the 2 newest traces of ${dir} (of 4)\n`);
    expect(traceArguments([names[0]!, dir], {}, 'view', cli, 1)).toEqual([names[0], names[3]]);
    const last = memoryIo({ env: { ...io.env, TAPEDECK_DIR: dir }, cwd: io.cwd });
    expect(traceArguments([], { last: true }, 'view', last, 5)).toEqual([names[3]]);
  });
});

describe('the built CLI', () => {
  it('record prints where the trace goes, once, and --quiet drops the line', async () => {
    const out = join(io.dir, 'traces');
    const echo = [process.execPath, '-e', 'process.stdin.pipe(process.stdout)'];
    const loud = spawnTapedeck(['record', '--out', out, '--label', 'loud', '--', ...echo]);
    loud.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const exit = await loud.done;
    expect(exit.code).toBe(0);
    const [line, ...rest] = exit.stderr.split('\n');
    expect(rest).toEqual(['']);
    const path = /^tapedeck: recording to (.+-loud\.jsonl)$/.exec(line ?? '')?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(true);
    const quiet = spawnTapedeck(['record', '--quiet', '--out', out, '--', ...echo]);
    quiet.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect((await quiet.done).stderr).toBe('');
  });

  it('record starts the server once (early, then handed to the recorder); replay --last serves the recording', async () => {
    const dir = join(io.dir, 'session');
    const starts = join(io.dir, 'starts.log');
    // A server that notes each start, then answers initialize.
    const server = [
      process.execPath,
      '-e',
      `require('fs').appendFileSync(${JSON.stringify(starts)}, 'start\\n');
       process.stdin.on('data', (d) => { const m = JSON.parse(String(d).split('\\n')[0]);
         process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { serverInfo: { name: 'noted' } } }) + '\\n'); });`,
    ];
    const recording = spawnTapedeck(['record', '--out', dir, '--', ...server]);
    recording.child.stdin.end(INIT);
    const recorded = await recording.done;
    expect(recorded.code).toBe(0);
    expect(JSON.parse(recorded.stdout.toString())).toMatchObject({
      id: 0,
      result: { serverInfo: { name: 'noted' } },
    });
    expect(readFileSync(starts, 'utf8')).toBe('start\n');
    // The installed executable (tapedeck.cjs) run directly, as npm links it: once, too.
    const launched = spawn(process.execPath, [LAUNCHER, 'record', '--quiet', '--out', dir, '--', ...server], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    launched.stdin.end(INIT);
    let answer = '';
    launched.stdout.on('data', (chunk: Buffer) => {
      answer += chunk;
    });
    const [code] = (await once(launched, 'close')) as [number];
    expect(code).toBe(0);
    expect(JSON.parse(answer)).toMatchObject({ id: 0, result: { serverInfo: { name: 'noted' } } });
    expect(readFileSync(starts, 'utf8')).toBe('start\nstart\n');

    const replay = spawnTapedeck(['replay', '--last', dir], { env: { ...process.env, TAPEDECK_DIR: '' } });
    replay.child.stdin.end(INIT.replace('"id":0', '"id":7'));
    const replayed = await replay.done;
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout.toString())).toMatchObject({
      id: 7,
      result: { serverInfo: { name: 'noted' } },
    });
    expect(replayed.stderr).toMatch(/^tapedeck: the newest trace: .*\.jsonl\n/);
  });
});
