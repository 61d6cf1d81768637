/**
 * The stateless 2026-07-28 era with real peers: the official v2 SDK client (`@modelcontextprotocol/client` 2.4.0)
 * against a v2 SDK server (test/fixtures/servers/v2-server.mjs) over stdio, recorded with `tapedeck record` and
 * served back with `tapedeck replay`.
 *
 * The v2 stdio client negotiates on a sibling process: with `versionNegotiation` set (pinned or `auto`) and a plain
 * `StdioClientTransport` it spawns the server command once as a probe that gets only `server/discover` (then stdin
 * EOF and SIGTERM right away), and once more for the session. So one client session is two `tapedeck record`
 * processes (two trace files) and two `tapedeck replay` processes. The client keeps both child processes private,
 * and a subclassed transport would probe in place instead, so to see how each replay process exited the command
 * runs behind test/fixtures/scripts/exit-log.mjs, which logs every exit (code, signal, stderr) to a file.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, MessageLine } from '../../src/trace/types.js';
import {
  type CommandLine,
  makeTempDir,
  REPO_ROOT,
  readTrace,
  recorded,
  removeTempDir,
  rpc,
  runProcess,
  TAPEDECK_BIN,
  type TraceParts,
  traceParts,
} from '../helpers/peers.js';
import { sleep, spawnTapedeck, waitFor } from '../helpers/proxy.js';
import { replayCommand, request } from '../helpers/replay.js';

const ERA = '2026-07-28';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const V2_SERVER: CommandLine = {
  command: process.execPath,
  args: [join(REPO_ROOT, 'test', 'fixtures', 'servers', 'v2-server.mjs')],
};
const EXIT_LOG = join(REPO_ROOT, 'test', 'fixtures', 'scripts', 'exit-log.mjs');
const PINNED: ClientOptions = { versionNegotiation: { mode: { pin: ERA } } };
const AUTO: ClientOptions = { versionNegotiation: { mode: 'auto' } };
/** The progress the fixture's `slow` tool reports. */
const PROGRESS = [
  { progress: 1, total: 2 },
  { progress: 2, total: 2 },
];

interface ProcessExit {
  pid: number | null;
  code: number | null;
  signal: string | null;
  stderr: string;
}

/** `node exit-log.mjs <log> <target…>`: the target, with how it exited appended to `log`. */
function exitLogged(target: CommandLine, log: string): CommandLine {
  return { command: process.execPath, args: [EXIT_LOG, log, target.command, ...target.args] };
}

function readExitLog(log: string): ProcessExit[] {
  try {
    return readTrace(log) as unknown as ProcessExit[];
  } catch {
    return []; // not written yet
  }
}

/** One session's calls, in order; the results must be the same direct, recorded and replayed. */
async function session(target: CommandLine, options: ClientOptions) {
  // A plain StdioClientTransport: only that takes the sibling-probe path (a subclass probes in place).
  const transport = new StdioClientTransport({ command: target.command, args: target.args, cwd: REPO_ROOT });
  const client = new Client({ name: 'tapedeck-era2026-e2e', version: '1.0.0' }, options);
  await client.connect(transport);
  const progress: { progress: number; total?: number | undefined }[] = [];
  try {
    const results = {
      protocolVersion: client.getNegotiatedProtocolVersion(),
      server: client.getServerVersion(),
      tools: await client.listTools(),
      echo: await client.callTool({ name: 'echo', arguments: { text: 'hello, 2026 ✓' } }),
      slow: await client.callTool({ name: 'slow', arguments: {} }, { onprogress: (p) => progress.push(p) }),
      addTool: await client.callTool({ name: 'add_tool', arguments: {} }),
      // The same request as the first tools/list, answered differently: replay must serve them in recorded order.
      toolsAfter: await client.listTools(),
    };
    return { results, progress: progress.map((p) => ({ progress: p.progress, total: p.total })) };
  } finally {
    await client.close();
  }
}

type Session = Awaited<ReturnType<typeof session>>;

/**
 * The SDK client drops progress that shares a read with the response (DESIGN §7): on a loaded machine both
 * notifications and the answer can land in one read, so the client may see any prefix, none included. What it
 * does see is in order and as sent; that both went over the wire is checked on the trace.
 */
function expectProgressPrefix(progress: Session['progress']): void {
  expect(progress.length).toBeLessThanOrEqual(PROGRESS.length);
  expect(progress).toEqual(PROGRESS.slice(0, progress.length));
}

const requestsOf = (parts: TraceParts) =>
  parts.in.map(rpc).filter((m) => m.method !== undefined && m.id !== undefined);

describe('the 2026-07-28 era: v2 SDK client and server over stdio, through tapedeck record and replay', () => {
  let tmp: string | undefined;
  let direct: Session;
  let recordedSession: Session;
  let traceFiles: string[];
  let probe: TraceParts;
  let probeFile: string;
  let sessionTrace: TraceParts;
  let sessionFile: string;
  const replays: { mode: string; run: Session; exits: ProcessExit[] }[] = [];

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-era2026-');
    const traces = join(tmp, 'traces');
    direct = await session(V2_SERVER, PINNED);
    recordedSession = await session(recorded(V2_SERVER, { out: traces }), PINNED);

    // The probe's recorder is stopped with SIGTERM: its trace must still get its end line.
    const ended = (file: string) => readTrace(join(traces, file)).at(-1)?.type === 'end';
    const files = () => readdirSync(traces).filter((f) => f.endsWith('.jsonl'));
    await waitFor(() => files().length >= 2 && files().every(ended), 10_000, 'two ended trace files').catch(
      () => undefined, // the assertions below say what is there instead
    );
    traceFiles = files().sort();
    const parsed = traceFiles.map((file) => ({
      file: join(traces, file),
      parts: traceParts(readTrace(join(traces, file))),
    }));
    const isProbe = (parts: TraceParts) => requestsOf(parts).every((m) => m.method === 'server/discover');
    const probeAt = parsed.findIndex((p) => isProbe(p.parts));
    probeFile = parsed[probeAt]!.file;
    probe = parsed[probeAt]!.parts;
    const sessionAt = parsed.findIndex((_p, i) => i !== probeAt);
    sessionFile = parsed[sessionAt]!.file;
    sessionTrace = parsed[sessionAt]!.parts;

    for (const [mode, options] of [
      ['pinned', PINNED],
      ['auto', AUTO],
    ] as const) {
      const log = join(tmp, `replay-${mode}.exits.jsonl`);
      const run = await session(exitLogged(replayCommand(sessionFile), log), options);
      await waitFor(() => readExitLog(log).length >= 2, 10_000, `two ${mode} replay exits`).catch(
        () => undefined,
      );
      replays.push({ mode, run, exits: readExitLog(log) });
    }
  });

  afterAll(() => removeTempDir(tmp));

  it('talks 2026-07-28 directly, and the same through the recorder', () => {
    expect(direct.results.protocolVersion).toBe(ERA);
    expect(direct.results.server).toEqual({ name: 'tapedeck-v2-fixture', version: '1.0.0' });
    expect(direct.results.echo).toMatchObject({ content: [{ type: 'text', text: 'echo: hello, 2026 ✓' }] });
    expect(direct.results.slow).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    expect(direct.results.tools.tools.map((t) => t.name)).toEqual(['echo', 'slow', 'add_tool']);
    expect(direct.results.toolsAfter.tools.map((t) => t.name)).toEqual(['echo', 'slow', 'add_tool', 'extra']);
    expect(recordedSession.results).toEqual(direct.results);
    expectProgressPrefix(direct.progress);
    expectProgressPrefix(recordedSession.progress);
  });

  it('writes two traces, the probe and the session, each with its end line', () => {
    // One client connect spawned `tapedeck record` twice: the sibling probe and the session.
    expect(traceFiles).toHaveLength(2);
    expect(probeFile).not.toBe(sessionFile);
    for (const parts of [probe, sessionTrace]) expect(parts.end.type).toBe('end');
  });

  it('keeps server/discover and its answer in the probe trace', () => {
    expect(probe.in).toHaveLength(1);
    const discover = rpc(probe.in[0]!);
    expect(discover.method).toBe('server/discover');
    expect(discover.params?._meta).toMatchObject({ [PROTOCOL_VERSION_KEY]: ERA });
    expect(probe.out).toHaveLength(1);
    const answer = rpc(probe.out[0]!);
    expect(answer.id).toBe(discover.id);
    expect(answer.result).toMatchObject({ supportedVersions: [ERA], resultType: 'complete' });
    // The client stopped the probe with SIGTERM; the recorder passed it on and still wrote its end line.
    const stop = probe.end;
    expect(stop.signal === 'SIGTERM' || stop.exitCode === 143).toBe(true);
  });

  it('keeps the session: no initialize, 2026 _meta on every request, resultType on every result', () => {
    const requests = requestsOf(sessionTrace);
    expect(requests.map((m) => [m.method, m.params?.name ?? null])).toEqual([
      ['tools/list', null],
      ['tools/call', 'echo'],
      ['tools/call', 'slow'],
      ['tools/call', 'add_tool'],
      ['tools/list', null],
    ]);
    for (const request of requests) {
      expect((request.params?._meta as Record<string, Json> | undefined)?.[PROTOCOL_VERSION_KEY]).toBe(ERA);
    }
    const responses = sessionTrace.out.map(rpc).filter((m) => m.method === undefined);
    expect(responses).toHaveLength(requests.length);
    for (const response of responses) expect(response.result?.resultType).toBe('complete');
    expect(sessionTrace.end).toMatchObject({ exitCode: 0 });

    // Both progress notifications are on the wire (whatever the client delivered), carrying the request's token.
    const slow = requests.find((m) => m.params?.name === 'slow')!;
    const progress = sessionTrace.messages
      .filter((m: MessageLine) => m.dir === 'out' && rpc(m.raw).method === 'notifications/progress')
      .map((m) => rpc(m.raw).params);
    expect(progress).toEqual(PROGRESS.map((p) => ({ progressToken: slow.id!, ...p })));
  });

  it('replays the session to a fresh v2 client, pinned and auto: same results and progress', () => {
    expect(replays.map((r) => r.mode)).toEqual(['pinned', 'auto']);
    for (const { run } of replays) {
      expect(run.results).toEqual(direct.results);
      expectProgressPrefix(run.progress);
    }
  });

  it('replay: the probe process and the session process both exit 0', () => {
    for (const { mode, exits } of replays) {
      // The probe (only server/discover, then stdin EOF + SIGTERM) and the session: two processes, both clean.
      expect(exits, mode).toHaveLength(2);
      const [first, second] = exits as [ProcessExit, ProcessExit];
      expect(first, mode).toMatchObject({ code: 0, signal: null });
      expect(first.stderr, mode).toContain('answered a server/discover probe');
      expect(second, mode).toMatchObject({ code: 0, signal: null });
      expect(second.stderr, mode).toContain('replayed 5/5 exchanges');
    }
  });

  it('replay: a probe stopped with stdin EOF and then SIGTERM exits 0, whatever the gap between the two', async () => {
    // What the v2 client does to its probe. A SIGTERM that landed after the session ended but before the report
    // used to kill `tapedeck replay` (signal handlers were removed too early); a few ms of gap hit that window.
    const discover = request('server-discover-probe-1', 'server/discover', {
      _meta: { [PROTOCOL_VERSION_KEY]: ERA },
    });
    const exits = await Promise.all(
      [0, 1, 2, 3, 4, 6].map(async (gapMs) => {
        const run = spawnTapedeck(['replay', sessionFile]);
        run.child.stdin.write(`${JSON.stringify(discover)}\n`);
        await waitFor(() => run.stdoutSoFar().includes('\n'), 10_000, 'the server/discover answer');
        run.child.stdin.end();
        await sleep(gapMs);
        run.child.kill('SIGTERM');
        const exit = await run.done;
        return {
          gapMs,
          code: exit.code,
          signal: exit.signal,
          probe: exit.stderr.includes('server/discover probe'),
        };
      }),
    );
    for (const exit of exits) expect(exit).toEqual({ gapMs: exit.gapMs, code: 0, signal: null, probe: true });
  });

  it('show and stats read both traces', async () => {
    const [stats, showSession, showProbe] = await Promise.all([
      runProcess(process.execPath, [TAPEDECK_BIN, 'stats', sessionFile]),
      runProcess(process.execPath, [TAPEDECK_BIN, 'show', sessionFile]),
      runProcess(process.execPath, [TAPEDECK_BIN, 'show', probeFile]),
    ]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(`protocol ${ERA}`);
    expect(stats.stdout).toContain('server/discover');
    expect(showSession.code, showSession.stderr).toBe(0);
    expect(showSession.stdout).toContain('tools/call slow');
    expect(showSession.stdout).toContain('notifications/progress');
    expect(showProbe.code, showProbe.stderr).toBe(0);
    expect(showProbe.stdout).toContain('server/discover');
  });
});
