/**
 * `tapedeck replay` as a process: flags, exit codes, signals, the 2026-era probe process, and a client that goes
 * away or never answers. Raw JSON lines on stdin; every stdout line must be a JSON-RPC message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';
import { rpc } from '../helpers/peers.js';
import { pipeReplay, request } from '../helpers/replay.js';
import { INTEROP } from '../replay/helpers.js';

const EVERYTHING = `${INTEROP}mcp-tape/everything-stdio.jsonl`;
const ERA2026 = `${INTEROP}era2026/era2026-stdio.jsonl`;
const SIBLING_SESSION = `${INTEROP}era2026/era2026-stdio-sibling-session.jsonl`;
const MODERN = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
const INIT = request(0, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'raw', version: '0' },
});
const echo = (id: number, message: string) =>
  request(id, 'tools/call', { name: 'echo', arguments: { message } });

describe('tapedeck replay: usage', () => {
  const io = useCliHarness('tapedeck-replay-cli-', { isolateHome: false });

  it.each([
    [['--match', 'fuzzy'], "--match must be keyed or ordered; got 'fuzzy'"],
    [
      ['--timing', 'fast'],
      "--timing must be none, recorded, or a speed factor above 0 such as 2 or 0.5x; got 'fast'",
    ],
    [['--repeat', 'twice'], "--repeat must be none or last; got 'twice'"],
    [
      ['--client-timeout', '0'],
      "--client-timeout must be a duration such as 5s, 1.5m or 500ms, or a whole number of milliseconds; got '0'",
    ],
    [['--ignore', '$.params[oops'], "--ignore '$.params[oops'"],
    [['--bogus'], "unknown option '--bogus'"],
  ])('%j is a usage error (exit 2) naming the value, before anything is read', async (flags, message) => {
    expect(await io.run(['replay', '/nonexistent/cassette.jsonl', ...flags])).toBe(2);
    expect(io.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(io.stderr).toContain(message);
  });

  it('names a cassette that does not exist in one line, exit 1', async () => {
    expect(await io.run(['replay', '/nonexistent/cassette.jsonl'])).toBe(1);
    expect(io.stderr).toBe(
      'tapedeck: no such cassette: /nonexistent/cassette.jsonl (record one with: tapedeck record --file /nonexistent/cassette.jsonl -- <server command…>)\n',
    );
  });

  it('names the servers of a multi-server cassette when --server names none of them', async () => {
    expect(
      await io.run(['replay', `${INTEROP}mcporter/everything-get-sum.ndjson`, '--server', 'other']),
    ).toBe(2);
    expect(io.stderr).toMatch(/no server "other" in the cassette; it holds "everything"/);
  });
});

describe('tapedeck replay: a session over stdin and stdout', () => {
  it('answers as recorded, skips a non-JSON line with a note, rejects a non-message, reports at EOF', async () => {
    const result = await pipeReplay(
      EVERYTHING,
      ['--allow-unused'],
      [INIT, 'not json', '"a JSON string"', echo(1, 'hello')],
    );
    expect(result.messages.map((m) => rpc(m).id)).toEqual([0, null, 1]);
    expect(rpc(result.messages[1]!).error).toEqual({ code: -32600, message: 'Invalid Request' });
    expect(rpc(result.messages[2]!).result).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    expect(result.stderr).toContain('tapedeck: ignored a line that is not JSON: not json\n');
    expect(result.stderr).toContain(
      'tapedeck: ignored "a JSON string": not a JSON-RPC request, notification or response\n',
    );
    expect(result.stderr).toContain('tapedeck: replayed 2/26 exchanges\n');
    expect(result.code).toBe(0);
  });

  it('--ignore leaves a path out of matching; --repeat last serves the last recording again', async () => {
    const result = await pipeReplay(
      EVERYTHING,
      ['--allow-unused', '--ignore', '$.params.arguments.message', '--repeat', 'last'],
      [INIT, echo(1, 'bye'), echo(2, 'again')],
    );
    expect(result.messages.map((m) => rpc(m).result)).toEqual([
      expect.anything(),
      { content: [{ type: 'text', text: 'Echo: hello' }] },
      { content: [{ type: 'text', text: 'Echo: hello' }] },
    ]);
    expect(result.stderr).toContain('tapedeck: replayed 2/26 exchanges, 1 served again\n');
    expect(result.code).toBe(0);
  });

  it('--timing replays the recorded gaps divided by a factor', async () => {
    const started = Date.now();
    const call = request(1, 'tools/call', {
      name: 'trigger-long-running-operation',
      arguments: { duration: 2, steps: 4 },
      _meta: { progressToken: 'p' },
    });
    const result = await pipeReplay(EVERYTHING, ['--allow-unused', '--timing', '10x'], [call]);
    // Four progress notifications 500 ms apart in the recording: 2 s / 10.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(result.messages.map((m) => rpc(m).method ?? rpc(m).id)).toEqual([
      ...Array(4).fill('notifications/progress'),
      1,
    ]);
  });

  it('gives up on a sampling answer after --client-timeout and fails the run', async () => {
    const sampling = request(1, 'tools/call', {
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hi', maxTokens: 20 },
    });
    const result = await pipeReplay(EVERYTHING, ['--allow-unused', '--client-timeout', '100'], [sampling], {
      signal: 'SIGTERM',
      responses: 2,
    });
    expect(result.messages.map((m) => rpc(m).method ?? rpc(m).id)).toEqual(['sampling/createMessage', 1]);
    expect(rpc(result.messages[1]!).error).toMatchObject({ code: -32091 });
    expect(result.stderr).toMatch(
      /^tapedeck: timeout: the client did not answer sampling\/createMessage \(id 0\) within 100 ms/m,
    );
    // The setting named is the flag this command takes, not the replay option code passes.
    expect(result.stderr).toContain(
      '(raise --client-timeout, or check the client handles sampling/createMessage)',
    );
    expect(result.stderr).toContain('tapedeck: replayed 1/26 exchanges, 1 unanswered server request\n');
    expect(result.code).toBe(1);
  });

  it('ends at once when the client closes its side while replay waits for its answer', async () => {
    const sampling = request(1, 'tools/call', {
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hi', maxTokens: 20 },
    });
    const result = await pipeReplay(EVERYTHING, ['--allow-unused'], [sampling]);
    expect(result.messages.map((m) => rpc(m).method)).toEqual(['sampling/createMessage']);
    // The tools/call never got its response: the sampling request it waited on counts as unanswered. It ended with
    // the session, not after the client timeout (that would read "within 30000 ms"): the cause, not the clock.
    expect(result.stderr).toContain(
      'tapedeck: timeout: the client did not answer sampling/createMessage (id 0) before the session ended',
    );
    expect(result.stderr).not.toMatch(/within \d+ ms/);
    expect(result.stderr).toContain('1 unanswered server request');
    expect(result.code).toBe(1);
  });

  it('replays what it can of a cassette with a corrupt line, names the line, and fails the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-replay-'));
    try {
      const cassette = join(dir, 'corrupt.jsonl');
      const line = (direction: string, raw: unknown) =>
        JSON.stringify({ t: '2026-01-01T00:00:01.000Z', dir: direction, raw });
      writeFileSync(
        cassette,
        [
          JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'x' }),
          line('in', request(1, 'tools/list')),
          'GARBAGE',
          line('out', { jsonrpc: '2.0', id: 1, result: { tools: [] } }),
          '',
        ].join('\n'),
      );
      const result = await pipeReplay(cassette, [], [request(5, 'tools/list')]);
      expect(result.messages).toEqual([{ jsonrpc: '2.0', id: 5, result: { tools: [] } }]);
      expect(result.stderr).toMatch(/^tapedeck: error: .*corrupt\.jsonl:3: not valid JSON/m);
      expect(result.stderr).toContain('tapedeck: replayed 1/1 exchanges\n');
      expect(result.stderr).toContain('tapedeck: the cassette had 1 corrupt line (skipped)\n');
      expect(result.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports and fails unused exchanges on SIGTERM', async () => {
    const result = await pipeReplay(EVERYTHING, [], [INIT], { signal: 'SIGTERM', responses: 1 });
    expect(result.stderr).toContain('tapedeck: replayed 1/26 exchanges\n');
    expect(result.stderr).toContain('tapedeck: unused #1: tools/list (line 13)\n');
    expect(result.code).toBe(1);
  });
});

describe('tapedeck replay: the 2026-era probe process', () => {
  const discover = request('server-discover-probe-1', 'server/discover', MODERN);

  it.each([
    [ERA2026, 'as recorded'],
    [SIBLING_SESSION, 'not recorded; answered from the recorded session'],
  ])(
    '%s: a process that only saw server/discover exits 0 on SIGTERM, unused not checked',
    async (path, how) => {
      const result = await pipeReplay(path, [], [discover], { signal: 'SIGTERM', responses: 1 });
      expect(rpc(result.messages[0]!).result).toMatchObject({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: { listChanged: true } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'era-scratch-server' } },
      });
      expect(result.stderr).toBe(`tapedeck: answered a server/discover probe (${how})\n`);
      expect(result.code).toBe(0);
    },
  );

  it('answers discover from an initialize-era cassette as its server would: Method not found', async () => {
    const result = await pipeReplay(EVERYTHING, [], [discover], { signal: 'SIGTERM', responses: 1 });
    expect(rpc(result.messages[0]!).error).toMatchObject({ code: -32601, message: 'Method not found' });
    expect(result.code).toBe(0);
  });

  it('serves the session process of a 2026 client from the session cassette', async () => {
    const list = request(0, 'tools/list', MODERN);
    const result = await pipeReplay(SIBLING_SESSION, ['--allow-unused'], [discover, list]);
    expect(result.messages.map((m) => rpc(m).id)).toEqual(['server-discover-probe-1', 0]);
    expect(rpc(result.messages[1]!).result).toMatchObject({ resultType: 'complete' });
    expect(result.stderr).toContain(
      'tapedeck: note: server/discover not recorded; answered from the recorded session\n',
    );
    expect(result.stderr).toMatch(/tapedeck: replayed 1\/\d+ exchanges\n/);
  });
});
