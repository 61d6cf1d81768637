import { describe, expect, it } from 'vitest';
import { artifactUri, renderSarif } from '../../../src/report/ci/sarif.js';
import { scanReport } from '../../../src/report/from-scan.js';
import { sarifProblems } from '../../helpers/ci-formats.js';
import { CONTEXT, scanFixture, shown } from '../fixtures.js';

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string }; region?: Record<string, number> } }[];
}

function parsed(text: string) {
  return JSON.parse(text) as {
    version: string;
    runs: {
      tool: { driver: { name: string; rules: { id: string; defaultConfiguration: { level: string } }[] } };
      invocations: {
        executionSuccessful: boolean;
        toolExecutionNotifications: { message: { text: string } }[];
      }[];
      results: SarifResult[];
    }[];
  };
}

describe('renderSarif', () => {
  it('writes a SARIF 2.1.0 log of the structure the specification requires', () => {
    const log = JSON.parse(renderSarif(shown(scanFixture().report)));
    expect(sarifProblems(log)).toEqual([]);
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
  });

  it('gives one result per finding with its rule, level, and line and column in the file', () => {
    const { runs } = parsed(renderSarif(shown(scanFixture().report)));
    const run = runs[0]!;
    expect(run.tool.driver.rules.map((r) => [r.id, r.defaultConfiguration.level])).toEqual([
      ['github-token', 'error'],
      ['password', 'error'],
      ['entropy', 'warning'],
    ]);
    expect(run.results.map((r) => [r.ruleId, run.tool.driver.rules[r.ruleIndex]!.id, r.level])).toEqual([
      ['github-token', 'github-token', 'error'],
      ['password', 'password', 'error'],
      ['entropy', 'entropy', 'warning'],
    ]);
    for (const result of run.results) {
      const { artifactLocation, region } = result.locations[0]!.physicalLocation;
      expect(artifactLocation.uri).toBe('fixtures/t.jsonl');
      expect(region!.startLine).toBeGreaterThan(1);
      expect(region!.startColumn).toBeGreaterThan(1);
    }
  });

  it('never writes the value of a secret, only its masked preview', () => {
    const { report, secrets } = scanFixture();
    const text = renderSarif(shown(report));
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(parsed(text).runs[0]!.results[0]!.message.text).toContain('ghp_…(40)');
  });

  it('reports corrupt lines as a notification of an unsuccessful run, not as a finding', () => {
    const run = parsed(renderSarif(shown(scanFixture().report))).runs[0]!;
    expect(run.invocations[0]!.executionSuccessful).toBe(false);
    expect(run.invocations[0]!.toolExecutionNotifications[0]!.message.text).toMatch(/^1 corrupt line in/);
  });

  it('writes an empty, successful run for a clean trace', () => {
    const report = scanReport(
      { trace: 't.jsonl', format: 'tapedeck', lines: 3, unreadable: 0, findings: [] },
      CONTEXT,
    );
    const log = JSON.parse(renderSarif(shown(report)));
    expect(sarifProblems(log)).toEqual([]);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].tool.driver.rules).toEqual([]);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(true);
  });

  it('names an item of a JSON document in the message, with no line region', () => {
    const report = scanReport(
      {
        trace: 'calls.har',
        format: 'har',
        lines: 4,
        unreadable: 0,
        findings: [
          {
            file: 'calls.har',
            line: 2,
            path: 'headers.authorization',
            rule: 'authorization-header',
            preview: 'Bea…(13)',
          },
        ],
      },
      CONTEXT,
    );
    const result = parsed(renderSarif(shown(report))).runs[0]!.results[0]!;
    expect(result.message.text).toContain('item 2 headers.authorization');
    expect(result.locations[0]!.physicalLocation).toEqual({ artifactLocation: { uri: 'calls.har' } });
  });
});

describe('artifactUri', () => {
  it('keeps relative paths relative and percent-encodes each segment', () => {
    expect(artifactUri('fixtures/my session #1.jsonl')).toBe('fixtures/my%20session%20%231.jsonl');
    expect(artifactUri('a:b/c.jsonl')).toBe('a%3Ab/c.jsonl');
  });

  it('makes absolute paths file URIs, Windows ones too', () => {
    expect(artifactUri('/tmp/x y.jsonl')).toBe('file:///tmp/x%20y.jsonl');
    expect(artifactUri('C:\\work\\t.jsonl')).toBe('file:///C:/work/t.jsonl');
  });
});
