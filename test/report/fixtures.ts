/**
 * Reports for the renderers' tests, each made by its command's real mapper from what that command really
 * produces: verify from a VerifyReport as src/live builds them, diff from alignTraces, replay from the matcher's
 * own report after real matches and misses, scan from findSecrets on real lines. Values carry what breaks careless
 * renderers: quotes, `<` `&` `]]>`, line breaks, `%` `:` `,`, control characters, a lone surrogate.
 */
import type { VerifyReport } from '../../src/live/verify.js';
import { compile, findSecrets } from '../../src/redact/index.js';
import { builtInOutputRedaction } from '../../src/redact/output.js';
import { buildCassette } from '../../src/replay/cassette/cassette.js';
import { Matcher } from '../../src/replay/cassette/matcher.js';
import { diffReport } from '../../src/report/from-diff.js';
import { replayReport } from '../../src/report/from-replay.js';
import { scanReport } from '../../src/report/from-scan.js';
import { verifyReport } from '../../src/report/from-verify.js';
import type { Report, ReportContext } from '../../src/report/model.js';
import { type RedactedReport, redactReport } from '../../src/report/redacted.js';
import { alignTraces } from '../../src/trace/align.js';
import { structuralDiff } from '../../src/trace/json-diff.js';
import type { RecordLine, TraceLine } from '../../src/trace/types.js';
import { call, req, res, traceLines } from '../replay/helpers.js';

export const CONTEXT: ReportContext = {
  startedAt: '2026-03-04T05:06:07.890Z',
  durationMs: 1234,
  tool: { name: 'tapedeck', version: '0.1.0' },
};

/** Text a renderer must carry through intact (or, for what XML cannot hold, visibly). */
export const TRICKY = 'a "quote" <tag> & ]]> 50% a:b, c\nnext line\r\tbell\u0007 lone\uD800 end';

export const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

/** A live run of four exchanges: one matched, one differs (with tricky values), one timed out, one skipped. */
export function verifyFixture(): Report {
  const base = { session: 1, notes: [] as string[], reason: undefined, diff: undefined, ms: 12 };
  const report: VerifyReport = {
    verdicts: [
      { ...base, ordinal: 0, method: 'initialize', summary: 'initialize', lineNo: 2, status: 'match' },
      {
        ...base,
        ordinal: 1,
        method: 'tools/call',
        summary: 'tools/call echo {"message":"hi"}',
        lineNo: 4,
        status: 'differ',
        diff: structuralDiff(
          { result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
          { result: { content: [{ type: 'text', text: TRICKY }] } },
        ),
      },
      {
        ...base,
        ordinal: 2,
        method: 'tools/call',
        summary: 'tools/call slow {}',
        lineNo: 6,
        status: 'differ',
        ms: 30001,
        reason: 'no answer to tools/call within 30000 ms (raise --timeout if the server is just slow)',
      },
      {
        ...base,
        ordinal: 3,
        method: 'tools/call',
        summary: 'tools/call gone {}',
        lineNo: 8,
        status: 'skipped',
        ms: undefined,
        reason: 'the client cancelled it in the recording',
      },
    ],
    total: 3,
    matched: 1,
    differed: 2,
    skipped: 1,
    sessions: [],
    notes: [],
    unanswered: [],
    incomplete: true,
    exit: { code: 0, signal: null },
    stderrTail: '',
  };
  return verifyReport(
    { cassette: 'fixtures/my session.jsonl', report, allowUnanswered: false, corruptLines: 0 },
    CONTEXT,
  );
}

/** Trace a: list, add 2+3, greet; trace b: list, add 2+3 answered differently, search (new). */
export function diffFixture(): Report {
  const list = ['in', req(1, 'tools/list')] as const;
  const listed = ['out', res(1, { tools: [] })] as const;
  const a = traceLines([
    [...list],
    [...listed],
    ['in', req(2, 'tools/call', call('add', { a: 2, b: 3 }))],
    ['out', res(2, { content: [{ type: 'text', text: '5' }] })],
    ['in', req(3, 'tools/call', call('greet', { name: 'Ada' }))],
    ['out', res(3, { content: [{ type: 'text', text: 'Hello, Ada!' }] })],
  ]);
  const b = traceLines([
    [...list],
    [...listed],
    ['in', req(2, 'tools/call', call('add', { a: 2, b: 3 }))],
    ['out', res(2, { content: [{ type: 'text', text: '6' }] })],
    ['in', req(3, 'tools/call', call('search', { q: 'x' }))],
    ['out', res(3, { content: [] })],
  ]);
  const alignment = alignTraces(a, b);
  // Line numbers as files would give them: the meta is line 1, a request's index in the lines is its line - 1.
  const lineOf = (exchange: { requestRef: { index: number } }) => exchange.requestRef.index + 1;
  return diffReport(
    {
      alignment,
      sides: [
        { file: 'before.jsonl', lineOf },
        { file: 'after.jsonl', lineOf },
      ],
      corruptLines: 0,
    },
    CONTEXT,
  );
}

/** A cassette of three calls; the client asks one of them and one the cassette does not hold. */
export async function replayFixture(allowUnused = false): Promise<Report> {
  const lines = traceLines([
    ['in', req(1, 'tools/call', call('add', { a: 2, b: 3 }))],
    ['out', res(1, { content: [{ type: 'text', text: '5' }] })],
    ['in', req(2, 'tools/call', call('greet', { name: 'Ada' }))],
    ['out', res(2, { content: [{ type: 'text', text: 'Hello' }] })],
    ['in', req(3, 'tools/list')],
    ['out', res(3, { tools: [] })],
  ]);
  // Entries as a file gives them, so exchanges know their lines (the meta is line 1).
  const [meta, ...records] = lines;
  const cassette = await buildCassette([
    meta!,
    ...records.map((line, i) => ({ line: line as RecordLine, file: 'c.jsonl', lineNo: i + 2, segment: 0 })),
  ]);
  const matcher = new Matcher(cassette);
  matcher.match('tools/call', call('add', { a: 2, b: 3 }));
  matcher.match('tools/call', call('add', { a: 5, b: 5 }));
  const report = { ...matcher.report(), timeouts: [] };
  return replayReport(
    { command: 'replay', cassette: 'fixtures/c.jsonl', report, allowUnused, corruptLines: 1 },
    CONTEXT,
  );
}

/** A trace with a GitHub token, a password, a random-looking string, and a line nothing is found in. */
export function scanFixture(): { report: Report; secrets: string[] } {
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
  const random = 'Zx8kP2mQ9vL4nR7tW1yB6cF3hJ5sD0gA';
  const lines: TraceLine[] = [
    { t: CONTEXT.startedAt, seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    {
      t: CONTEXT.startedAt,
      seq: 2,
      dir: 'in',
      raw: req(2, 'tools/call', call('deploy', { note: `use ${GHP}`, password: 'hunter2!' })),
    },
    { t: CONTEXT.startedAt, seq: 3, type: 'stderr', text: `session ${random}` },
  ];
  const findings = lines.flatMap((line, i) => {
    const text = JSON.stringify(line);
    return findSecrets(line, compiled, { text }).map((f) => ({
      ...f,
      file: 'fixtures/t.jsonl',
      line: i + 2,
    }));
  });
  const report = scanReport(
    { trace: 'fixtures/t.jsonl', format: 'tapedeck', lines: 4, unreadable: 1, findings },
    CONTEXT,
  );
  return { report, secrets: [GHP, 'hunter2!', random] };
}

/** A report as the CLI hands it to a format: redacted with the built-in rules. */
export function shown(report: Report): RedactedReport {
  return redactReport(report, builtInOutputRedaction());
}
