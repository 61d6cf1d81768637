import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, renderGithub } from '../../../src/report/ci/github.js';
import type { Report } from '../../../src/report/model.js';
import { parseAnnotations } from '../../helpers/ci-formats.js';
import {
  CONTEXT,
  diffFixture,
  replayFixture,
  scanFixture,
  shown,
  TRICKY,
  verifyFixture,
} from '../fixtures.js';

describe('renderGithub', () => {
  it('writes one workflow command per failed or error case, nothing for passed and skipped ones', async () => {
    const counts: Record<string, number> = {};
    for (const report of [verifyFixture(), diffFixture(), await replayFixture(), scanFixture().report])
      counts[report.command] = parseAnnotations(renderGithub(shown(report))).length;
    // verify: a divergence and a timeout; diff: changed, removed, added; replay: a miss, two unused, corrupt
    // lines; scan: three findings and corrupt lines.
    expect(counts).toEqual({ verify: 2, diff: 3, replay: 4, scan: 4 });
  });

  it('points each annotation at the file and line, titles it, and carries the diff as its message', () => {
    const [differ, timeout] = parseAnnotations(renderGithub(shown(verifyFixture())));
    expect(differ).toEqual({
      level: 'error',
      properties: {
        file: 'fixtures/my session.jsonl',
        line: '4',
        title: 'tapedeck verify: #1 tools/call echo {"message":"hi"}',
      },
      message: expect.stringMatching(
        /^the live answer differs from the recorded one \(1 difference\)\n\$\.result\.content\[0\]\.text\n {2}recorded "Echo: hi"\n {2}live {5}"a \\"quote\\"/,
      ),
    });
    expect(timeout!.properties.line).toBe('6');
  });

  it('makes a rule finding an error and a guess of the heuristic a warning, with the column', () => {
    const annotations = parseAnnotations(renderGithub(shown(scanFixture().report)));
    expect(annotations.map((a) => [a.level, a.properties.line, a.properties.col !== undefined])).toEqual([
      ['error', '3', true],
      ['error', '3', true],
      ['warning', '4', true],
      ['error', undefined, false],
    ]);
  });

  it('never writes the value of a secret, only its masked preview', () => {
    const { report, secrets } = scanFixture();
    const text = renderGithub(shown(report));
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('ghp_…(40)');
  });

  it('escapes %, CR and LF in messages and also : and , in properties, so any text survives the grammar', () => {
    const report: Report = {
      version: 1,
      tool: CONTEXT.tool,
      command: 'verify',
      title: 'tapedeck verify x',
      startedAt: CONTEXT.startedAt,
      durationMs: 0,
      suites: [
        {
          name: 'verify x',
          cases: [
            {
              name: TRICKY,
              group: 'g',
              kind: 'differ',
              status: 'failed',
              message: TRICKY,
              details: '%0A is not a newline',
              location: { file: 'dir, with: odd%name.jsonl', line: 3 },
            },
          ],
        },
      ],
    };
    const text = renderGithub(shown(report));
    expect(text.split('\n')).toHaveLength(2);
    const [annotation] = parseAnnotations(text);
    expect(annotation).toEqual({
      level: 'error',
      properties: { file: 'dir, with: odd%name.jsonl', line: '3', title: `tapedeck verify: ${TRICKY}` },
      message: `${TRICKY}\n%0A is not a newline`,
    });
  });

  it('writes nothing for a run where everything passed', async () => {
    const report = verifyFixture();
    report.suites[0]!.cases = report.suites[0]!.cases.filter((c) => c.status === 'passed');
    expect(renderGithub(shown(report))).toBe('');
  });
});

describe('workflow command escaping', () => {
  it('encodes the percent sign first, so an escape in the text stays text', () => {
    expect(escapeData('100%0A\r\n')).toBe('100%250A%0D%0A');
    expect(escapeProperty('a:b,c%')).toBe('a%3Ab%2Cc%25');
  });
});
