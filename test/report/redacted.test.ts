import { describe, expect, it } from 'vitest';
import { builtInOutputRedaction } from '../../src/redact/output.js';
import { renderJunit } from '../../src/report/ci/junit.js';
import type { Report } from '../../src/report/model.js';
import { redactReport } from '../../src/report/redacted.js';

const TOKEN = 'ghp_Zq4Rt8Wm2Np6Ks0Lx3Vb7Hc1Jd5Fg9Ty2Ue4';

const report: Report = {
  version: 1,
  tool: { name: 'tapedeck', version: '0.1.0' },
  command: 'replay',
  title: `tapedeck replay s-${TOKEN}.jsonl`,
  startedAt: '2026-12-01T00:00:00.000Z',
  durationMs: 12,
  suites: [
    {
      name: 'replay s.jsonl',
      file: 's.jsonl',
      durationMs: 12,
      cases: [
        {
          name: `miss 1: resources/read https://x.example/f?token=${TOKEN}`,
          group: 'resources/read',
          kind: 'miss-unknown',
          status: 'failed',
          message: `no recorded answer for {"password": "hunter2-x"}`,
          details: `$.params.uri\n  live "https://x.example/f?access_token=${TOKEN}"`,
          location: { file: 's.jsonl', line: 4, column: 2 },
          durationMs: 3,
        },
      ],
    },
  ],
};

describe('redactReport', () => {
  it('hides what every text of the report quotes, keeping the counts, statuses and places', () => {
    const redacted = redactReport(report, builtInOutputRedaction());
    expect(JSON.stringify(redacted)).not.toContain(TOKEN);
    expect(JSON.stringify(redacted)).not.toContain('hunter2-x');
    const [c] = redacted.suites[0]!.cases;
    expect(c).toMatchObject({
      status: 'failed',
      kind: 'miss-unknown',
      durationMs: 3,
      location: { file: 's.jsonl', line: 4, column: 2 },
      name: 'miss 1: resources/read https://x.example/f?token=[REDACTED:github-token]',
      message: 'no recorded answer for {"password": "[REDACTED:password]"}',
    });
    expect(redacted.title).toBe('tapedeck replay s-[REDACTED:github-token].jsonl');
    expect(report.suites[0]!.cases[0]!.name).toContain(TOKEN);
  });

  it('is the only way to a report a format renders', () => {
    // What a format would write of a report that skipped redaction — and why that no longer compiles: every
    // format takes a RedactedReport (typecheck fails here if one ever takes a plain Report again).
    // @ts-expect-error a plain Report is not a RedactedReport
    expect(renderJunit(report)).toContain(TOKEN);
    expect(renderJunit(redactReport(report, builtInOutputRedaction()))).not.toContain(TOKEN);
  });
});
