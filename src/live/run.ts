import { TapedeckError } from '../base/errors.js';
import { PRODUCER } from '../base/version.js';
import type { Redactor } from '../redact/types.js';
import { encodeLine, timestamp } from '../trace/encode.js';
import { keepsFormatAsTapedeck, type TraceFormat } from '../trace/import/opened.js';
import { noFollowTraceFiles, openTrace, removeFiles, writePrivateFile } from '../trace/io.js';
import { withExtension } from '../trace/segments.js';
import type { EndLine, EventLine, MessageLine, MetaLine, RecordLine, TraceLine } from '../trace/types.js';
import { RUN_MODES, type RunMode } from './modes.js';
import type { ProjectConfig } from './project-config.js';
import { PROJECT_FILE_NAME } from './project-file.js';

/**
 * `tapedeck run`: the VCR front door. The mode decides whether the session is recorded, replayed, updated or just
 * passed through; the environment overrides the flags (so CI can force replay); an expired cassette is warned
 * about, refused or re-recorded. This file decides; the CLI runs the recorder, the replayer or the update session.
 */

export { RUN_MODES, type RunMode } from './modes.js';

/** What an expired cassette (older than `--max-age`) gets: a warning, a refusal, or a fresh recording. */
export type ExpiredPolicy = 'warn' | 'error' | 'record';
export const EXPIRED_POLICIES: readonly ExpiredPolicy[] = ['warn', 'error', 'record'];

export const RUN_DEFAULTS = {
  mode: 'auto' as RunMode,
  expired: 'warn' as ExpiredPolicy,
  /** The environment variables that override `--mode` and `--cassette`. */
  modeEnv: 'TAPEDECK_MODE',
  cassetteEnv: 'TAPEDECK_CASSETTE',
} as const;

/**
 * Reads a mode, naming where it came from (a flag or an environment variable) when it is not one.
 *
 * @example parseRunMode('replay', '--mode') // → 'replay'
 */
export function parseRunMode(value: string, from: string): RunMode {
  const mode = value.trim().toLowerCase();
  if ((RUN_MODES as readonly string[]).includes(mode)) return mode as RunMode;
  throw new TapedeckError('usage', `${from} must be one of ${RUN_MODES.join(', ')}; got '${value}'`);
}

/** @example parseExpiredPolicy('error') // → 'error' */
export function parseExpiredPolicy(value: string): ExpiredPolicy {
  if ((EXPIRED_POLICIES as readonly string[]).includes(value)) return value as ExpiredPolicy;
  throw new TapedeckError('usage', `--expired must be one of ${EXPIRED_POLICIES.join(', ')}; got '${value}'`);
}

/**
 * A duration for people, in its largest unit that says it well: `45 days`, `3 hours`, `90 minutes` (not `1 hour`
 * for 1.5 h: under 10 of a unit, a remainder moves down a unit).
 */
export function formatAge(ms: number): string {
  const units: [string, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ];
  for (const [i, [name, size]] of units.entries()) {
    const n = Math.floor(ms / size);
    const exact = ms % size === 0 || n >= 10 || i === units.length - 1;
    if (n >= 1 && exact) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return `${Math.max(0, Math.round(ms))} ms`;
}

export interface RunSettingsInput {
  mode: string | undefined;
  cassette: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** The project file (tapedeck.config.json), when one was found. */
  project?: Pick<ProjectConfig, 'path' | 'mode'> | undefined;
}

/**
 * The cassette: `TAPEDECK_CASSETTE` over `--cassette`.
 *
 * @example runCassette({ cassette: 'a.jsonl', env: { TAPEDECK_CASSETTE: 'ci.jsonl' } }) // → 'ci.jsonl'
 */
export function runCassette(input: Pick<RunSettingsInput, 'cassette' | 'env'>): string {
  const cassette = nonEmpty(input.env[RUN_DEFAULTS.cassetteEnv]) ?? nonEmpty(input.cassette);
  if (cassette === undefined) {
    throw new TapedeckError(
      'usage',
      `run needs a cassette: --cassette FILE (or ${RUN_DEFAULTS.cassetteEnv}), e.g. tapedeck run --cassette fixtures/session.jsonl -- node server.js`,
    );
  }
  return cassette;
}

/**
 * Where a run's mode was set: `TAPEDECK_MODE`, the project file, or `--mode` (its default `auto` included). A
 * message that asks for another mode names this place, since setting a weaker one changes nothing.
 */
export type ModeSource = { kind: 'env' } | { kind: 'project'; path: string } | { kind: 'flag' };

/**
 * The mode and where it came from, strongest first: `TAPEDECK_MODE`, the project file's `mode`, `--mode`, `auto`.
 * What describes where a run happens (CI's environment, the project) wins over what a command line or a client
 * config bakes in, so CI can force replay without touching either.
 *
 * @example runMode({ mode: 'record', env: {}, project: { path: '/r/tapedeck.config.json', mode: 'replay' } }).from // → '"mode": "replay" in /r/tapedeck.config.json'
 */
export function runMode(input: Omit<RunSettingsInput, 'cassette'>): {
  mode: RunMode;
  from: string;
  source: ModeSource;
} {
  const envMode = nonEmpty(input.env[RUN_DEFAULTS.modeEnv]);
  if (envMode !== undefined) {
    const mode = parseRunMode(envMode, RUN_DEFAULTS.modeEnv);
    return { mode, from: `${RUN_DEFAULTS.modeEnv}=${mode}`, source: { kind: 'env' } };
  }
  if (input.project?.mode !== undefined) {
    const { mode, path } = input.project;
    return { mode, from: `"mode": "${mode}" in ${path}`, source: { kind: 'project', path } };
  }
  const mode = parseRunMode(input.mode ?? RUN_DEFAULTS.mode, '--mode');
  return { mode, from: `--mode ${mode}`, source: { kind: 'flag' } };
}

/**
 * How to ask for one of `modes` where the run's mode is set: the flag, the environment variable, or the project
 * file's setting with the file's path — each saying what it wins over, so no one reaches for a weaker one.
 *
 * @example askForMode({ kind: 'flag' }, ['record', 'auto']) // → '--mode record or --mode auto'
 * @example askForMode({ kind: 'project', path: '/r/tapedeck.config.json' }, ['record']) // → '"mode": "record" in /r/tapedeck.config.json, which wins over --mode'
 */
export function askForMode(source: ModeSource, modes: readonly RunMode[]): string {
  switch (source.kind) {
    case 'flag':
      return modes.map((mode) => `--mode ${mode}`).join(' or ');
    case 'env':
      return `${modes.map((mode) => `${RUN_DEFAULTS.modeEnv}=${mode}`).join(' or ')}${WINS.env}`;
    case 'project':
      return `"mode": ${modes.map((mode) => `"${mode}"`).join(' or ')} in ${source.path}${WINS.project}`;
  }
}

/**
 * The setting that chose the mode, for a message that names more than one mode to set it to.
 *
 * @example modeSetting({ kind: 'env' }) // → 'TAPEDECK_MODE, which wins over --mode and tapedeck.config.json'
 */
export function modeSetting(source: ModeSource): string {
  switch (source.kind) {
    case 'flag':
      return '--mode';
    case 'env':
      return `${RUN_DEFAULTS.modeEnv}${WINS.env}`;
    case 'project':
      return `"mode" in ${source.path}${WINS.project}`;
  }
}

const WINS = {
  env: `, which wins over --mode and ${PROJECT_FILE_NAME}`,
  project: ', which wins over --mode',
} as const;

/**
 * The mode and cassette together (see runMode and runCassette).
 *
 * @example runSettings({ mode: 'record', cassette: 'a.jsonl', env: { TAPEDECK_MODE: 'replay' } }).mode // → 'replay'
 */
export function runSettings(input: RunSettingsInput): { mode: RunMode; cassette: string; modeFrom: string } {
  const cassette = runCassette(input);
  const { mode, from } = runMode(input);
  return { mode, cassette, modeFrom: from };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

export interface PlanInput {
  mode: RunMode;
  cassette: string;
  /** Whether the cassette file exists. */
  exists: boolean;
  /** Where the mode came from, as runMode says it (`TAPEDECK_MODE=replay`, `--mode record` …). */
  modeFrom?: string | undefined;
  /** Where the mode is set, for a message that asks for another one (default: `--mode`). */
  modeSource?: ModeSource | undefined;
  /** How many exchanges the cassette holds, when it exists. */
  exchanges?: number | undefined;
  /** The cassette's meta.startedAt, when it exists. */
  startedAt?: string | undefined;
  maxAgeMs?: number | undefined;
  expired?: ExpiredPolicy | undefined;
  now?: number | undefined;
}

export interface RunPlan {
  /** What actually runs. */
  mode: Exclude<RunMode, 'auto'>;
  /** The line stderr always gets: what runs and why (`replaying …/s.jsonl: cassette exists (12 exchanges)`). */
  why: string;
  /** A warning worth a line of its own (an expired cassette). */
  note: string | undefined;
  /** Set when the run must stop before serving: the message says why and what to change. */
  refuse: string | undefined;
}

const DOING: Readonly<Record<RunPlan['mode'], string>> = {
  record: 'recording',
  replay: 'replaying',
  update: 'updating',
  passthrough: 'passing through',
};

/**
 * Decides what runs: `auto` becomes `replay` or `record`, then the cassette's age is checked for the modes that
 * serve it. Only `auto` re-records an expired cassette (`--expired record`); a mode chosen by name is kept.
 *
 * @example planRun({ mode: 'auto', cassette: 'a.jsonl', exists: false }).why // → 'recording a.jsonl: no cassette there yet'
 */
export function planRun(input: PlanInput): RunPlan {
  const { cassette } = input;
  const size =
    input.exchanges === undefined ? '' : ` (${input.exchanges} exchange${input.exchanges === 1 ? '' : 's'})`;
  let mode: RunPlan['mode'];
  let why: string;
  if (input.mode === 'auto') {
    mode = input.exists ? 'replay' : 'record';
    why = input.exists
      ? `replaying ${cassette}: cassette exists${size}`
      : `recording ${cassette}: no cassette there yet`;
  } else {
    mode = input.mode;
    const from = input.modeFrom ?? `--mode ${mode}`;
    why =
      mode === 'passthrough'
        ? `passing through to the server, recording nothing: ${from}`
        : `${DOING[mode]} ${cassette}: ${from}${mode === 'record' ? '' : size}`;
  }
  const ask = (modes: readonly RunMode[]) => askForMode(input.modeSource ?? { kind: 'flag' }, modes);
  // --expired record re-records only where auto picks what runs; --expired error refuses in any mode.
  const auto = input.mode === 'auto';
  const plan = (fields: Partial<RunPlan> = {}): RunPlan => ({
    mode,
    why,
    note: undefined,
    refuse: undefined,
    ...fields,
  });
  if ((mode === 'replay' || mode === 'update') && !input.exists) {
    return plan({
      refuse: `no cassette at ${cassette} to ${mode}: record it first (${ask(['record', 'auto'])})`,
    });
  }
  if ((mode !== 'replay' && mode !== 'update') || input.maxAgeMs === undefined) return plan();
  const started = input.startedAt === undefined ? Number.NaN : Date.parse(input.startedAt);
  if (Number.isNaN(started))
    return plan({ note: `${cassette} has no recording time (meta.startedAt): --max-age not checked` });
  const age = (input.now ?? Date.now()) - started;
  if (age <= input.maxAgeMs) return plan();
  const what = `${cassette} was recorded ${formatAge(age)} ago, more than --max-age ${formatAge(input.maxAgeMs)}`;
  switch (input.expired ?? RUN_DEFAULTS.expired) {
    case 'error':
      return plan({
        refuse: `${what}: re-record it (${ask(['record'])}${auto ? ', or --expired record' : ''}), or raise --max-age`,
      });
    case 'record':
      // Only auto picks what runs: a replay or update that was asked for by name (CI's TAPEDECK_MODE=replay)
      // never starts the server nor overwrites the cassette.
      if (input.mode === 'auto') {
        const because = `it was recorded ${formatAge(age)} ago, more than --max-age ${formatAge(input.maxAgeMs)}`;
        return {
          mode: 'record',
          why: `recording ${cassette} again: ${because}`,
          note: undefined,
          refuse: undefined,
        };
      }
      return plan({
        note: `warning: ${what}; not re-recorded in ${mode} mode (--expired record applies to mode auto: ${ask(['auto'])})`,
      });
    default:
      return plan({
        note: `warning: ${what}; re-record it with ${ask(['record'])} (or --expired ${auto ? 'record / ' : ''}error)`,
      });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Adding new exchanges to a cassette (update mode)

/**
 * Why a cassette may not be updated in place, or undefined. Updating rewrites it as tapedeck JSONL: for mcp-tape
 * JSONL, which tapedeck's format extends, that is the same shape, but a file of another tool's format (mcporter,
 * shack, HAR) would silently become one its tool cannot read — so the conversion to run first is named instead.
 *
 * @example updateRefusal('s.ndjson', 'mcporter', 'run --mode update') // → 'run --mode update rewrites … tapedeck convert s.ndjson --to tapedeck -o s.jsonl …'
 */
export function updateRefusal(path: string, format: TraceFormat, what: string): string | undefined {
  if (keepsFormatAsTapedeck(format)) return undefined;
  return `${what} rewrites the cassette as tapedeck JSONL, and ${path} is a ${format} file: convert it first (tapedeck convert ${path} --to tapedeck -o ${withExtension(path, '.jsonl')}) and use that`;
}

export interface AppendOptions {
  /** Applied to every new line, as `record` applies it. */
  redact?: Redactor | undefined;
  /** Written on every new line (cassettes of multi-server traces). */
  server?: string | undefined;
  /** Written on every new line: the new exchanges' own id space (their ids restart where the recording's did). */
  conn?: string | undefined;
}

/**
 * Rewrites `path` as one tapedeck JSONL file: its recorded lines, then `added` (message lines of a later session,
 * and event lines saying what was noticed in it),
 * then a new end line — atomically, 0600. Whatever format the cassette was, the result is tapedeck JSONL with a new
 * traceId. A rotated cassette's other segments are merged in and then removed (were that cut short, the new traceId
 * keeps a leftover from being stitched onto the new file). Resolves to how many lines were added.
 *
 * @example await appendToCassette('session.jsonl', [{ t, dir: 'in', raw: request }, { t, dir: 'out', raw: response }]);
 */
export async function appendToCassette(
  path: string,
  added: readonly (Omit<MessageLine, 'seq'> | Omit<EventLine, 'seq'>)[],
  options: AppendOptions = {},
): Promise<number> {
  // Read without following links: the rewrite would otherwise copy a linked file's content into this folder.
  const trace = await openTrace(path, {}, noFollowTraceFiles);
  const redact = options.redact ?? ((line: TraceLine) => line);
  const meta: MetaLine = { ...trace.meta, traceId: crypto.randomUUID() };
  if (meta.segment !== undefined) meta.segment = 0;
  if (meta.producer === undefined) meta.producer = { ...PRODUCER };
  const lines: string[] = [encodeLine(meta)];
  let seq = 0;
  let end: EndLine | undefined;
  const counts = { in: 0, out: 0, events: 0 };
  for await (const { line } of trace.lines()) {
    if (line.type === 'end') {
      end = line;
      continue;
    }
    seq = Math.max(seq, typeof line.seq === 'number' ? line.seq : seq);
    lines.push(encodeLine(line));
  }
  for (const body of added) {
    seq += 1;
    const line = {
      t: body.t,
      seq,
      ...body,
      ...(options.server !== undefined ? { server: options.server } : {}),
      ...(options.conn !== undefined ? { conn: options.conn } : {}),
    } as RecordLine;
    counts[body.type === 'event' ? 'events' : body.dir === 'in' ? 'in' : 'out'] += 1;
    lines.push(encodeLine(redact(line)));
  }
  const now = Date.now();
  const started = Date.parse(meta.startedAt);
  const previous = end?.counts ?? {};
  const newEnd: EndLine = {
    t: timestamp(now),
    type: 'end',
    durationMs: Number.isNaN(started) ? (end?.durationMs ?? 0) : Math.max(0, now - started),
    reason: end?.reason ?? 'producer_shutdown',
    counts: {
      ...previous,
      in: (previous.in ?? 0) + counts.in,
      out: (previous.out ?? 0) + counts.out,
      ...(counts.events > 0 ? { events: (previous.events ?? 0) + counts.events } : {}),
    },
  };
  if (end?.exitCode !== undefined) newEnd.exitCode = end.exitCode;
  if (end?.signal !== undefined) newEnd.signal = end.signal;
  lines.push(encodeLine(newEnd));
  await writePrivateFile(path, lines);
  await removeFiles(trace.segments.map((segment) => segment.file).filter((file) => file !== path));
  return added.length;
}
