import type { EventLine, TraceLine } from './types.js';

/**
 * The OAuth flow of a trace, step by step: what the recording proxy wrote as `oauth` events (discovery, registration,
 * the authorize redirect, token exchanges and refreshes, the first call with each token, every refusal), read back
 * into rows an "auth" lane can draw, each with its status and, where a step failed, a reason a person can act on.
 * Pure: the viewer and the terminal share it.
 */

/** What went wrong in a failed step, when the answer says enough to tell. */
export type AuthFailureKind =
  | 'wrong-audience'
  | 'missing-scope'
  | 'expired-token'
  | 'invalid-token'
  | 'invalid-grant'
  | 'invalid-client'
  | 'unreachable'
  | 'other';

/** One step of the flow. */
export interface AuthStep {
  /** The line number of its event (1-based), when known. */
  lineNo: number | undefined;
  t: string;
  /** `challenge`, `resource-metadata`, `server-metadata`, `register`, `authorize`, `token`, `refresh`, `call` … */
  step: string;
  status: number | undefined;
  ok: boolean;
  /** The token the step issued or used, as its stable marker. */
  token: string | undefined;
  /** A short account of the step: the resource mapping, the scope granted, where the browser went. */
  detail: string;
  /** For a failed step: its kind and the server's own words. */
  failure?: { kind: AuthFailureKind; reason: string };
}

/** True for a line the recording proxy wrote about the OAuth flow. */
export function isAuthEvent(line: TraceLine): line is EventLine {
  return line.type === 'event' && line.name === 'oauth';
}

/**
 * The step an `oauth` event stands for.
 *
 * @example authStepOf({ type: 'event', name: 'oauth', t, step: 'token', status: 200, ok: true }, 12)
 */
export function authStepOf(line: EventLine, lineNo?: number): AuthStep {
  const step = typeof line.step === 'string' ? line.step : 'other';
  const status = typeof line.status === 'number' ? line.status : undefined;
  const ok = line.ok !== false;
  const out: AuthStep = { lineNo, t: line.t, step, status, ok, token: tokenOf(line), detail: detailOf(line) };
  if (!ok) out.failure = failureOf(line);
  return out;
}

/** Every step of a trace's flow, in the order written. */
export function authSteps(lines: Iterable<TraceLine>): AuthStep[] {
  const steps: AuthStep[] = [];
  let lineNo = 0;
  for (const line of lines) {
    lineNo += 1;
    if (isAuthEvent(line)) steps.push(authStepOf(line, lineNo));
  }
  return steps;
}

/** The first failed step, if any: where the flow broke. */
export function firstFailure(steps: readonly AuthStep[]): AuthStep | undefined {
  return steps.find((step) => !step.ok);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const obj = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

function tokenOf(line: EventLine): string | undefined {
  return str(line.token) ?? str(obj(line.response)?.access_token);
}

function detailOf(line: EventLine): string {
  const parts: string[] = [];
  const resource = obj(line.resource);
  if (resource !== undefined) {
    const asked = str(resource.asked);
    const other = str(resource.sent) ?? str(resource.upstream);
    if (asked !== undefined && other !== undefined && asked !== other)
      parts.push(`resource ${asked} → ${other}`);
    else if (asked !== undefined) parts.push(`resource ${asked}`);
  }
  const request = obj(line.request);
  const response = obj(line.response);
  if (line.step === 'register' && str(response?.client_id)) parts.push(`client ${str(response?.client_id)}`);
  if (str(line.to)) parts.push(`browser → ${str(line.to)}`);
  const asked = str(request?.scope);
  const granted = str(response?.scope);
  if (granted !== undefined)
    parts.push(`scope ${granted}${asked !== undefined && asked !== granted ? ` (asked ${asked})` : ''}`);
  else if (asked !== undefined) parts.push(`scope ${asked}`);
  if (str(line.binding)) parts.push(`tokens bound by ${str(line.binding)}`);
  const challenge = obj(line.challenge);
  if (line.step === 'challenge' && challenge !== undefined && str(challenge.scope)) {
    parts.push(`scope ${str(challenge.scope)}`);
  }
  return parts.join(', ');
}

/**
 * What a failed step's answer says went wrong: the wrong audience ("not issued for this resource"), a missing
 * scope (`insufficient_scope`), an expired token, or the OAuth error as given.
 */
export function failureOf(line: EventLine): { kind: AuthFailureKind; reason: string } {
  const challenge = obj(line.challenge);
  const error = str(challenge?.error) ?? str(obj(line.response)?.error);
  const reason = str(line.reason) ?? (line.status !== undefined ? `HTTP ${line.status}` : 'failed');
  const text = `${error ?? ''} ${reason}`;
  if (error === 'insufficient_scope' || line.status === 403) {
    const needed = str(challenge?.scope);
    return { kind: 'missing-scope', reason: needed === undefined ? reason : `${reason} (needs ${needed})` };
  }
  if (
    /audience|\baud\b|not issued for this resource|resource.*(mismatch|invalid)|invalid_target/i.test(text)
  ) {
    return { kind: 'wrong-audience', reason };
  }
  if (/expired/i.test(text)) return { kind: 'expired-token', reason };
  if (/could not be reached/.test(reason)) return { kind: 'unreachable', reason };
  if (error === 'invalid_token') return { kind: 'invalid-token', reason };
  if (error === 'invalid_grant') return { kind: 'invalid-grant', reason };
  if (error === 'invalid_client') return { kind: 'invalid-client', reason };
  return { kind: 'other', reason };
}

/** Words for a failure kind, as the lane prints them. */
export const FAILURE_WORDS: Readonly<Record<AuthFailureKind, string>> = {
  'wrong-audience': 'wrong audience',
  'missing-scope': 'missing scope',
  'expired-token': 'expired token',
  'invalid-token': 'invalid token',
  'invalid-grant': 'invalid grant',
  'invalid-client': 'invalid client',
  unreachable: 'server unreachable',
  other: 'refused',
};
