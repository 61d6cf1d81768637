import {
  type AuthStep,
  authStepOf,
  FAILURE_WORDS,
  firstFailure,
  formatOffset,
  isAuthEvent,
} from 'mcp-tapedeck/trace';
import { useMemo, useState } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';
import './auth-lane.css';

/**
 * The "auth" lane: the OAuth flow a recording holds (discovery, registration, the browser's sign-in, token
 * exchanges and refreshes, the first call with each token), one row per step with its HTTP status and whether it
 * went through, and for the first step that failed, the reason in plain words and in the server's own. The same
 * steps as `tapedeck show` prints, read by the same pure functions. Folded to its summary line until opened; absent
 * when the trace holds no OAuth flow.
 */
export function AuthLane({ model, version }: { model: TraceModel | undefined; version: number }) {
  const steps = useMemo(() => stepsOf(model), [model, version]);
  const [open, setOpen] = useState(false);
  if (steps.length === 0) return null;
  const failed = firstFailure(steps);
  const start = Date.parse(steps[0]!.t);
  const summary =
    failed === undefined
      ? `${steps.length} steps, none failed`
      : `${steps.length} steps; first failure at ${failed.step}: ${FAILURE_WORDS[failed.failure!.kind]}`;
  return (
    <section class="auth-lane" aria-label="auth lane" data-steps={steps.length}>
      <div class="auth-head">
        <button type="button" class="linkish" aria-expanded={open} onClick={() => setOpen(!open)}>
          auth
        </button>
        <span class={failed ? 'err auth-summary' : 'auth-summary'}>{summary}</span>
      </div>
      {open ? (
        <ol class="auth-steps">
          {steps.map((step, i) => (
            <li key={i} class={step.ok ? 'auth-step' : 'auth-step failed'} data-step={step.step}>
              <span class="auth-time">{formatOffset(Date.parse(step.t) - start)}</span>
              <span class="auth-name">{step.step}</span>
              <span class="auth-status">{step.status ?? ''}</span>
              <span class={step.ok ? 'auth-ok' : 'auth-ok err'}>{step.ok ? 'ok' : 'FAILED'}</span>
              <span class="auth-detail">{detailOf(step)}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** Every `oauth` event among the model's rows, as steps. */
function stepsOf(model: TraceModel | undefined): AuthStep[] {
  if (model === undefined) return [];
  const steps: AuthStep[] = [];
  for (const row of model.rows()) {
    const line = row.line;
    if (line.type === 'event' && isAuthEvent(line)) steps.push(authStepOf(line, row.lineNo));
  }
  return steps;
}

/** What a row says after its verdict: the failure first (plain words, then the server's), then what it did. */
function detailOf(step: AuthStep): string {
  const parts: string[] = [];
  if (step.failure) parts.push(`${FAILURE_WORDS[step.failure.kind]}: ${step.failure.reason}`);
  if (step.detail !== '') parts.push(step.detail);
  if (step.token !== undefined && !step.detail.includes(step.token)) parts.push(`token ${step.token}`);
  return parts.join('; ');
}
