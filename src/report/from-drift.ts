import type { DriftChange, DriftFailOn } from '../gates/drift/classes.js';
import { driftFails } from '../gates/drift/classes.js';
import type { Report, ReportCase, ReportContext, ReportRule } from './model.js';

/** What `tapedeck drift` compared and found. */
export interface DriftReportInput {
  base: string;
  next: string;
  /** Each changed item's line in BASE, when BASE is a lock file (by `kind \0 id`). */
  lines?: Map<string, number> | undefined;
  changes: readonly DriftChange[];
  failOn: DriftFailOn;
}

const RULES: readonly ReportRule[] = [
  {
    id: 'drift/breaking',
    description: 'A change that breaks existing clients.',
    help: 'Restore the definition, or approve it with --write-lock.',
    level: 'error',
    precision: 'high',
    tags: ['mcp', 'contract'],
  },
  {
    id: 'drift/risky',
    description: 'A change that makes a tool less safe or changes a constraint.',
    help: 'Review it, then approve it with --write-lock.',
    level: 'warning',
    precision: 'high',
    tags: ['mcp', 'contract'],
  },
  {
    id: 'drift/additive',
    description: 'Something new that existing clients may ignore.',
    help: 'Approve it with --write-lock.',
    level: 'note',
    precision: 'high',
    tags: ['mcp', 'contract'],
  },
  {
    id: 'drift/cosmetic',
    description: 'Text only: a description or title.',
    help: 'Approve it with --write-lock.',
    level: 'note',
    precision: 'high',
    tags: ['mcp', 'contract'],
  },
];

/**
 * `tapedeck drift` as a report: one case per change, failed when its class is at or above `--fail-on` (else passed,
 * so JUnit lists it), pointing at the item's line in BASE when BASE is a lock file.
 *
 * @example driftReport({ base: 'tools.lock.json', next: 'node server.js', changes, failOn: 'breaking' }, context)
 */
export function driftReport(input: DriftReportInput, context: ReportContext): Report {
  const cases: ReportCase[] = input.changes.map((change, i) => {
    const line = input.lines?.get(`${change.kind}\u0000${change.item}`);
    const fails = driftFails(change, input.failOn);
    return {
      name: `change ${i + 1}: ${change.kind} ${change.item} ${change.path}`,
      group: change.kind,
      kind: change.class,
      status: fails ? 'failed' : 'passed',
      severity: change.class === 'breaking' ? 'error' : change.class === 'risky' ? 'warning' : 'note',
      message: `${change.class}: ${change.message}${beforeAfter(change)}`,
      location: line === undefined ? { file: input.base } : { file: input.base, line },
      rule: `drift/${change.class}`,
    };
  });
  if (cases.length === 0)
    cases.push({
      name: 'no changes',
      group: 'drift',
      kind: 'clean',
      status: 'passed',
      location: { file: input.base },
    });
  const named = new Set(input.changes.map((c) => `drift/${c.class}`));
  return {
    version: 1,
    tool: context.tool,
    command: 'drift',
    title: `tapedeck drift ${input.base} ${input.next}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites: [
      {
        name: `drift ${input.base} → ${input.next}`,
        file: input.base,
        durationMs: context.durationMs,
        cases,
      },
    ],
    rules: RULES.filter((r) => named.has(r.id)),
  };
}

/** ` (before → after)` for a value that changed, short. */
export function beforeAfter(change: DriftChange): string {
  if (change.path === '$') return '';
  const show = (v: unknown) => {
    const text = v === undefined ? '(none)' : JSON.stringify(v);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  };
  return ` (${show(change.before)} → ${show(change.after)})`;
}
