import { formatOffset } from '../../base/units.js';
import { type AuthStep, FAILURE_WORDS, firstFailure } from '../../trace/auth-flow.js';
import { clipWidth } from '../../trace/text-width.js';
import { parseTime } from '../../trace/time.js';
import { palette } from './color.js';
import { wrapText } from './wrap.js';

/**
 * The "auth" lane of `tapedeck show`: the OAuth flow the recording proxy saw, one row per step — its time, name,
 * HTTP status, whether it went through, and what it did (resource mapped, scope granted, where the browser went) —
 * and for the step that failed, the reason in plain words (wrong audience, missing scope, expired token) with the
 * server's own. Tokens are shown by their stable marker, so a reader sees which token a call used.
 */

export interface AuthLaneOptions {
  color: boolean;
  width: number;
}

const STEP = 18;

/**
 * The lane's rows, or none when the trace holds no OAuth flow.
 *
 * @example renderAuthLane(authSteps(lines), { color: false, width: 100 }).join('\n')
 */
export function renderAuthLane(steps: readonly AuthStep[], options: AuthLaneOptions): string[] {
  if (steps.length === 0) return [];
  const c = palette(options.color);
  const start = parseTime(steps[0]!.t);
  const failed = firstFailure(steps);
  const summary =
    failed === undefined
      ? `${steps.length} steps, none failed`
      : `${steps.length} steps; first failure at ${failed.step}: ${FAILURE_WORDS[failed.failure!.kind]}`;
  const rows = [c.bold(`auth  ${summary}`)];
  for (const step of steps) {
    const time = formatOffset((parseTime(step.t) ?? 0) - (start ?? 0)).padStart(9);
    const status = step.status === undefined ? '   ' : String(step.status);
    const verdict = step.ok ? c.green('ok    ') : c.red('FAILED');
    const head = `${time}  ${step.step.padEnd(STEP)} ${status}  ${verdict}  `;
    const what = step.failure
      ? `${FAILURE_WORDS[step.failure.kind]}: ${step.failure.reason}`
      : [step.detail, step.token === undefined ? '' : `token ${step.token}`]
          .filter((p) => p !== '')
          .join(', ');
    const room = Math.max(20, options.width - head.length);
    if (!step.failure) {
      rows.push(`${head}${c.dim(clipWidth(what, room))}`);
      continue;
    }
    // The reason of a failure is never cut: it wraps under itself.
    const indent = ' '.repeat(head.length);
    const wrapped = wrapText(step.token === undefined ? what : `${what}; token ${step.token}`, room);
    rows.push(...wrapped.map((part, i) => `${i === 0 ? head : indent}${c.red(part)}`));
  }
  return rows;
}
