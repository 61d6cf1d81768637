/**
 * verifyCassette against a real (small) server process: the configurable fixture server, so a test can record
 * what it says as built and then change one answer, drop a tool, stall or die.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeSpawn } from '../../src/cli/node-spawn.js';
import { answerComparer } from '../../src/live/compare.js';
import { VERIFY_DEFAULTS, type VerifyOptions, verifyCassette } from '../../src/live/verify.js';
import { buildCassette } from '../../src/replay/cassette/cassette.js';
import { DEFAULT_NORMALIZATION } from '../../src/replay/cassette/normalize.js';
import type { Cassette } from '../../src/replay/cassette/types.js';
import { MemorySink } from '../../src/sink/memory.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import { newMeta } from '../../src/trace/meta.js';
import type { Direction, Json } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { ManualClock } from '../helpers/clock.js';
import { call, note, req, res, traceLines } from '../replay/helpers.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changed-server.mjs', import.meta.url));
const server = (...flags: string[]) => ({
  spawn: nodeSpawn,
  command: process.execPath,
  args: [SERVER, ...flags],
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const INIT_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: { sampling: {} },
  clientInfo: { name: 'recorder', version: '1.0.0' },
};
const INIT_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'changed-server', version: '1.0.0' },
  instructions: 'changed-server 1.0.0',
};

/** The handshake, then `steps`: what the fixture server answers as built. */
function session(steps: [Direction, Json][]): Promise<Cassette> {
  return buildCassette(
    traceLines([
      ['in', req(0, 'initialize', INIT_PARAMS)],
      ['out', res(0, INIT_RESULT)],
      ['in', note('notifications/initialized')],
      ...steps,
    ]),
  );
}

const ADD: [Direction, Json][] = [
  ['in', req(1, 'tools/call', call('add', { a: 2, b: 3 }))],
  ['out', res(1, text('The sum of 2 and 3 is 5.'))],
];
const GREET: [Direction, Json][] = [
  ['in', req(2, 'tools/call', call('greet', { name: 'Ada' }))],
  ['out', res(2, text('Hello, Ada!'))],
];

/** A started sink to capture a live session into. */
function started(): MemorySink {
  const sink = new MemorySink();
  sink.start(newMeta({ label: 'verify', transport: 'stdio' }));
  return sink;
}

/** What verify sent the server, by method (tools/call by tool name). */
function sent(sink: MemorySink): string[] {
  return sink.lines.flatMap((line) => {
    if (line.type !== undefined || !('dir' in line) || line.dir !== 'in') return [];
    const raw = line.raw as { method?: string; params?: { name?: string } };
    if (raw.method === undefined) return [];
    return [raw.method === 'tools/call' ? (raw.params?.name ?? raw.method) : raw.method];
  });
}

/** Polls until `predicate` holds: a wait for a real process, never a time limit on it. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; predicate() === false; i += 1) {
    if (i > 3000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function verify(cassette: Cassette, flags: string[] = [], options: Partial<VerifyOptions> = {}) {
  return verifyCassette(cassette, { ...server(...flags), timeoutMs: 5000, ...options });
}

describe('verify against the server as recorded', () => {
  it('matches every exchange, initialize and the server’s own sampling request included', async () => {
    const cassette = await session([
      ...ADD,
      ...GREET,
      ['in', req(3, 'tools/call', call('ask', { prompt: 'hi' }))],
      [
        'out',
        req(0, 'sampling/createMessage', {
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 10,
        }),
      ],
      ['in', res(0, { role: 'assistant', model: 'm', content: { type: 'text', text: 'recorded words' } })],
      ['out', res(3, text('the model said: recorded words'))],
      ['in', req(4, 'tools/call', call('count', { steps: 2 }, { _meta: { progressToken: 4 } }))],
      ['out', note('notifications/progress', { progressToken: 4, progress: 1, total: 2 })],
      ['out', note('notifications/progress', { progressToken: 4, progress: 2, total: 2 })],
      ['out', res(4, text('counted to 2'))],
    ]);
    const report = await verify(cassette);
    expect(report.verdicts.map((v) => [v.summary, v.status])).toEqual([
      ['initialize', 'match'],
      ['tools/call add {"a":2,"b":3}', 'match'],
      ['tools/call greet {"name":"Ada"}', 'match'],
      ['tools/call ask {"prompt":"hi"}', 'match'],
      ['tools/call count {"steps":2}', 'match'],
    ]);
    expect(report).toMatchObject({
      total: 5,
      matched: 5,
      differed: 0,
      skipped: 0,
      incomplete: false,
      notes: [],
    });
    expect(report.exit).toEqual({ code: 0, signal: null });
  });

  it('leaves serverInfo.version and instructions of initialize out; compares the rest', async () => {
    const cassette = await session(ADD);
    expect((await verify(cassette, ['--version', '2.0.0'])).differed).toBe(0);
  });

  it('ignores the JSON-RPC id: the recording’s ids need not be the ones verify sends', async () => {
    const cassette = await session([
      ['in', req('abc', 'tools/call', call('add', { a: 2, b: 3 }))],
      ['out', res('abc', text('The sum of 2 and 3 is 5.'))],
    ]);
    expect((await verify(cassette)).matched).toBe(2);
  });
});

describe('verify against a changed server', () => {
  it('names the path, the recorded and the live value of a changed answer', async () => {
    const report = await verify(await session([...ADD, ...GREET]), ['--change', 'add']);
    expect(report).toMatchObject({ total: 3, matched: 2, differed: 1 });
    const add = report.verdicts[1]!;
    expect(add.status).toBe('differ');
    expect(add.diff?.entries).toEqual([
      {
        path: '$.result.content[0].text',
        recorded: 'The sum of 2 and 3 is 5.',
        live: 'The sum of 2 and 3 is 6.',
      },
    ]);
  });

  it('reports a removed tool as a divergence', async () => {
    const report = await verify(await session([...ADD, ...GREET]), ['--remove', 'greet']);
    const greet = report.verdicts[2]!;
    expect(greet.status).toBe('differ');
    expect(greet.diff?.entries).toEqual(
      expect.arrayContaining([
        { path: '$.result.content[0].text', recorded: 'Hello, Ada!', live: 'Unknown tool: greet' },
        { path: '$.result.isError', live: true },
      ]),
    );
  });

  it('leaves --ignore paths out of the comparison', async () => {
    const report = await verify(await session(ADD), ['--change', 'add'], {
      ignore: ['$.result.content[*].text'],
    });
    expect(report.differed).toBe(0);
  });

  it('accepts any live value where the recording holds a redaction marker', async () => {
    const cassette = await session([
      ['in', req(2, 'tools/call', call('greet', { name: 'Ada' }))],
      ['out', res(2, text('Hello, [REDACTED:token]!'))],
      ['in', req(3, 'tools/call', call('greet', { name: 'Bob' }))],
      ['out', res(3, text('Bye, [REDACTED:token]!'))],
    ]);
    const report = await verify(cassette);
    expect(report.verdicts.map((v) => v.status)).toEqual(['match', 'match', 'differ']);
  });
});

describe('verify never hangs', () => {
  it('turns a request the server never answers into a divergence naming it, and carries on', async () => {
    const cassette = await session([
      ['in', req(5, 'tools/call', call('hang'))],
      ['out', res(5, text('done'))],
      ...ADD,
    ]);
    // The timeouts run on a hand-moved clock: a server slow to start on a loaded machine times nothing out, and
    // the hang's timeout fires when the test moves the clock, once the hang has been sent.
    const clock = new ManualClock();
    const capture = started();
    const verifying = verify(cassette, [], { timeoutMs: 1500, scheduler: clock, capture });
    await until(() => sent(capture).includes('hang'), 'the hang request to be sent');
    await clock.advance(1499);
    expect(sent(capture)).toEqual(['initialize', 'notifications/initialized', 'hang']);
    await clock.advance(1);
    const report = await verifying;
    expect(clock.elapsed).toBe(1500);
    expect(report.verdicts[1]).toMatchObject({
      summary: 'tools/call hang',
      status: 'differ',
      reason: 'no answer to tools/call within 1500 ms (raise --timeout if the server is just slow)',
    });
    expect(report.verdicts[2]!.status).toBe('match');
    expect(report.incomplete).toBe(true);
  });

  it('stops at a handshake the server does not answer in time, instead of waiting out every request', async () => {
    const cassette = await session([...ADD, ...GREET]);
    const clock = new ManualClock();
    const capture = started();
    const verifying = verifyCassette(cassette, {
      spawn: nodeSpawn,
      command: process.execPath,
      args: ['-e', 'setTimeout(() => {}, 60000)'],
      timeoutMs: 300,
      scheduler: clock,
      capture,
    });
    await until(() => sent(capture).includes('initialize'), 'initialize to be sent');
    await clock.advance(300);
    const report = await verifying;
    // One timeout, and no request sent after the handshake that got no answer (its notification still goes).
    expect(clock.elapsed).toBe(300);
    expect(sent(capture)).toEqual(['initialize', 'notifications/initialized']);
    expect(report.verdicts.map((v) => [v.status, v.reason])).toEqual([
      ['differ', 'no answer to initialize within 300 ms (raise --timeout if the server is just slow)'],
      ['skipped', 'not sent: initialize got no answer in time'],
      ['skipped', 'not sent: initialize got no answer in time'],
    ]);
    expect(report.incomplete).toBe(true);
  });

  it('reports a server that exits with its code, for every exchange it left unanswered', async () => {
    const cassette = await session(ADD);
    const report = await verifyCassette(cassette, {
      spawn: nodeSpawn,
      command: process.execPath,
      args: ['-e', 'process.stderr.write("boom: no config\\n"); process.exit(3)'],
      timeoutMs: 5000,
    });
    expect(report.differed).toBe(2);
    expect(report.verdicts[0]!.reason).toBe(
      'the server exited with code 3 before answering; its stderr ended: boom: no config',
    );
    expect(report.exit.code).toBe(3);
  });

  it('fails in one line when the command cannot be run', async () => {
    await expect(
      verifyCassette(await session(ADD), { spawn: nodeSpawn, command: 'no-such-command-xyz', args: [] }),
    ).rejects.toThrow("cannot run the server command 'no-such-command-xyz': command not found");
  });
});

describe('what verify sends and answers', () => {
  it('skips exchanges the recording cancelled or never saw answered', async () => {
    const cassette = await session([
      ['in', req(7, 'tools/call', call('hang'))],
      ['in', note('notifications/cancelled', { requestId: 7 })],
      ['in', req(8, 'tools/call', call('hang'))],
      ...ADD,
    ]);
    const report = await verify(cassette);
    expect(report.verdicts.map((v) => [v.ordinal, v.status, v.reason])).toEqual([
      [0, 'match', undefined],
      [1, 'skipped', 'the client cancelled it in the recording'],
      [2, 'skipped', 'the recording holds no response to compare with'],
      [3, 'match', undefined],
    ]);
    expect(report).toMatchObject({ total: 2, skipped: 2 });
  });

  it('answers a sampling request from the recorded answer of the same method when the params changed', async () => {
    const cassette = await session([
      ['in', req(3, 'tools/call', call('ask', { prompt: 'recorded prompt' }))],
      ['out', req(0, 'sampling/createMessage', { messages: [], maxTokens: 10 })],
      ['in', res(0, { role: 'assistant', model: 'm', content: { type: 'text', text: 'canned' } })],
      ['out', res(3, text('the model said: canned'))],
    ]);
    expect((await verify(cassette)).differed).toBe(0);
  });

  it('notes a server→client request the recording has no answer to, and fails the exchange', async () => {
    const cassette = await session([
      ['in', req(3, 'tools/call', call('ask', { prompt: 'hi' }))],
      ['out', res(3, text('the model said: canned'))],
    ]);
    const report = await verify(cassette);
    expect(report.verdicts[1]!.notes).toEqual([
      'the server asked sampling/createMessage {"maxTokens":10,"messages":[{"content":{"text":"hi","type":"text"},"role":"user"}]}, which the recording holds no answer to',
    ]);
    expect(report.verdicts[1]!.status).toBe('differ');
  });

  it('hands the live session to a capture sink: a cassette that verifies against the same server', async () => {
    const sink = new MemorySink();
    sink.start({ v: 1, type: 'meta', startedAt: new Date().toISOString(), label: 'capture' });
    await verify(await session([...ADD, ...GREET]), ['--change', 'greet'], { capture: sink });
    await sink.close({ reason: 'process_exit' });
    const messages = sink.lines.filter((line) => line.type === undefined && 'raw' in line);
    expect(messages.map((line) => (line as { dir: string }).dir)).toEqual([
      'in',
      'out',
      'in',
      'in',
      'out',
      'in',
      'out',
    ]);
    expect(
      sink.lines.filter((line) => line.type === 'event').map((line) => (line as JsonObject).name),
    ).toEqual(['spawn', 'exit']);
    const recaptured = await buildCassette(sink.lines);
    const again = await verify(recaptured, ['--change', 'greet']);
    expect(again).toMatchObject({ matched: 3, differed: 0 });
  });
});

describe('tapedeck verify --update', () => {
  const io = useCliHarness('tapedeck-verify-update-');

  it('leaves the cassette as it was when the live run is incomplete (a timeout), exit 1', async () => {
    const path = join(io.dir, 'c.jsonl');
    // The hang comes first, so the one timeout that fires is the one that must (however long the server takes to
    // start on a loaded machine); the call after it finds the server up and answers in time.
    const lines = traceLines([
      ['in', req(5, 'tools/call', call('hang'))],
      ['out', res(5, text('done'))],
      ['in', req(1, 'tools/call', call('add', { a: 2, b: 3 }))],
      ['out', res(1, text('The sum of 2 and 3 is 5.'))],
    ]);
    lines.push({ t: '2026-01-01T00:00:01.000Z', type: 'end', durationMs: 1000 });
    writeFileSync(path, lines.map(encodeLine).join(''));
    const before = readFileSync(path, 'utf8');
    expect(
      await io.run(['verify', path, '--update', '--timeout', '1500', '--', process.execPath, SERVER]),
    ).toBe(1);
    expect(io.stderr).toBe(
      `tapedeck: not updated: the live run did not complete (a timeout or the server went away); ${path} is unchanged\n`,
    );
    expect(io.stdout).toContain('✗ #0 tools/call hang (line 2)\n    no answer to tools/call within 1500 ms');
    expect(io.stdout).toContain('verified 2 exchanges: 1 match, 1 differ\n');
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('fails a cassette with a corrupt line even when everything left in it matches', async () => {
    const path = join(io.dir, 'corrupt.jsonl');
    const lines = traceLines([
      ['in', req(0, 'initialize', INIT_PARAMS)],
      ['out', res(0, INIT_RESULT)],
      ...ADD,
    ]).map(encodeLine);
    lines.splice(4, 1, '{"t":broken\n');
    writeFileSync(path, lines.join(''));
    expect(await io.run(['verify', path, '--', process.execPath, SERVER])).toBe(1);
    expect(io.stdout).toContain('verified 1 exchange: 1 match, 0 differ, 1 skipped\n');
    expect(io.stderr).toContain(`tapedeck: ${path} had 1 corrupt line (skipped): fix or re-record it\n`);
  });
});

describe('comparing a recorded answer with a live one', () => {
  const compare = answerComparer({
    rules: DEFAULT_NORMALIZATION,
    ignore: [],
    perMethod: VERIFY_DEFAULTS.responseIgnore,
    diff: VERIFY_DEFAULTS.diff,
  });
  const tool = (name: string, description = name) => ({ name, description });
  const tools = (...list: JsonObject[]) => res(1, { tools: list });

  it('lines named items up by name: order aside, an added tool is one difference', () => {
    expect(compare('tools/list', tools(tool('a'), tool('b')), tools(tool('b'), tool('a'))).total).toBe(0);
    expect(compare('tools/list', tools(tool('a')), tools(tool('a'), tool('new'))).entries).toEqual([
      { path: '$.result.tools[1]', live: { name: 'new', description: 'new' } },
    ]);
    expect(
      compare('tools/list', tools(tool('a'), tool('b')), tools(tool('a'), tool('b', 'changed'))).entries,
    ).toEqual([{ path: '$.result.tools[1].description', recorded: 'b', live: 'changed' }]);
  });

  it('compares unnamed lists position by position', () => {
    const recorded = res(1, text('one'));
    const live = res(1, {
      content: [
        { type: 'text', text: 'zero' },
        { type: 'text', text: 'one' },
      ],
    });
    expect(compare('tools/call', recorded, live).entries.map((e) => e.path)).toEqual([
      '$.result.content[0].text',
      '$.result.content[1]',
    ]);
  });

  it('compares errors, leaves ids, _meta drift and the MRTR requestState out', () => {
    const error = (message: string) => ({ jsonrpc: '2.0', id: 1, error: { code: -32602, message } });
    expect(compare('tools/call', error('bad'), { ...error('bad'), id: 99 }).total).toBe(0);
    expect(compare('tools/call', error('bad'), error('worse')).entries).toEqual([
      { path: '$.error.message', recorded: 'bad', live: 'worse' },
    ]);
    const meta = (state: string, token: number) =>
      res(1, { resultType: 'input_required', requestState: state, _meta: { progressToken: token } });
    expect(compare('tools/call', meta('v1.a', 1), meta('v1.b', 2)).total).toBe(0);
  });
});
