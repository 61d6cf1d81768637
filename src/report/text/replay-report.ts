import { describeFault } from '../../faults/records.js';
import type { OutputRedaction } from '../../redact/output.js';
import { formatDiff } from '../../replay/cassette/diff.js';
import type { MatchReport } from '../../replay/cassette/matcher.js';
import type { VersionNote } from '../../replay/engine/negotiation.js';
import type { ServeEvent } from '../../replay/serve/stdio.js';

const UNUSED_SHOWN = 20;

/**
 * The stderr line for what happened while a cassette was served, or undefined for what stays quiet (hits,
 * fallbacks, anything the caller explains itself). Shared by `replay` and `run`. With `shown`, what the line quotes
 * from the session is redacted before it is shortened (the line as a whole is redacted again as it is written).
 *
 * @example describeServeEvent({ kind: 'timeout', message: 'no answer to sampling/createMessage in 30000 ms' })
 */
export function describeServeEvent(event: ServeEvent, shown?: OutputRedaction): string | undefined {
  switch (event.kind) {
    case 'miss':
      return `miss: ${event.miss.message}`;
    case 'timeout':
      return `timeout: ${event.message}`;
    case 'no-response':
      return `error: ${event.message}`;
    case 'answer': {
      const { answer } = event;
      if (!answer.differs) return undefined;
      const where = answer.diff
        ? `differs at ${formatDiff(answer.diff)}`
        : 'has no recorded answer to compare with';
      return `note: the client's answer to ${answer.method} ${where}`;
    }
    case 'stray':
      // Redacted whole before it is cut short: a secret cut in half is one no rule knows.
      return `ignored ${preview(JSON.stringify(shown ? shown.message(event.message) : event.message))}: ${event.reason}`;
    case 'skipped':
      return event.line.reason === 'not-json'
        ? `ignored a line that is not JSON: ${preview(shown ? shown.text(event.line.text) : event.line.text)}`
        : `ignored a ${event.line.size}-byte line (longer than ${event.line.maxLineBytes} bytes)`;
    case 'error':
      return `error: ${event.error instanceof Error ? event.error.message : String(event.error)}`;
    case 'fault':
      return `injected ${describeFault(event.fault)}`;
    case 'version':
      return describeVersion(event.note);
    case 'withheld':
      // Once per method: a session that asks often would otherwise repeat it.
      return event.first
        ? `the client did not declare the ${event.capability} capability: the recorded ${event.method} is not sent to it (a live server would not ask); replay goes on as if the client had given the recorded answer`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The stderr line for a protocol version the live client asked for that the recording does not hold.
 *
 * @example describeVersion({ via: 'initialize', recorded: '2025-11-25', asked: '2024-11-05', answered: '2024-11-05' })
 * // → 'the client asked for protocol version 2024-11-05 and the recording answered 2025-11-25: answered 2024-11-05, …'
 */
export function describeVersion(note: VersionNote): string {
  if (note.via === 'request')
    return `the client's requests carry protocol version ${note.asked}, the recorded ones ${note.recorded}: answered as recorded`;
  const head = `the client asked for protocol version ${note.asked} and the recording answered ${note.recorded}`;
  if (note.answered === note.asked)
    return `${head}: answered ${note.answered}, as the server negotiates; every other answer is as recorded`;
  return `${head}: answered ${note.answered}, as the recorded server would (it does not speak ${note.asked}); the client may refuse it`;
}

export interface ReplaySummaryInput {
  report: Pick<MatchReport, 'used' | 'total' | 'unused'>;
  /** What else to say on the `replayed N/M` line: misses, timeouts, forwarded requests … */
  extras: string[];
  allowUnused: boolean;
  corruptLines: number;
}

/**
 * The end-of-run lines (`replayed N/M exchanges`, the unused ones, why they fail the run, corrupt cassette lines)
 * and whether those alone fail the run — misses and timeouts are the caller's to count.
 */
export function renderReplaySummary(input: ReplaySummaryInput): { lines: string[]; failed: boolean } {
  const { report, extras, allowUnused, corruptLines } = input;
  const lines = [
    `replayed ${report.used}/${report.total} exchanges${extras.length > 0 ? `, ${extras.join(', ')}` : ''}`,
  ];
  for (const unused of report.unused.slice(0, UNUSED_SHOWN)) {
    const at = unused.lineNo === undefined ? '' : ` (line ${unused.lineNo})`;
    lines.push(`unused #${unused.ordinal}: ${unused.summary}${at}`);
  }
  if (report.unused.length > UNUSED_SHOWN)
    lines.push(`… and ${report.unused.length - UNUSED_SHOWN} more unused`);
  const unusedFails = report.unused.length > 0 && !allowUnused;
  if (unusedFails) lines.push('unused exchanges fail the run; pass --allow-unused to accept them');
  if (corruptLines > 0)
    lines.push(`the cassette had ${corruptLines} corrupt line${plural(corruptLines)} (skipped)`);
  return { lines, failed: unusedFails || corruptLines > 0 };
}

export function plural(n: number): string {
  return n === 1 ? '' : 's';
}

function preview(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
