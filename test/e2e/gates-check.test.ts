/**
 * `tapedeck check` over five recorded runs of a scripted agent: the official SDK client calling the drift fixture
 * server through `tapedeck record`, in an order that varies run to run, the way an LLM agent's would.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  makeTempDir,
  REPO_ROOT,
  recorded,
  removeTempDir,
  runProcess,
  TAPEDECK_BIN,
} from '../helpers/peers.js';

const FIXTURE = {
  command: process.execPath,
  args: [join(REPO_ROOT, 'test', 'fixtures', 'servers', 'drift-server.mjs')],
};
/** What the scripted agent calls in each run. */
const SCRIPTS: string[][] = [
  ['search', 'echo'],
  ['search', 'echo', 'echo'],
  ['echo', 'search'],
  ['search', 'delete_item', 'echo'],
  ['search', 'search', 'search', 'search', 'echo'],
];
const ARGS: Record<string, Record<string, string>> = {
  search: { query: 'tapes' },
  echo: { message: 'done' },
  delete_item: { id: 'tape-7' },
};

let tmp: string;
const runs = () => SCRIPTS.map((_, i) => join(tmp, `run-${i + 1}.jsonl`));
const check = (args: string[]) =>
  runProcess(process.execPath, [TAPEDECK_BIN, 'check', ...runs(), ...args], { cwd: tmp });

beforeAll(async () => {
  tmp = await makeTempDir('tapedeck-check-');
  for (const [i, script] of SCRIPTS.entries()) {
    const { client } = await connectClient(recorded(FIXTURE, { file: runs()[i]! }), { capabilities: {} });
    await client.listTools();
    for (const tool of script) await client.callTool({ name: tool, arguments: ARGS[tool] });
    await client.close();
  }
}, 120_000);
afterAll(() => removeTempDir(tmp));

describe('tapedeck check over five runs', () => {
  it('prints a row per run, the pass rate, and which tools each run called at which position', async () => {
    const result = await check([
      '--expect-tool',
      'search',
      '--forbid-tool',
      'delete_item',
      '--order',
      'search,echo',
    ]);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /^(pass|FAIL) /.test(l)).map((l) => l.slice(0, 4))).toEqual([
      'pass',
      'pass',
      'FAIL',
      'FAIL',
      'pass',
    ]);
    expect(result.stdout).toContain(
      'order: did not call search → echo in that order (stopped before "echo"); called: echo, search',
    );
    expect(result.stdout).toMatch(/forbid-tool: called "delete_item", which is forbidden \(line \d+\)/);
    expect(result.stdout).toContain('3/5 runs passed (60%)');
    expect(result.stdout).toMatch(/ {2}echo {9}5\/5 runs {2}position #1×1 #2×3 #3×1/);
    expect(result.stdout).toMatch(/ {2}search {7}5\/5 runs {2}position #1×4 #2×1/);
    expect(result.stdout).toMatch(/ {2}delete_item {2}1\/5 runs {2}position #2×1/);
    expect(result.code).toBe(1);
  });

  it('passes with --min-pass-rate at or below the rate', async () => {
    expect((await check(['--forbid-tool', 'delete_item', '--min-pass-rate', '0.8'])).code).toBe(0);
    expect((await check(['--forbid-tool', 'delete_item', '--min-pass-rate', '90%'])).code).toBe(1);
  });

  it('reads a YAML policy with argument matchers, max calls and no errors; reports to JUnit', async () => {
    writeFileSync(
      join(tmp, 'policy.yaml'),
      [
        'expect:',
        '  - tool: search',
        '    args: { subset: { query: tapes } }',
        'forbid:',
        '  - tool: delete_item',
        '    args: { regex: { id: "^tape-" } }',
        'maxCalls: { search: 3 }',
        'expectNoErrors: true',
        '',
      ].join('\n'),
    );
    const result = await check(['--policy', 'policy.yaml', '--json', '--reporter', 'junit:check.xml']);
    const json = JSON.parse(result.stdout) as {
      passRate: number;
      runs: { violations: { rule: string }[] }[];
    };
    expect(json.runs.map((r) => r.violations.map((v) => v.rule))).toEqual([
      [],
      [],
      [],
      ['forbid-tool'],
      ['max-calls'],
    ]);
    expect(json.passRate).toBe(0.6);
    const junit = (await runProcess('cat', [join(tmp, 'check.xml')])).stdout;
    expect(junit).toContain('called &quot;search&quot; 4 times, more than 3');
  });

  it('refuses a bad flag with one line and exit 2', async () => {
    const bad = await check(['--max-calls', 'search']);
    expect([bad.code, bad.stderr.trim()]).toEqual([
      2,
      "tapedeck: --max-calls must be NAME=N, e.g. search=3; got 'search'",
    ]);
  });
});
