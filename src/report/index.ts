import { renderGithub } from './ci/github.js';
import { renderJsonReport } from './ci/json.js';
import { renderJunit } from './ci/junit.js';
import { renderSarif } from './ci/sarif.js';
import type { RedactedReport } from './redacted.js';

/**
 * What a command found, rendered for a person or for CI: one family of renderers, side by side, that return text
 * and print nothing (the command line decides where it goes).
 *
 * - `report/*.ts` — the report model every CI format reads (model.ts, redacted.ts) and one mapper per command
 *   that finds things (from-verify.ts, from-diff.ts, from-replay.ts, from-scan.ts), with what they share
 *   (diff-text.ts, scan-rules.ts).
 * - `report/ci/<format>.ts` — one CI format per file, each a {@link CiRenderer} of the redacted model, chosen by
 *   name in {@link CI_RENDERERS}: a new format is one file and one entry here.
 * - `report/text/*.ts` — what a command prints on the terminal: the `show` timeline, the `stats`, `scan`, `diff`
 *   and `ls` reports, the stderr lines of `replay` / `run`, the redaction rules table, and their shared pieces
 *   (table.ts, wrap.ts, color.ts). Each renders its own command's data (a timeline of events, a stats summary),
 *   not the CI model, so they share helpers rather than an interface; each takes its colour and width as options,
 *   which src/cli/terminal.ts reads off the terminal.
 */

/** The CI formats, by the name `--reporter` takes. */
export type ReporterFormat = 'junit' | 'github' | 'json' | 'sarif';

/** A CI format: the redacted report as one document (or, for GitHub, one log line per annotation). */
export type CiRenderer = (report: RedactedReport) => string;

/**
 * Every CI format, by name. Each renders a redacted report (see redacted.ts), so none can forget to redact.
 *
 * @example CI_RENDERERS.junit(redactReport(report, redaction)) // → '<?xml version="1.0" …'
 */
export const CI_RENDERERS: Readonly<Record<ReporterFormat, CiRenderer>> = {
  junit: renderJunit,
  github: renderGithub,
  json: renderJsonReport,
  sarif: renderSarif,
};
