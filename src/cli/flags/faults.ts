import type { Command } from 'commander';
import { randomSeed } from '../../faults/draw.js';
import { loadFaultProfile } from '../../faults/load.js';
import { FaultPlan } from '../../faults/plan.js';
import { faultRules } from '../../faults/profile.js';
import type { FaultRecord } from '../../faults/records.js';
import { type FaultRule, parseFaultSpec, parseSeed } from '../../faults/spec.js';
import { type CliIo, say, userPath } from '../io.js';

/**
 * `--fault SPEC` (repeatable), `--faults FILE` and `--seed N`: faults to inject, shared by `replay`, `run` (in
 * replay mode) and `record`. Read and checked before anything starts; the plan they make is handed to the library
 * (src/faults), and read back at the end for the faults that never found a request.
 */

export interface FaultFlags {
  fault?: string[];
  faults?: string;
  seed?: string;
}

/**
 * Adds `--fault`, `--faults` and `--seed`.
 *
 * @example addFaultFlags(program.command('replay'))
 */
export function addFaultFlags(command: Command): Command {
  return command
    .option(
      '--fault <spec>',
      'inject a fault: KIND[=VALUE][@MATCH][%PERCENT][#NTH], e.g. error=-32603@tools/call:search#3 (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--faults <file>',
      'inject the faults a JSON or YAML profile lists (timed ones too: { after: 5s, … })',
    )
    .option('--seed <n>', 'the seed %PERCENT and latency jitter draw from: the same seed, the same faults');
}

/** The help lines the commands with fault flags share. */
export const FAULT_HELP =
  'Faults (--fault, --faults): KIND is latency=MS[~JITTER], error[=CODE], tool-error, drop, disconnect,\n' +
  'malformed, duplicate or slow-stream=BYTES/S; MATCH a method, or tools/call:<tool>, prompts/get:<prompt>,\n' +
  'resources/read:<uri>; %PERCENT a share of the matching requests drawn from --seed; #N the Nth (#N- the Nth\n' +
  'on). Each injected fault is one line on stderr (and a `fault` event in a recording).';

/**
 * The plan the flags ask for, or undefined when they ask for none. The seed is --seed, else the profile's, else a
 * random one (said on stderr, so the run can be repeated). Bad specs and profiles are one usage line (exit 2).
 *
 * @example const plan = await faultPlanOf(flags, io); // undefined without --fault / --faults
 */
export async function faultPlanOf(flags: FaultFlags, io: CliIo): Promise<FaultPlan | undefined> {
  const rules: FaultRule[] = (flags.fault ?? []).map((spec) => parseFaultSpec(spec));
  let profileSeed: number | undefined;
  if (flags.faults !== undefined) {
    const profile = await loadFaultProfile(userPath(io, flags.faults));
    rules.push(...faultRules(profile.faults, `--faults ${flags.faults}`));
    profileSeed = profile.seed;
  }
  const seed = flags.seed === undefined ? undefined : parseSeed(flags.seed);
  if (rules.length === 0) {
    if (seed !== undefined) say(io, 'warning: --seed has no effect without --fault or --faults');
    return undefined;
  }
  return new FaultPlan(rules, { seed: seed ?? profileSeed ?? randomSeed() });
}

/**
 * Says which faults will be injected and with which seed (name it with --seed to repeat the run).
 *
 * @example announceFaults(plan, io) // stderr: "tapedeck: injecting 2 faults (seed 7): drop%25, latency=200"
 */
export function announceFaults(plan: FaultPlan | undefined, io: CliIo): void {
  if (plan === undefined) return;
  const { rules } = plan;
  const named = rules.map((rule) => rule.source).join(', ');
  say(io, `injecting ${rules.length} fault${rules.length === 1 ? '' : 's'} (seed ${plan.seed}): ${named}`);
}

/**
 * After a live session: a warning for each fault whose MATCH found no request (a live server's tools are not known
 * beforehand, so a MATCH that names nothing is said here rather than refused).
 *
 * @example warnUnmatched(plan, io)
 */
export function warnUnmatched(plan: FaultPlan, io: CliIo): void {
  const counts = plan.matches();
  plan.rules.forEach((rule, index) => {
    const { match } = rule;
    if (match === undefined || counts[index]! > 0) return;
    const asked = match.name === undefined ? match.method : `${match.method} ${match.name}`;
    say(io, `warning: fault '${rule.source}' matched no request: the client never asked ${asked}`);
  });
}

/**
 * The rules of `plan` that spoiled nothing in a finished session (none of `injected` came from them), with how many
 * requests each matched: what a CI report lists beside the faults that were injected.
 *
 * @example faultsNotApplied(plan, outcome.report.faults) // → [{ rule: 'error@tools/call:search', matched: 0 }]
 */
export function faultsNotApplied(
  plan: FaultPlan | undefined,
  injected: readonly FaultRecord[],
): { rule: string; matched: number }[] {
  if (plan === undefined) return [];
  const fired = new Set(injected.map((record) => record.fault));
  const counts = plan.matches();
  return plan.rules.flatMap((rule, index) =>
    fired.has(rule.source) ? [] : [{ rule: rule.source, matched: counts[index] ?? 0 }],
  );
}
