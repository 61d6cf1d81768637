import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { probeStashDir } from '../base/paths.js';
import { encodeLine } from '../trace/encode.js';
import { openTrace, writePrivateFile } from '../trace/io.js';
import { classifyMessage, idKey } from '../trace/jsonrpc.js';
import type { Direction, Json, MessageLine } from '../trace/types.js';
import { processAlive, withCassetteLock } from './cassette-lock.js';

/**
 * How `tapedeck run` writes a cassette: the session is recorded aside (`.<name>.<pid>.<random>.recording` in the
 * cassette's folder) and renamed onto the cassette once it is over, under the cassette's lock — so concurrent runs
 * never interleave or cut each other's file, and a reader sees the old cassette or the new one, whole.
 *
 * A 2026-era stdio client starts the server command twice: a probe that asks only `server/discover` (then stdin EOF
 * and SIGTERM), and the session. A recording that saw no request but discovery is a probe: it never creates or
 * replaces the cassette. Its discovery exchange is kept for a moment (under `$TAPEDECK_HOME/probes/`), and the
 * session recorded next adds it to the cassette, so the next run's probe is answered from the recording.
 */

export const CASSETTE_FILE_DEFAULTS = {
  /** A probe's discovery joins a session that starts within this long after it was kept. */
  probeMaxAgeMs: 120_000,
  /** The connection the probe's messages get in the cassette: their ids are their own. */
  probeConn: 'probe',
} as const;

/** What became of a finished recording. */
export type SettledRecording =
  /** Nothing was recorded: no message crossed (the recording file was never created). */
  | { kind: 'nothing' }
  /** Only discovery (or no request at all): the cassette is untouched; `kept` when its discovery was kept. */
  | { kind: 'probe'; kept: boolean }
  /** The cassette was (re)written; `probe` when a probe's discovery was added to it. */
  | { kind: 'written'; requests: number; probe: boolean };

/**
 * A fresh path to record a session of `cassette` into, beside it (same folder, so the rename is atomic).
 *
 * @example recordingPathFor('/repo/fixtures/s.jsonl') // → '/repo/fixtures/.s.jsonl.4242.9f3a1c07.recording'
 */
export function recordingPathFor(cassette: string): string {
  const tag = `${process.pid}.${randomBytes(4).toString('hex')}`;
  return join(dirname(cassette), `.${basename(cassette)}.${tag}.recording`);
}

/**
 * Removes recordings of `cassette` left by runs that were killed (their process is gone).
 *
 * @example await removeStaleRecordings('/repo/fixtures/s.jsonl');
 */
export async function removeStaleRecordings(cassette: string): Promise<void> {
  const prefix = `.${basename(cassette)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(cassette));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.recording')) continue;
    const pid = Number(name.slice(prefix.length).split('.', 1)[0]);
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid))
      await unlink(join(dirname(cassette), name)).catch(() => {});
  }
}

/**
 * Decides what a finished recording becomes: nothing, a kept probe, or the cassette (with a recent probe's
 * discovery added when the session has none of its own).
 *
 * @example const settled = await settleRecording(part, 'fixtures/s.jsonl', { startedAt: Date.now() });
 */
export async function settleRecording(
  recording: string,
  cassette: string,
  options: { startedAt: number; env?: NodeJS.ProcessEnv },
): Promise<SettledRecording> {
  const found = await stat(recording).then(
    () => true,
    () => false,
  );
  if (!found) return { kind: 'nothing' };
  const session = await readSession(recording);
  const stash = probeStashPath(cassette, options.env);
  if (session.requests === 0) {
    await unlink(recording).catch(() => {});
    const kept = session.discovery.length > 0;
    if (kept)
      await writePrivateFile(
        stash,
        session.discovery.map((line) => encodeLine(line as MessageLine)),
      );
    return { kind: 'probe', kept };
  }
  const probe = session.discovered ? [] : await takeProbe(stash, options.startedAt);
  if (probe.length > 0) await prependProbe(recording, probe);
  await withCassetteLock(cassette, () => rename(recording, cassette));
  return { kind: 'written', requests: session.requests, probe: probe.length > 0 };
}

/** Where a probe's discovery waits for its session: per cassette, in the tapedeck home (0600 in a 0700 folder). */
export function probeStashPath(cassette: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash('sha256').update(cassette).digest('hex').slice(0, 32);
  return join(probeStashDir(env), `${key}.jsonl`);
}

/** A discovery message as a probe keeps it. */
interface ProbeLine {
  t: string;
  dir: Direction;
  raw: Json;
  conn?: string;
}

interface SessionFacts {
  /** Client requests other than discovery. */
  requests: number;
  /** The session asked discovery itself. */
  discovered: boolean;
  /** Discovery requests and their answers, as recorded. */
  discovery: ProbeLine[];
}

async function readSession(path: string): Promise<SessionFacts> {
  const trace = await openTrace(path, { mode: 'lenient' });
  const facts: SessionFacts = { requests: 0, discovered: false, discovery: [] };
  const asked = new Set<string>();
  for await (const { line } of trace.lines()) {
    if (line.type !== undefined) continue;
    const message = classifyMessage(line.raw);
    const items = message.kind === 'batch' ? message.items : [message];
    for (const item of items) {
      const key = (id: Json) => `${line.conn ?? ''}\u0000${idKey(id as never)}`;
      if (line.dir === 'in' && item.kind === 'request') {
        if (item.method !== DISCOVER) facts.requests += 1;
        else {
          facts.discovered = true;
          asked.add(key(item.id));
          facts.discovery.push(bare(line));
        }
      } else if (
        line.dir === 'out' &&
        item.kind === 'response' &&
        item.id !== null &&
        asked.has(key(item.id))
      ) {
        facts.discovery.push(bare(line));
      }
    }
  }
  return facts;
}

const DISCOVER = 'server/discover';

/** A message line as a probe keeps it: time, direction and message, on the probe's own connection. */
function bare(line: MessageLine): ProbeLine {
  return { t: line.t, dir: line.dir, raw: line.raw, conn: CASSETTE_FILE_DEFAULTS.probeConn };
}

/** The kept probe's lines when it is recent enough to belong to this session; the stash is used up either way. */
async function takeProbe(stash: string, startedAt: number): Promise<ProbeLine[]> {
  let text: string;
  let kept: number;
  try {
    kept = (await stat(stash)).mtimeMs;
    text = await readFile(stash, 'utf8');
  } catch {
    return [];
  }
  await unlink(stash).catch(() => {});
  if (startedAt - kept > CASSETTE_FILE_DEFAULTS.probeMaxAgeMs) return [];
  const lines: ProbeLine[] = [];
  for (const row of text.split('\n')) {
    if (row.trim() === '') continue;
    try {
      const line = JSON.parse(row) as ProbeLine;
      if ((line.dir === 'in' || line.dir === 'out') && typeof line.t === 'string') lines.push(line);
    } catch {
      return []; // a damaged stash adds nothing
    }
  }
  return lines;
}

/** The line shape every tapedeck sink writes: `{"t":"…","seq":N,…}` (seq second, after the time). */
const SEQ_AT_START = /^\{"t":"[^"\\]*","seq":(\d+),/;

/**
 * Rewrites the recording with the probe's lines right after its meta line, numbered first (seq 1, 2 …) and every
 * later line's seq moved up by as many: sequence numbers stay strictly increasing, in the order things happened.
 */
async function prependProbe(path: string, probe: readonly ProbeLine[]): Promise<void> {
  const text = await readFile(path, 'utf8');
  const rows = text.split('\n');
  const shift = probe.length;
  const out: string[] = [];
  for (const [i, row] of rows.entries()) {
    if (row === '') continue;
    if (i === 0) {
      out.push(`${withEarlierStart(row, probe[0]?.t)}\n`);
      for (const [n, line] of probe.entries()) {
        const { t, dir, raw, conn } = line;
        out.push(encodeLine({ t, seq: n + 1, dir, raw, ...(conn === undefined ? {} : { conn }) }));
      }
      continue;
    }
    const at = SEQ_AT_START.exec(row);
    if (at) {
      const seq = Number(at[1]) + shift;
      out.push(`${row.replace(SEQ_AT_START, (head) => head.replace(/"seq":\d+,$/, `"seq":${seq},`))}\n`);
      continue;
    }
    out.push(`${shifted(row, shift)}\n`);
  }
  await writePrivateFile(path, out);
}

/** The meta line, its `startedAt` moved back to the probe's first message: a timeline starts where things did. */
function withEarlierStart(row: string, first: string | undefined): string {
  try {
    const meta = JSON.parse(row) as { startedAt?: unknown };
    if (
      first === undefined ||
      typeof meta.startedAt !== 'string' ||
      !(Date.parse(first) < Date.parse(meta.startedAt))
    )
      return row;
    return encodeLine({ ...meta, startedAt: first } as never).trimEnd();
  } catch {
    return row;
  }
}

/** A line whose seq is not where tapedeck writes it (or that has none): re-encoded with the seq moved. */
function shifted(row: string, shift: number): string {
  try {
    const line = JSON.parse(row) as { seq?: unknown };
    if (typeof line.seq !== 'number') return row;
    return encodeLine({ ...line, seq: line.seq + shift } as never).trimEnd();
  } catch {
    return row;
  }
}
