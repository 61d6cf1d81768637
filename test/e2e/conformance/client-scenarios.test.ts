/**
 * The official conformance suite's client scenarios with a small SDK 1.32 client (Streamable HTTP), run twice:
 * straight at the suite's own test servers, and through `tapedeck record --upstream` put in front of each of them
 * by a wrapper script. The scenarios must pass both ways, and each trace must hold what the scenario is about.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, REPO_ROOT, removeTempDir } from '../../helpers/peers.js';
import { readTrace } from '../../helpers/proxy.js';
import { type Check, runClientScenario } from './suite.js';

const SCRIPTS = join(REPO_ROOT, 'test', 'fixtures', 'scripts');
const CLIENT = join(SCRIPTS, 'conformance-client.mjs');
const VIA_PROXY = join(SCRIPTS, 'conformance-client-via-proxy.mjs');

/**
 * The suite's one timing check: sse-retry measures how long the client waited before reconnecting (500 ms asked;
 * up to 200 ms later is a WARNING, more than twice as long a FAILURE, and earlier than 450 ms a FAILURE). A loaded
 * machine can delay a timer by a second, never bring one forward: a late reconnect, however late, is the
 * machine's; an early one is the client's (it did not wait) and fails here. Timing is measured in bench/.
 */
const TIMING_CHECKS = new Set(['client-sse-retry-timing']);

/** A late reconnect: what load does to a timer, not what the client did. */
function lateOnly(check: Check): boolean {
  return TIMING_CHECKS.has(check.id) && check.details?.tooEarly === false;
}

/** The checks that did not succeed, `id: STATUS message`, minus INFO and the timing check when it was only late. */
function problems(checks: Check[]): string[] {
  return checks
    .filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO')
    .filter((c) => !lateOnly(c))
    .map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`);
}

type Line = Record<string, unknown> & {
  raw?: { method?: string; params?: { name?: string }; result?: unknown };
};

/** What each scenario's trace must show, beyond a complete meta … end recording. */
const RECORDED: Record<string, (lines: Line[]) => void> = {
  initialize: (lines) => {
    expect(methods(lines, 'in')).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized']));
  },
  tools_call: (lines) => {
    const call = lines.find((l) => l.dir === 'in' && l.raw?.params?.name === 'add_numbers');
    expect(call?.raw).toMatchObject({ method: 'tools/call', params: { arguments: { a: 5, b: 3 } } });
    expect(JSON.stringify(lines.filter((l) => l.dir === 'out' && l.raw?.result))).toContain(
      'The sum of 5 and 3',
    );
  },
  'elicitation-sep1034-client-defaults': (lines) => {
    expect(methods(lines, 'out')).toContain('elicitation/create');
    // The client's answer to the server's request, defaults filled in, went through the proxy too.
    const answer = lines.find(
      (l) => l.dir === 'in' && JSON.stringify(l.raw?.result ?? null).includes('action'),
    );
    expect(answer?.raw?.result).toMatchObject({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
  },
  'sse-retry': (lines) => {
    // The tool call's stream closed after its priming event; the answer came on the GET that resumed it.
    const resumed = lines.find(
      (l) =>
        l.type === 'http' && l.method === 'GET' && (l.headers as Record<string, string>)['last-event-id'],
    );
    expect(resumed).toBeDefined();
    const answer = lines.find(
      (l) => l.dir === 'out' && JSON.stringify(l.raw ?? null).includes('Reconnection test'),
    );
    expect(answer).toMatchObject({ stream: resumed!.stream, eventId: expect.any(String) });
  },
};

function methods(lines: Line[], dir: 'in' | 'out'): string[] {
  return lines.filter((l) => l.dir === dir && l.type === undefined).flatMap((l) => l.raw?.method ?? []);
}

const SCENARIOS = Object.keys(RECORDED);

describe('conformance client scenarios: an SDK client directly and through the recording proxy', () => {
  let dir: string | undefined;

  beforeAll(async () => {
    dir = await makeTempDir('tapedeck-conformance-client-');
  });
  afterAll(() => removeTempDir(dir));

  it.each(SCENARIOS)('%s passes directly and through tapedeck record --upstream', async (scenario) => {
    const traces = join(dir!, 'traces');
    // Each run gets a test server of its own, so both ways run at once.
    const [direct, proxied] = await Promise.all([
      runClientScenario([process.execPath, CLIENT], scenario, join(dir!, 'direct', scenario)),
      runClientScenario([process.execPath, VIA_PROXY, traces], scenario, join(dir!, 'proxy', scenario)),
    ]);
    // The suite exits 1 on any FAILURE: a very late reconnect (allowed above) is one.
    const exitFor = (checks: Check[]) => (checks.some((c) => c.status === 'FAILURE') ? 1 : 0);
    for (const { run, outcome } of [direct, proxied]) {
      expect({ exit: run.code, problems: problems(outcome.checks) }).toEqual({
        exit: exitFor(outcome.checks),
        problems: [],
      });
    }
    // The same checks ran both ways (a check the proxy kept from running would not show up as a failure).
    const ids = (checks: Check[]) => checks.filter((c) => c.status !== 'INFO').map((c) => c.id);
    expect(ids(proxied.outcome.checks)).toEqual(ids(direct.outcome.checks));

    const lines = readTrace(join(traces, `${scenario}.jsonl`)) as Line[];
    expect(lines[0]).toMatchObject({ type: 'meta', transport: 'http' });
    expect(lines.at(-1)).toMatchObject({ type: 'end', reason: 'producer_shutdown' });
    RECORDED[scenario]!(lines);
  });
});
