/**
 * The CI reporters of the built CLI against real cassettes: sessions of the official SDK client with
 * server-everything, recorded through `tapedeck record`, then verified against server-everything, diffed, replayed
 * to the SDK client and scanned — each report held to its format (JUnit's structure, the workflow command grammar,
 * SARIF 2.1.0's structure) and to what the run really found.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Annotation,
  junitCases,
  junitProblems,
  parseAnnotations,
  parseXml,
  sarifProblems,
} from '../helpers/ci-formats.js';
import {
  connectClient,
  EVERYTHING_SERVER,
  everythingServer,
  makeTempDir,
  recorded,
  removeTempDir,
  TAPEDECK_BIN,
} from '../helpers/peers.js';
import { spawnTapedeck } from '../helpers/proxy.js';
import { connectSession, outcome, replayCommand } from '../helpers/replay.js';

const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
/** An echo whose answer, edited in the cassette, carries what breaks careless escaping. */
const DRIFTED = 'Echo: <drifted> & "quoted" 100%: a, b\nline two';

let dir: string;

/** Records one SDK session with server-everything: tools/list, echo, get-sum. */
async function record(file: string, { message = 'hello', a = 2, flags = [] as string[] } = {}) {
  const target = flags.length
    ? {
        command: process.execPath,
        args: [
          TAPEDECK_BIN,
          'record',
          ...flags,
          '--file',
          file,
          '--',
          process.execPath,
          EVERYTHING_SERVER,
          'stdio',
        ],
      }
    : recorded(everythingServer(), { file });
  const { client } = await connectClient(target, {});
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message } });
  await client.callTool({ name: 'get-sum', arguments: { a, b: 3 } });
  await client.close();
}

/**
 * The cassette with the recorded echo answer changed, as if the server had answered differently then; resolves to
 * the line of the echo request (where reports point).
 */
function drift(from: string, to: string): number {
  let request = 0;
  const lines = readFileSync(from, 'utf8')
    .split('\n')
    .map((text, i) => {
      if (text.includes('"method":"tools/call"') && text.includes('"name":"echo"')) request = i + 1;
      if (!text.includes('"Echo: hello"')) return text;
      const parsed = JSON.parse(text);
      parsed.raw.result.content[0].text = DRIFTED;
      return JSON.stringify(parsed);
    });
  writeFileSync(to, lines.join('\n'));
  return request;
}

/** The workflow commands among a stream's lines (replay's stderr also carries its notices). */
function annotations(text: string): Annotation[] {
  const lines = text.split('\n').filter((line) => line.startsWith('::'));
  return parseAnnotations(lines.map((line) => `${line}\n`).join(''));
}

function junit(file: string) {
  const root = parseXml(readFileSync(join(dir, file), 'utf8'));
  expect(junitProblems(root)).toEqual([]);
  return { root, cases: junitCases(root) };
}

const verifyArgs = (cassette: string, ...flags: string[]) => [
  'verify',
  cassette,
  ...flags,
  '--',
  process.execPath,
  EVERYTHING_SERVER,
  'stdio',
];

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-ci-reporters-');
  await record(join(dir, 'everything.jsonl'));
  await record(join(dir, 'after.jsonl'), { message: 'bye', a: 7 });
  await record(join(dir, 'leaky.jsonl'), { message: `deploy with ${GHP}`, flags: ['--no-redact-defaults'] });
});

afterAll(() => removeTempDir(dir));

describe('verify', () => {
  it('a passing run: one passing testcase per exchange, no annotations, exit 0', async () => {
    const run = spawnTapedeck(
      verifyArgs('everything.jsonl', '--reporter', 'junit:reports/v.xml', '--reporter', 'github'),
      {
        cwd: dir,
      },
    );
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toBe('verified 4 exchanges: 4 match, 0 differ\n');
    const { root, cases } = junit('reports/v.xml');
    expect(root.attributes).toMatchObject({ tests: '4', failures: '0', errors: '0', skipped: '0' });
    expect(cases.map(({ testcase }) => [testcase.attributes.name, testcase.attributes.file])).toEqual([
      ['#0 initialize', 'everything.jsonl'],
      ['#1 tools/list', 'everything.jsonl'],
      ['#2 tools/call echo {"message":"hello"}', 'everything.jsonl'],
      ['#3 tools/call get-sum {"a":2,"b":3}', 'everything.jsonl'],
    ]);
  });

  it('a divergence: a failure carrying the structural diff, an annotation on its line, the JSON report', async () => {
    const line = drift(join(dir, 'everything.jsonl'), join(dir, 'drifted.jsonl'));
    const run = spawnTapedeck(
      verifyArgs(
        'drifted.jsonl',
        '--reporter',
        'junit:reports/d.xml',
        '--reporter',
        'github',
        '--reporter',
        'json:d.json',
      ),
      { cwd: dir },
    );
    const result = await run.done;
    expect(result.code).toBe(1);
    const { cases } = junit('reports/d.xml');
    const failed = cases.filter(({ outcome }) => outcome !== undefined);
    expect(failed).toHaveLength(1);
    const { testcase, outcome: failure } = failed[0]!;
    expect(testcase.attributes).toMatchObject({
      name: '#2 tools/call echo {"message":"hello"}',
      line: String(line),
    });
    expect(failure!.name).toBe('failure');
    expect(failure!.text).toContain(
      `$.result.content[0].text\n  recorded ${JSON.stringify(DRIFTED)}\n  live     "Echo: hello"`,
    );
    // The usual report stays on stdout; the annotation follows it, and survives the grammar whole.
    const stdout = result.stdout.toString();
    expect(stdout).toContain('✗ #2 tools/call echo {"message":"hello"}');
    expect(annotations(stdout)).toEqual([
      {
        level: 'error',
        properties: {
          file: 'drifted.jsonl',
          line: String(line),
          title: 'tapedeck verify: #2 tools/call echo {"message":"hello"}',
        },
        message: `the live answer differs from the recorded one (1 difference)\n$.result.content[0].text\n  recorded ${JSON.stringify(DRIFTED)}\n  live     "Echo: hello"`,
      },
    ]);
    const json = JSON.parse(readFileSync(join(dir, 'd.json'), 'utf8'));
    expect(json).toMatchObject({
      command: 'verify',
      ok: false,
      counts: { tests: 4, passed: 3, failures: 1 },
    });
  });
});

describe('diff', () => {
  it('one testcase per aligned request; changed ones fail with both sides of each difference', async () => {
    const run = spawnTapedeck(
      ['diff', 'everything.jsonl', 'after.jsonl', '--reporter', 'junit:diff.xml', '--reporter', 'github'],
      { cwd: dir },
    );
    const result = await run.done;
    expect(result.code).toBe(1);
    const { cases } = junit('diff.xml');
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.name, outcome?.name])).toEqual([
      ['#1 initialize', undefined],
      ['#2 tools/list', undefined],
      ['#3 tools/call echo {"message":"hello"}', 'failure'],
      ['#4 tools/call get-sum {"a":2,"b":3}', 'failure'],
    ]);
    expect(cases[3]!.outcome!.text).toContain('params:\n$.params.arguments.a\n  a 2\n  b 7');
    const found = annotations(result.stdout.toString());
    expect(found.map((a) => [a.properties.file, a.properties.line])).toEqual([
      ['everything.jsonl', cases[2]!.testcase.attributes.line],
      ['everything.jsonl', cases[3]!.testcase.attributes.line],
    ]);
  });
});

describe('replay and run', () => {
  it('replay: a miss and the exchange it left unused, as testcases and as annotations on stderr', async () => {
    const cassette = join(dir, 'everything.jsonl');
    const report = join(dir, 'replay.xml');
    const session = await connectSession(
      replayCommand(cassette, ['--reporter', `junit:${report}`, '--reporter', 'github']),
    );
    await session.client.listTools();
    await session.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    const missed = await outcome(() =>
      session.client.callTool({ name: 'get-sum', arguments: { a: 5, b: 3 } }),
    );
    expect(missed).toMatchObject({
      error: expect.stringContaining('no recorded answer for tools/call get-sum'),
    });
    const exit = await session.finish();
    expect(exit.code).toBe(1);
    const cases = junitCases(parseXml(readFileSync(report, 'utf8')));
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.name, outcome?.name])).toEqual([
      ['miss 1: tools/call get-sum {"a":5,"b":3}', 'failure'],
      ['unused #3 tools/call get-sum {"a":2,"b":3}', 'failure'],
    ]);
    expect(cases[0]!.outcome!.text).toMatch(
      /closest recorded request: #3 \(line \d+\)\n\$\.params\.arguments\.a/,
    );
    expect(annotations(exit.stderr).map((a) => a.properties.title)).toEqual([
      'tapedeck replay: miss 1: tools/call get-sum {"a":5,"b":3}',
      'tapedeck replay: unused #3 tools/call get-sum {"a":2,"b":3}',
    ]);
  });

  it('replay under faults: each injected fault is a testcase, and a rule that spoiled nothing is skipped', async () => {
    const report = join(dir, 'faults.json');
    const session = await connectSession(
      replayCommand(join(dir, 'everything.jsonl'), [
        '--fault',
        'tool-error@tools/call:echo',
        '--fault',
        'error=-32001@tools/call#3',
        '--reporter',
        `json:${report}`,
      ]),
    );
    await session.client.listTools();
    const echo = await session.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(echo.isError).toBe(true);
    await session.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect((await session.finish()).code).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({ command: 'replay', ok: true });
    const cases = json.suites[0].cases.filter((c: { group: string }) => c.group === 'faults');
    expect(
      cases.map((c: { kind: string; status: string; name: string }) => [c.kind, c.status, c.name]),
    ).toEqual([
      ['fault', 'passed', expect.stringMatching(/^fault 1: tool-error on tools\/call echo \(id \d+\)$/)],
      ['fault-unused', 'skipped', "fault 'error=-32001@tools/call#3' spoiled no answer"],
    ]);
    expect(cases[1].message).toBe('it matched 2 requests, none of them the one it spoils');
  });

  it('run --mode replay: a clean session is one passing testcase in the JSON report', async () => {
    const report = join(dir, 'run.json');
    const session = await connectSession({
      command: process.execPath,
      args: [
        TAPEDECK_BIN,
        'run',
        '--mode',
        'replay',
        '--cassette',
        join(dir, 'everything.jsonl'),
        '--reporter',
        `json:${report}`,
      ],
    });
    await session.client.listTools();
    await session.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    await session.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect((await session.finish()).code).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json).toMatchObject({ command: 'run', ok: true, counts: { tests: 1, passed: 1 } });
    expect(json.suites[0].cases[0]).toMatchObject({
      kind: 'matched',
      message: '4/4 recorded exchanges used',
    });
  });
});

describe('scan', () => {
  it('--format sarif: one result per leaked token, on its line and column, the value nowhere', async () => {
    const result = await spawnTapedeck(['scan', 'leaky.jsonl', '--format', 'sarif'], { cwd: dir }).done;
    expect(result.code).toBe(1);
    const text = result.stdout.toString();
    expect(text).not.toContain(GHP);
    const log = JSON.parse(text);
    expect(sarifProblems(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['github-token']);
    const lines = readFileSync(join(dir, 'leaky.jsonl'), 'utf8').split('\n');
    // The token crossed twice: in the echo request and in its answer.
    expect(run.results).toHaveLength(2);
    for (const found of run.results) {
      const { artifactLocation, region } = found.locations[0].physicalLocation;
      expect(artifactLocation.uri).toBe('leaky.jsonl');
      expect(lines[region.startLine - 1]!.slice(region.startColumn - 1)).toMatch(/^ghp_0123/);
      expect(found).toMatchObject({ ruleId: 'github-token', ruleIndex: 0, level: 'error' });
    }
  });

  it('--reporter junit, github and json: a failed testcase and an annotation per finding, the value nowhere', async () => {
    const result = await spawnTapedeck(
      [
        'scan',
        'leaky.jsonl',
        '--reporter',
        'junit:scan.xml',
        '--reporter',
        'json:scan.json',
        '--reporter',
        'github',
      ],
      { cwd: dir },
    ).done;
    expect(result.code).toBe(1);
    const stdout = result.stdout.toString();
    const xml = readFileSync(join(dir, 'scan.xml'), 'utf8');
    const json = readFileSync(join(dir, 'scan.json'), 'utf8');
    for (const text of [stdout, xml, json, result.stderr]) expect(text).not.toContain(GHP);
    const { cases } = junit('scan.xml');
    expect(cases.map(({ testcase, outcome }) => [testcase.attributes.classname, outcome?.name])).toEqual([
      ['github-token', 'failure'],
      ['github-token', 'failure'],
    ]);
    const found = annotations(stdout);
    expect(found).toHaveLength(2);
    for (const annotation of found) {
      expect(annotation.properties).toMatchObject({
        file: 'leaky.jsonl',
        col: expect.stringMatching(/^\d+$/),
      });
      expect(annotation.message).toMatch(
        /^a secret by rule "github-token" at line \d+ \$\.[^:]+: ghp_…\(40\)$/,
      );
    }
  });
});
