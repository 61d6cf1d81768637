import type { AlignedItem, TraceAlignment, ValueDiff } from '../trace/align.js';
import { describeRequest } from '../trace/describe.js';
import type { Exchange } from '../trace/exchange.js';
import { createNormalizer } from '../trace/normalize.js';
import { differences, diffText } from './diff-text.js';
import { corruptCase } from './from-verify.js';
import type { Report, ReportCase, ReportContext, ReportLocation } from './model.js';

/** One trace of a diff as the report names it. */
export interface DiffReportSide {
  /** The trace, as the report names it. */
  file: string;
  /** The 1-based line of an exchange's request in the file, when known. */
  lineOf: (exchange: Exchange) => number | undefined;
}

/** What `tapedeck diff` knows: the alignment, the two traces, and how many of their lines could not be read. */
export interface DiffReportInput {
  alignment: TraceAlignment;
  sides: readonly [DiffReportSide, DiffReportSide];
  corruptLines: number;
}

const describer = createNormalizer();

/**
 * `tapedeck diff` as a report: one case per aligned request — the same passes; changed (with where its params and
 * answer differ), only in a, and only in b fail — plus one for corrupt lines.
 *
 * @example diffReport({ alignment: alignTraces(a, b), sides: [sideA, sideB], corruptLines: 0 }, context)
 */
export function diffReport(input: DiffReportInput, context: ReportContext): Report {
  const [a, b] = input.sides;
  const cases = input.alignment.items.map((item) => itemCase(item, input));
  if (input.corruptLines > 0) cases.push(corruptCase(`${a.file} or ${b.file}`, input.corruptLines));
  return {
    version: 1,
    tool: context.tool,
    command: 'diff',
    title: `tapedeck diff ${a.file} ${b.file}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites: [{ name: `diff ${a.file} ${b.file}`, file: a.file, durationMs: context.durationMs, cases }],
  };
}

function itemCase(item: AlignedItem, input: DiffReportInput): ReportCase {
  const [a, b] = input.sides;
  const exchange = (item.a ?? item.b) as Exchange;
  const phrase = describeRequest(describer.normalize(exchange.method, exchange.request.params), 60);
  const server = input.alignment.multiServer ? `[${item.server ?? '-'}] ` : '';
  const where = item.kind === 'added' ? `b#${(item.bIndex ?? 0) + 1}` : `#${(item.aIndex ?? 0) + 1}`;
  const base: ReportCase = {
    name: `${where} ${server}${phrase}`,
    group: item.method,
    kind: item.kind,
    status: item.kind === 'same' ? 'passed' : 'failed',
    durationMs: item.b?.latencyMs ?? item.a?.latencyMs,
    // A request only in b has no place in a; everything else is pointed at in a, the baseline.
    location: item.kind === 'added' ? at(b, item.b) : at(a, item.a),
  };
  switch (item.kind) {
    case 'same':
      return base;
    case 'added':
      return { ...base, message: `only in b (${b.file}): ${phrase}` };
    case 'removed':
      return { ...base, message: `only in a (${a.file}): ${phrase}` };
    case 'changed': {
      const parts = [
        item.params ? `its params differ (${differences(item.params.total)})` : '',
        item.result ? `its answer differs (${differences(item.result.total)})` : '',
      ].filter((part) => part !== '');
      const details = [section('params', item.params), section('answer', item.result)].filter(
        (text) => text !== '',
      );
      return {
        ...base,
        message: `changed between a and b: ${parts.length > 0 ? parts.join(', ') : 'it was matched to a different request'}`,
        details: details.length > 0 ? details.join('\n') : undefined,
      };
    }
  }
}

function at(side: DiffReportSide, exchange: Exchange | undefined): ReportLocation {
  return { file: side.file, line: exchange === undefined ? undefined : side.lineOf(exchange) };
}

function section(label: string, diff: ValueDiff | undefined): string {
  if (!diff) return '';
  const entries = diff.entries.map((e) => ({ path: e.path, left: e.a, right: e.b }));
  return `${label}:\n${diffText(entries, diff.total, ['a', 'b'])}`;
}
