import { describe, expect, it } from 'vitest';
import { renderJsonReport } from '../../src/report/ci/json.js';
import { replayReport } from '../../src/report/from-replay.js';
import { verifyReport } from '../../src/report/from-verify.js';
import { countCases, reportPassed } from '../../src/report/model.js';
import { describeScanRule, scanRule } from '../../src/report/scan-rules.js';
import { CONTEXT, diffFixture, replayFixture, scanFixture, shown, verifyFixture } from './fixtures.js';

const statuses = (report: ReturnType<typeof verifyFixture>) =>
  report.suites.flatMap((suite) => suite.cases.map((c) => [c.kind, c.status]));

describe('the mappers', () => {
  it('verify: a match passes, a diff fails, no answer is an error, a skipped exchange is skipped', () => {
    expect(statuses(verifyFixture())).toEqual([
      ['match', 'passed'],
      ['differ', 'failed'],
      ['no-answer', 'error'],
      ['skipped', 'skipped'],
    ]);
  });

  it('verify: unanswered server requests fail unless accepted, corrupt lines are an error', () => {
    const base = {
      verdicts: [],
      total: 0,
      matched: 0,
      differed: 0,
      skipped: 0,
      sessions: [],
      notes: ['the server asked sampling/createMessage, which the recording has no answer to'],
      unanswered: ['roots/list'],
      incomplete: false,
      exit: { code: 0, signal: null },
      stderrTail: '',
    };
    const failing = verifyReport(
      { cassette: 's.jsonl', report: base, allowUnanswered: false, corruptLines: 2 },
      CONTEXT,
    );
    expect(statuses(failing)).toEqual([
      ['note', 'failed'],
      ['unanswered', 'failed'],
      ['corrupt', 'error'],
    ]);
    const accepted = verifyReport(
      { cassette: 's.jsonl', report: base, allowUnanswered: true, corruptLines: 0 },
      CONTEXT,
    );
    expect(statuses(accepted)).toEqual([
      ['note', 'failed'],
      ['unanswered', 'skipped'],
    ]);
  });

  it('diff: the same passes; changed, only in a and only in b fail, each pointed at its own trace', () => {
    const report = diffFixture();
    const cases = report.suites[0]!.cases;
    expect(cases.map((c) => [c.name, c.status, c.location?.file, c.location?.line])).toEqual([
      ['#1 tools/list', 'passed', 'before.jsonl', 2],
      ['#2 tools/call add {"a":2,"b":3}', 'failed', 'before.jsonl', 4],
      ['#3 tools/call greet {"name":"Ada"}', 'failed', 'before.jsonl', 6],
      ['b#3 tools/call search {"q":"x"}', 'failed', 'after.jsonl', 6],
    ]);
    expect(cases[1]!.details).toBe('answer:\n$.result.content[0].text\n  a "5"\n  b "6"');
  });

  it('replay: a clean session is one passing case, so a report is never empty', () => {
    const report = replayReport(
      {
        command: 'run',
        cassette: 'c.jsonl',
        report: { used: 3, total: 3, unused: [], misses: [], timeouts: [] },
        allowUnused: false,
        corruptLines: 0,
      },
      CONTEXT,
    );
    expect(report.suites[0]!.cases).toEqual([
      expect.objectContaining({ status: 'passed', message: '3/3 recorded exchanges used' }),
    ]);
    expect(reportPassed(report)).toBe(true);
  });

  it('replay: every injected fault is a passing case, and a rule that spoiled nothing a skipped one', () => {
    const report = replayReport(
      {
        command: 'replay',
        cassette: 'c.jsonl',
        report: {
          used: 2,
          total: 2,
          unused: [],
          misses: [],
          timeouts: [],
          faults: [
            {
              kind: 'error',
              fault: 'error=-32000@tools/call',
              id: 2,
              method: 'tools/call',
              target: 'add',
              code: -32000,
            },
            { kind: 'latency', fault: 'latency=50~20%50', id: 3, method: 'tools/list', delayMs: 61, seed: 7 },
          ],
        },
        allowUnused: false,
        corruptLines: 0,
        faultsNotApplied: [
          { rule: 'disconnect@prompts/get', matched: 0 },
          { rule: 'error@tools/call#4', matched: 1 },
        ],
      },
      CONTEXT,
    );
    const cases = report.suites[0]!.cases;
    expect(cases.map((c) => [c.kind, c.status, c.name])).toEqual([
      ['matched', 'passed', 'every request matched a recorded exchange'],
      ['fault', 'passed', 'fault 1: error -32000 on tools/call add (id 2)'],
      ['fault', 'passed', 'fault 2: latency 61ms on tools/list (id 3)'],
      ['fault-unused', 'skipped', "fault 'disconnect@prompts/get' spoiled no answer"],
      ['fault-unused', 'skipped', "fault 'error@tools/call#4' spoiled no answer"],
    ]);
    expect(cases[2]!.message).toBe("injected by 'latency=50~20%50' (seed 7)");
    expect(cases[3]!.message).toBe('the client never asked what it names');
    expect(cases[4]!.message).toBe('it matched 1 request, none of them the one it spoils');
    // Faults are what the run asked for: they never fail it.
    expect(reportPassed(report)).toBe(true);
  });

  it('replay: in update mode forwarded requests pass and those the live server did not answer fail', () => {
    const report = replayReport(
      {
        command: 'run',
        cassette: 'c.jsonl',
        report: {
          used: 1,
          total: 1,
          unused: [],
          misses: [],
          timeouts: ['no answer to roots/list in 30000 ms'],
        },
        allowUnused: false,
        corruptLines: 0,
        forwarded: {
          count: 2,
          failures: ['tools/call is not in the cassette and the live server timed out'],
        },
      },
      CONTEXT,
    );
    expect(statuses(report)).toEqual([
      ['forwarded', 'passed'],
      ['forward-failed', 'failed'],
      ['unanswered', 'failed'],
    ]);
  });

  it('replay: a miss names the closest recorded request and points at its line', async () => {
    const miss = (await replayFixture()).suites[0]!.cases[0]!;
    expect(miss).toMatchObject({
      kind: 'miss-unknown',
      status: 'failed',
      location: { file: 'fixtures/c.jsonl', line: 2 },
    });
    expect(miss.details).toMatch(/^closest recorded request: #0 \(line 2\)\n\$\.params\.arguments\.a/);
  });

  it('scan: each finding fails with its rule, a guess as a warning; the rules are listed once each', () => {
    const { report } = scanFixture();
    const findings = report.suites[0]!.cases.filter((c) => c.kind === 'secret');
    expect(findings.map((c) => [c.rule, c.severity])).toEqual([
      ['github-token', 'error'],
      ['password', 'error'],
      ['entropy', 'warning'],
    ]);
    expect(report.rules!.map((r) => r.id)).toEqual(['github-token', 'password', 'entropy']);
  });
});

describe('the JSON report', () => {
  it('is one shape for every command: ok, counts overall and per suite, the cases', async () => {
    for (const report of [verifyFixture(), diffFixture(), await replayFixture(), scanFixture().report]) {
      const redacted = shown(report);
      const document = JSON.parse(renderJsonReport(redacted));
      expect(document).toMatchObject({
        version: 1,
        tool: { name: 'tapedeck', version: '0.1.0' },
        command: report.command,
        ok: false,
        counts: countCases(report),
        startedAt: CONTEXT.startedAt,
      });
      expect(document.suites[0].counts).toEqual(countCases(report.suites[0]!));
      expect(document.suites[0].cases).toEqual(JSON.parse(JSON.stringify(redacted.suites[0]!.cases)));
    }
  });
});

describe('scan rules', () => {
  it('describes built-in rules by what they look for and their family, and custom ones by id', () => {
    expect(describeScanRule('password')).toBe(
      'A value under a key named like "password" (secret-named keys, flags, variables and pairs in text)',
    );
    expect(describeScanRule('aws-access-key-id')).toBe(
      'A token in the format aws-access-key-id (AWS, Google Cloud, Azure and other clouds)',
    );
    expect(describeScanRule('acme-id')).toBe(
      'A value matched by the redaction rule "acme-id" (a rule of your own)',
    );
    expect(scanRule('entropy')).toMatchObject({ level: 'warning', precision: 'low' });
  });
});
