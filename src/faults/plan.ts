import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { draw, randomSeed, seed32 } from './draw.js';
import { type FaultRequest, ruleMatches } from './match.js';
import type { FaultAction, FaultRule } from './spec.js';

/**
 * The decisions: for each request, which faults apply. Pure apart from the clock `after` is measured on, so the
 * same rules, seed and requests give the same decisions every run. Front doors ask once per request as it
 * arrives and carry the decision out on its answer (see deliver.ts).
 */

/** An action that changes the answer (everything but latency, which only delays it). */
export type AnswerAction = Exclude<FaultAction, { kind: 'latency' }>;

/** One rule that applied to one request. */
export interface AppliedFault {
  rule: FaultRule;
  /** The rule's position in the plan. */
  index: number;
  /** Which request matching the rule this was (1-based). */
  nth: number;
  /** For latency: the delay drawn (jitter included). */
  delayMs?: number | undefined;
}

/** What happens to one request's answer. */
export interface FaultDecision {
  /** The sum of the latencies that applied. */
  delayMs: number;
  /** The first other fault that applied, if any (one answer can be replaced only once). */
  action: AnswerAction | undefined;
  applied: AppliedFault[];
}

export interface FaultPlanOptions {
  /** Draws for %PERCENT and latency jitter; default a random seed (see `seed`). */
  seed?: number | undefined;
  /** @internal The clock `after` is measured on: the real one, or a test's. */
  scheduler?: Scheduler | undefined;
}

/** Random streams per rule: one for %PERCENT, one for jitter. */
const STREAMS = 2;

/**
 * @example
 * const plan = new FaultPlan([parseFaultSpec('error=-32603@tools/call#2')], { seed: 1 });
 * plan.decide({ method: 'tools/call', params: { name: 'echo' } }); // → undefined (the first)
 * plan.decide({ method: 'tools/call', params: { name: 'echo' } })?.action; // → { kind: 'error', code: -32603 }
 */
export class FaultPlan {
  readonly rules: readonly FaultRule[];
  /** The seed in use (given, or drawn at random): name it with `--seed` to repeat the run. */
  readonly seed: number;
  private readonly counts: number[];
  private readonly scheduler: Scheduler;
  private startedAt: number | undefined;

  constructor(rules: readonly FaultRule[], options: FaultPlanOptions = {}) {
    this.rules = rules;
    this.seed = seed32(options.seed ?? randomSeed());
    this.counts = rules.map(() => 0);
    this.scheduler = options.scheduler ?? realScheduler;
  }

  /** Sets time zero for `after` (the first call wins; the first decision calls it too). */
  start(): void {
    this.startedAt ??= this.scheduler.now();
  }

  /** Milliseconds since start(). */
  elapsed(): number {
    this.start();
    return this.scheduler.now() - this.startedAt!;
  }

  /** Rules that happen at a moment by themselves (a `disconnect` with `after` that names no request). */
  get timed(): { rule: FaultRule; index: number }[] {
    return this.rules.flatMap((rule, index) => (isTimed(rule) ? [{ rule, index }] : []));
  }

  /** How many requests matched each rule so far (after its `after`), by rule position. */
  matches(): readonly number[] {
    return [...this.counts];
  }

  /**
   * The faults for one request as it arrives, or undefined when none applies. Counts it for every rule it matches.
   */
  decide(request: FaultRequest): FaultDecision | undefined {
    const applied: AppliedFault[] = [];
    let delayMs = 0;
    let action: AnswerAction | undefined;
    const elapsed = this.rules.some((rule) => rule.afterMs !== undefined) ? this.elapsed() : 0;
    for (let index = 0; index < this.rules.length; index++) {
      const rule = this.rules[index]!;
      if (isTimed(rule)) continue;
      if (rule.afterMs !== undefined && elapsed < rule.afterMs) continue;
      if (!ruleMatches(rule, request)) continue;
      const nth = ++this.counts[index]!;
      if (rule.nth && (rule.nth.onward ? nth < rule.nth.n : nth !== rule.nth.n)) continue;
      if (rule.percent !== undefined && draw(this.seed, index * STREAMS, nth) * 100 >= rule.percent) continue;
      const { action: ruleAction } = rule;
      if (ruleAction.kind === 'latency') {
        const jitter = Math.round((draw(this.seed, index * STREAMS + 1, nth) * 2 - 1) * ruleAction.jitterMs);
        const ms = Math.max(0, ruleAction.ms + jitter);
        delayMs += ms;
        applied.push({ rule, index, nth, delayMs: ms });
      } else if (action === undefined) {
        action = ruleAction;
        applied.push({ rule, index, nth });
      }
    }
    return applied.length === 0 ? undefined : { delayMs, action, applied };
  }
}

/** A disconnect at a moment, not on a request. */
function isTimed(rule: FaultRule): boolean {
  return (
    rule.action.kind === 'disconnect' &&
    rule.afterMs !== undefined &&
    rule.match === undefined &&
    rule.percent === undefined &&
    rule.nth === undefined
  );
}
