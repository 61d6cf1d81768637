/**
 * Production recording of a stdio server, as docs/production.md's one-liner does it: an SDK 1.x `McpServer` with
 * `instrument(server)` (no options: trace files under $TAPEDECK_DIR) or a files destination, driven by a client for
 * well under the flush interval. A stdio server is one process per client session, and it usually ends without
 * anyone calling shutdown(): stdin closes and the event loop runs dry, or a signal arrives. Either way the trace
 * must be whole, with its end line — and a host's own signal handler and exit code must be kept.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, readTrace, removeTempDir } from '../helpers/peers.js';
import { fixtureServer, spawnTapedeck, waitFor } from '../helpers/proxy.js';
import { firstText } from './peers.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('tapedeck-instrument-stdio-');
});
afterEach(() => removeTempDir(dir));

const SERVER = fixtureServer('instrumented-server.mjs');
/** A ceiling for the server's answer, not a budget: on a loaded machine a process start alone takes seconds. */
const ANSWER_MS = 45_000;
const env = () => ({
  PATH: process.env.PATH ?? '',
  TAPEDECK_DIR: join(dir, 'default'),
  HOME: join(dir, 'home'),
});

/** The one trace file in `folder`, read line by line. */
function onlyTrace(folder: string) {
  const files = readdirSync(folder).filter((name) => name.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  const path = join(folder, files[0]!);
  return { path, lines: readTrace(path) };
}

function expectWhole(lines: ReturnType<typeof readTrace>) {
  expect(lines[0]?.type).toBe('meta');
  expect(lines.at(-1)?.type).toBe('end');
  const methods = lines
    .filter((line) => line.type === undefined && line.dir === 'in')
    .map((line) => (line as { raw: { method?: string } }).raw.method);
  expect(methods).toEqual(['initialize', 'tools/call']);
}

async function sdkSession(args: string[]) {
  const client = new Client({ name: 'instrument-loop', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: SERVER[0]!, args: [...SERVER.slice(1), ...args], env: env() }),
  );
  expect(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
  await client.close();
}

describe('instrument() on a stdio server, a session shorter than the flush interval', () => {
  it('with no options writes a whole trace (0600, end line) under $TAPEDECK_DIR, which show and replay read', async () => {
    await sdkSession([]);
    const { path, lines } = onlyTrace(join(dir, 'default'));
    expectWhole(lines);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const show = await spawnTapedeck(['show', path]).done;
    expect(show.stdout.toString()).toContain('tools/call echo #1');
    expect(show.code).toBe(0);
    const replay = spawnTapedeck(['replay', path]);
    replay.child.stdin.end(
      [
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'hi' } },
        },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    const replayed = await replay.done;
    expect(replayed.stdout.toString()).toContain('"text":"Echo: hi"');
    expect(replayed.stderr).toContain('replayed 2/2 exchanges');
    expect(replayed.code).toBe(0);
  });

  it('with a files destination writes the same whole trace there, though no flush ever ran', async () => {
    // An hour-long flush interval: however slow the machine, the session ends before the first flush, so what is
    // in the file was written on the way out.
    await sdkSession(['--files', join(dir, 'files'), '--flush-interval', String(60 * 60 * 1000)]);
    expectWhole(onlyTrace(join(dir, 'files')).lines);
  });
});

/** The server driven with JSON lines, then sent `signal` with its stdin still open. */
async function killedSession(args: string[], signal: NodeJS.Signals) {
  const child = spawn(SERVER[0]!, [...SERVER.slice(1), ...args], {
    env: env(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    out += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  child.stdin.write(
    [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'killer', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
    ]
      .map((m) => `${JSON.stringify(m)}\n`)
      .join(''),
  );
  // The signal comes once the answer is out: the session is over but stdin is still open.
  await waitFor(
    () => out.includes('Echo: hi') || child.exitCode !== null,
    ANSWER_MS,
    'the answer to tools/call echo',
  );
  child.kill(signal);
  return exited;
}

describe('instrument() on a stdio server killed by a signal', () => {
  it('writes the whole trace, then dies of the signal as it would have (SIGTERM)', async () => {
    const exit = await killedSession(['--files', join(dir, 'files')], 'SIGTERM');
    expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
    expectWhole(onlyTrace(join(dir, 'files')).lines);
  });

  it("keeps the host's own SIGTERM handler and its exit code, and still writes the whole trace", async () => {
    const marker = join(dir, 'host-term.txt');
    const exit = await killedSession(['--host-term', marker], 'SIGTERM');
    expect(readFileSync(marker, 'utf8')).toBe('term\n');
    expect(exit).toEqual({ code: 3, signal: null });
    expectWhole(onlyTrace(join(dir, 'default')).lines);
  });
});
