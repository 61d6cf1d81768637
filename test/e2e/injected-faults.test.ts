/**
 * Faults injected by the built CLI, with the official SDK client over stdio: `tapedeck replay --fault` serving a
 * cassette, `tapedeck record --fault` between a live server-everything and the client, `tapedeck run --mode replay
 * --fault`, and a profile file with a timed disconnect. The named calls get their faults, every other call the
 * answer it gets without faults, the same seed the same faults; the recording keeps the server's answers with a
 * `fault` event beside each, and `show` marks the calls.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_SERVER, TAPEDECK_BIN } from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';
import { INTEROP } from '../replay/helpers.js';

const CASSETTE = `${INTEROP}mcp-tape/everything-stdio.jsonl`;
const echo = (message: string) => ({ name: 'echo', arguments: { message } });
const sum = { name: 'get-sum', arguments: { a: 1, b: 2 } };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-injected-faults-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An SDK client on `tapedeck <args…>`; `stderr()` is what tapedeck said so far. */
async function connect(args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAPEDECK_BIN, ...args],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'faults-e2e', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  await client.connect(transport);
  return { client, errors, stderr: () => stderr, closed: () => closed };
}

/** What a call came to: its result, or the error's code and message. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (result) => result,
    (error: { code?: number; message: string }) => ({
      failed: error.code ?? 'no code',
      message: error.message,
    }),
  );
}

/**
 * How long a call that must be answered may take: a ceiling, not a budget (a loaded machine is slow, not wrong).
 * Only a call whose fault leaves it unanswered (drop, malformed) gets a short timeout: its timeout is the outcome.
 */
const ANSWER_MS = 30_000;
const UNANSWERED_MS = 1000;

/** Waits (bounded) for the tapedeck process behind a closed client to have said its last line. */
async function until(predicate: () => boolean, ms = ANSWER_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('tapedeck replay --fault: the SDK client over stdio', () => {
  async function session(flags: string[]) {
    const run = await connect(['replay', CASSETTE, '--repeat', 'last', '--allow-unused', ...flags]);
    const calls: unknown[] = [];
    for (let i = 0; i < 8; i++) calls.push(await outcome(run.client.callTool(echo('hello'))));
    calls.push(await outcome(run.client.callTool(sum)));
    await run.client.close();
    await until(() => run.stderr().includes('replayed'));
    return { calls, stderr: run.stderr() };
  }

  it('faults the drawn share of the named calls, the same ones for the same seed; the rest as recorded', async () => {
    const plain = await session([]);
    const first = await session(['--fault', 'error=-32001@tools/call:echo%50', '--seed', '5']);
    const again = await session(['--fault', 'error=-32001@tools/call:echo%50', '--seed', '5']);
    expect(again.calls).toEqual(first.calls);
    const faulted = first.calls.filter((call) => (call as { failed?: number }).failed === -32001);
    expect(faulted.length).toBeGreaterThan(0);
    expect(faulted.length).toBeLessThan(8);
    // Every call the fault left alone is what the run without faults got.
    first.calls.forEach((call, i) => {
      if ((call as { failed?: number }).failed === undefined) expect(call).toEqual(plain.calls[i]);
    });
    expect(first.stderr).toContain('tapedeck: injecting 1 fault (seed 5): error=-32001@tools/call:echo%50');
    expect(
      first.stderr.match(/tapedeck: injected error -32001 on tools\/call echo \(id \d+\)/g),
    ).toHaveLength(faulted.length);
    expect(first.stderr).toContain(`${faulted.length} fault${faulted.length === 1 ? '' : 's'} injected`);
  });

  it('gives every kind to the call it names, each the same as over a live server', async () => {
    const plain = await session([]);
    const kinds = [
      'error=-32040@tools/call:echo#1',
      'tool-error@tools/call:echo#2',
      'latency=250@tools/call:echo#3',
      'duplicate@tools/call:echo#4',
      'malformed@tools/call:echo#5',
      'drop@tools/call:echo#6',
      'slow-stream=300/s@tools/call:echo#7',
      'disconnect@tools/call:get-sum',
    ];
    const run = await connect([
      'replay',
      CASSETTE,
      '--repeat',
      'last',
      '--allow-unused',
      ...kinds.flatMap((kind) => ['--fault', kind]),
    ]);
    const calls: unknown[] = [];
    const took: number[] = [];
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      // Calls #5 (malformed) and #6 (dropped) are never answered.
      const timeout = i === 4 || i === 5 ? UNANSWERED_MS : ANSWER_MS;
      calls.push(await outcome(run.client.callTool(echo('hello'), undefined, { timeout })));
      took.push(Date.now() - started);
    }
    const cut = await outcome(run.client.callTool(sum, undefined, { timeout: ANSWER_MS }));
    expect(calls[0]).toMatchObject({ failed: -32040 });
    expect(calls[1]).toMatchObject({ isError: true });
    expect(calls[2]).toEqual(plain.calls[2]);
    expect(took[2]).toBeGreaterThanOrEqual(240);
    expect(calls[3]).toEqual(plain.calls[3]);
    expect(run.errors.some((e) => /unknown message ID/i.test(e.message))).toBe(true);
    expect(calls[4]).toMatchObject({ failed: -32001 });
    expect(run.errors.some((e) => e instanceof SyntaxError)).toBe(true);
    expect(calls[5]).toMatchObject({ failed: -32001 });
    expect(calls[6]).toEqual(plain.calls[6]);
    expect(took[6]).toBeGreaterThanOrEqual(200);
    expect(calls[7]).toEqual(plain.calls[7]);
    expect(cut).toMatchObject({ message: expect.stringMatching(/connection closed/i) });
    await until(() => run.stderr().includes('replayed'));
    expect(run.stderr().match(/tapedeck: injected /g)).toHaveLength(8);
  });

  it('disconnects at the moment a YAML profile names: the client sees its server go', async () => {
    const profile = join(dir, 'faults.yaml');
    writeFileSync(
      profile,
      'seed: 3\nfaults:\n  - latency=1@tools/call\n  - after: 400ms\n    kind: disconnect\n',
    );
    const run = await connect([
      'replay',
      CASSETTE,
      '--repeat',
      'last',
      '--allow-unused',
      '--faults',
      profile,
    ]);
    expect(await outcome(run.client.callTool(echo('hello')))).toMatchObject({
      content: [{ text: 'Echo: hello' }],
    });
    await until(() => run.closed(), 3000);
    expect(run.closed()).toBe(true);
    expect(run.stderr()).toContain('tapedeck: injecting 2 faults (seed 3)');
    expect(run.stderr()).toMatch(/injected disconnect at \+0\.4\d\ds/);
  });
});

describe('tapedeck record --fault: live server-everything over stdio, the SDK client', () => {
  const FAULTS = [
    'error=-32050@tools/call:echo#1',
    'duplicate@tools/call:echo#2',
    'latency=250@tools/call:echo#3',
    'malformed@tools/call:echo#4',
    'drop@tools/call:echo#5',
    'slow-stream=300/s@tools/call:echo#6',
    'tool-error@tools/call:get-sum#1',
    'drop@prompts/get:never-asked',
  ];

  async function recordSession(trace: string, faults: string[]) {
    const flags = faults.flatMap((fault) => ['--fault', fault]);
    const run = await connect([
      'record',
      '--file',
      trace,
      ...flags,
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    ]);
    const calls: Record<string, unknown> = {};
    const timed: Record<string, number> = {};
    for (const [i, name] of ['error', 'duplicate', 'latency', 'malformed', 'drop', 'slow'].entries()) {
      const started = Date.now();
      const timeout = name === 'malformed' || name === 'drop' ? UNANSWERED_MS : ANSWER_MS;
      calls[name] = await outcome(run.client.callTool(echo(`call ${i + 1}`), undefined, { timeout }));
      timed[name] = Date.now() - started;
    }
    calls.toolError = await outcome(run.client.callTool(sum));
    calls.plain = await outcome(run.client.callTool(sum));
    await run.client.close();
    await until(() => readFileSync(trace, 'utf8').includes('"type":"end"'));
    return { calls, timed, errors: run.errors, stderr: run.stderr() };
  }

  it('gives each named call its fault and the others the live answers; the trace keeps the server’s answers', async () => {
    const plain = await recordSession(join(dir, 'plain.jsonl'), []);
    const trace = join(dir, 'faulted.jsonl');
    const faulted = await recordSession(trace, FAULTS);
    const { calls, timed } = faulted;
    expect(calls.error).toMatchObject({ failed: -32050 });
    expect(calls.duplicate).toEqual(plain.calls.duplicate);
    expect(faulted.errors.some((e) => /unknown message ID/i.test(e.message))).toBe(true);
    expect(calls.latency).toEqual(plain.calls.latency);
    expect(timed.latency).toBeGreaterThanOrEqual(240);
    expect(calls.malformed).toMatchObject({ failed: -32001 });
    expect(faulted.errors.some((e) => e instanceof SyntaxError)).toBe(true);
    expect(calls.drop).toMatchObject({ failed: -32001 });
    expect(calls.slow).toEqual(plain.calls.slow);
    expect(timed.slow).toBeGreaterThanOrEqual(200);
    expect(calls.toolError).toMatchObject({ isError: true });
    expect(calls.plain).toEqual(plain.calls.plain);

    const lines = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const events = lines.filter((line) => line.type === 'event' && line.name === 'fault');
    expect(events.map((e) => `${e.kind} ${e.target}`)).toEqual([
      'error echo',
      'duplicate echo',
      'latency echo',
      'malformed echo',
      'drop echo',
      'slow-stream echo',
      'tool-error get-sum',
    ]);
    // The server's own answers, all of them, whatever the client got.
    for (let i = 1; i <= 6; i++)
      expect(
        lines.some((line) => line.dir === 'out' && JSON.stringify(line.raw).includes(`Echo: call ${i}`)),
      ).toBe(true);
    expect(faulted.stderr).toContain(
      "tapedeck: warning: fault 'drop@prompts/get:never-asked' matched no request: the client never asked prompts/get never-asked",
    );

    const shown = spawnTapedeck(['show', trace]);
    const { stdout } = await shown.done;
    const rows = stdout.toString('utf8').split('\n');
    expect(rows.filter((row) => row.includes('⚡ fault'))).toHaveLength(7);
    expect(
      rows.find((row) => row.includes('← tools/call echo') && row.includes('client got error -32050')),
    ).toBeDefined();
    expect(
      rows.find((row) => row.includes('← tools/call get-sum') && row.includes('client got a tool error')),
    ).toBeDefined();
  });

  it('ends the server side on disconnect: the pending call fails and the client sees the connection close', async () => {
    const trace = join(dir, 'disconnect.jsonl');
    const run = await connect([
      'record',
      '--file',
      trace,
      '--fault',
      'disconnect@tools/call:echo#2',
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    ]);
    expect(await outcome(run.client.callTool(echo('one')))).toMatchObject({
      content: [{ text: 'Echo: one' }],
    });
    expect(await outcome(run.client.callTool(echo('two'), undefined, { timeout: ANSWER_MS }))).toMatchObject({
      message: expect.stringMatching(/connection closed/i),
    });
    await until(() => run.closed());
    expect(run.closed()).toBe(true);
    await until(() => readFileSync(trace, 'utf8').includes('"type":"end"'));
    const lines = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.name === 'fault')).toMatchObject([{ kind: 'disconnect', id: 2 }]);
  });

  it('refuses a bad spec before the server gets a byte: one line, exit 2', async () => {
    const run = spawnTapedeck([
      'record',
      '--file',
      join(dir, 'never.jsonl'),
      '--fault',
      'latency=soon',
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    ]);
    run.child.stdin.end();
    const exit = await run.done;
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe(
      "tapedeck: --fault 'latency=soon' has a bad value 'soon' for latency; expected latency=MS or latency=MS~JITTER (a number of ms, or a duration such as 1.5s)\n",
    );
  });
});

describe('tapedeck run --mode replay --fault', () => {
  it('injects into the served cassette; a MATCH naming nothing in it is a usage error', async () => {
    const copy = join(dir, 'run-cassette.jsonl');
    writeFileSync(copy, readFileSync(CASSETTE));
    const run = await connect([
      'run',
      '--cassette',
      copy,
      '--mode',
      'replay',
      '--allow-unused',
      '--fault',
      'tool-error@tools/call:get-sum',
    ]);
    expect(await outcome(run.client.callTool(sum))).toMatchObject({ isError: true });
    expect(await outcome(run.client.callTool(echo('hello')))).toMatchObject({
      content: [{ text: 'Echo: hello' }],
    });
    await run.client.close();

    const refused = spawnTapedeck([
      'run',
      '--cassette',
      copy,
      '--mode',
      'replay',
      '--fault',
      'drop@tools/call:nope',
    ]);
    refused.child.stdin.end();
    const exit = await refused.done;
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(
      /fault 'drop@tools\/call:nope' names tool 'nope', which the cassette never asks for/,
    );
  });
});
