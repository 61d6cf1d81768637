/**
 * The official conformance suite's server scenarios, three ways: straight at server-everything (Streamable HTTP),
 * through `tapedeck record --upstream`, and against `tapedeck replay --http` serving what that recording caught.
 * server-everything lacks the suite's own `test_*` tools, so many scenarios fail even directly; the point is that
 * tapedeck changes no verdict — the recording proxy passes and fails exactly what the server does, and the
 * replayed recording passes everything the live server passed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, startEverything } from '../../helpers/http-peers.js';
import { makeTempDir, removeTempDir } from '../../helpers/peers.js';
import { type ProxyRun, readTrace, spawnTapedeck, waitFor } from '../../helpers/proxy.js';
import { type HttpReplayProcess, startHttpReplay } from '../../replay/serve/http/helpers.js';
import { listScenarios, type Outcomes, runServerSuite, verdicts } from './suite.js';

/**
 * Scenarios where tapedeck's own listener, not the server behind it, decides the verdict. Each names the verdict
 * it must get through tapedeck and why; every other scenario must get the direct verdict.
 */
const LISTENER_VERDICTS: Record<string, { verdict: 'pass' | 'fail'; reason: string }> = {
  'dns-rebinding-protection': {
    verdict: 'pass',
    reason:
      'the recording proxy and the replay server answer a non-local Host or Origin with 403 themselves ' +
      '(server-everything accepts any Host, so directly this scenario fails)',
  },
};

/**
 * Scenarios a replay cannot pass although the live server does, with the reason. Empty: every scenario
 * server-everything passes replays — random ids, fresh sessions and concurrent streams included.
 */
const REPLAY_CANNOT_PASS: Record<string, string> = {};

/** The direct verdicts with the listener's own verdicts put in. */
function throughTapedeck(direct: Outcomes): Record<string, 'pass' | 'fail'> {
  const expected = verdicts(direct);
  for (const [name, { verdict }] of Object.entries(LISTENER_VERDICTS)) expected[name] = verdict;
  return expected;
}

describe('conformance server scenarios: direct, through the recording proxy, against the replay', () => {
  let dir: string | undefined;
  let everything: HttpServer | undefined;
  let recorder: ProxyRun | undefined;
  let replay: HttpReplayProcess | undefined;
  let scenarios: string[] = [];
  let direct: Outcomes = new Map();
  let proxied: Outcomes = new Map();
  const trace = () => join(dir!, 'run.jsonl');

  beforeAll(async () => {
    dir = await makeTempDir('tapedeck-conformance-');
    [scenarios, everything] = await Promise.all([listScenarios('server'), startEverything('streamableHttp')]);
  });

  afterAll(async () => {
    for (const child of [recorder?.child, replay?.run.child]) {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await everything?.stop();
    await removeTempDir(dir);
  });

  it('the suite has its 32 server scenarios, and server-everything passes some and fails others', async () => {
    expect(scenarios).toHaveLength(32);
    direct = (await runServerSuite(everything!.url, join(dir!, 'direct'), scenarios)).outcomes;
    const passed = [...direct].filter(([, o]) => o.pass).map(([name]) => name);
    // A server that fails everything (not started, wrong path) would make the comparisons below worthless.
    expect(passed).toEqual(
      expect.arrayContaining(['server-initialize', 'ping', 'tools-list', 'prompts-list']),
    );
    expect(passed.length).toBeLessThan(scenarios.length);
    for (const name of Object.keys(LISTENER_VERDICTS)) expect(scenarios).toContain(name);
  });

  it('through tapedeck record --upstream every scenario gets the verdict it gets directly', async () => {
    recorder = spawnTapedeck([
      'record',
      '--upstream',
      everything!.url,
      '--listen',
      '127.0.0.1:0',
      '--file',
      trace(),
    ]);
    const listening = /tapedeck: recording (http:\/\/127\.0\.0\.1:\d+\/mcp) → /;
    await waitFor(() => listening.test(recorder!.stderrSoFar()), 10_000, 'the listening line');
    const url = listening.exec(recorder.stderrSoFar())![1]!;
    proxied = (await runServerSuite(url, join(dir!, 'proxy'), scenarios)).outcomes;
    recorder.child.kill('SIGTERM');
    const exit = await recorder.done;

    expect(verdicts(proxied)).toEqual(throughTapedeck(direct));
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    const lines = readTrace(trace());
    expect(lines[0]).toMatchObject({ type: 'meta', transport: 'http' });
    expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'producer_shutdown' });
    // Every scenario opens its own session with an initialize of its own.
    const initializes = lines.filter(
      (l) => (l.raw as { method?: string } | undefined)?.method === 'initialize',
    );
    expect(initializes.length).toBeGreaterThanOrEqual(
      scenarios.length - Object.keys(LISTENER_VERDICTS).length,
    );
  });

  it('against tapedeck replay of that recording every scenario that passed directly passes', async () => {
    replay = await startHttpReplay(trace(), ['--allow-unused']);
    const replayed = (await runServerSuite(replay.url, join(dir!, 'replay'), scenarios)).outcomes;
    const { code, stderr } = await replay.stop();

    const expected = throughTapedeck(direct);
    const mustPass = Object.keys(expected).filter(
      (name) => expected[name] === 'pass' && !(name in REPLAY_CANNOT_PASS),
    );
    const failedHere = mustPass
      .filter((name) => !replayed.get(name)?.pass)
      .map((name) => `${name}: ${replayed.get(name)?.failures.join('; ')}`);
    expect(failedHere).toEqual([]);
    // Nor does a replay pass what the recording failed: it answers as recorded.
    expect(verdicts(replayed)).toEqual(verdicts(proxied));
    // Exit 0 with --allow-unused: no request missed the cassette and no server→client request went unanswered.
    expect({ code, misses: stderr.match(/^tapedeck: (miss|timeout): .*$/gm) ?? [] }).toEqual({
      code: 0,
      misses: [],
    });
    expect(stderr).toMatch(/replayed \d+\/\d+ exchanges/);
  });
});
