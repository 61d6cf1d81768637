import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openNoFollow } from '../base/no-follow.js';
import { editorFor } from './editors.js';
import { type DecodedConfig, decodeConfig, encodeConfig } from './encoding.js';
import { type FilePlan, type InstallMode, type PlanOptions, planFile } from './plan.js';
import { resolvedPath } from './real-path.js';
import { type InstallEnv, type TargetId, uniqueLocations } from './targets.js';

/**
 * Reading every config file of the chosen targets, planning the change, and writing it: atomically (a temporary
 * file renamed over the original, its mode kept), after a one-time backup beside it (`<file>.tapedeck.bak`).
 */

export const BACKUP_SUFFIX = '.tapedeck.bak';

export interface RunOptions extends PlanOptions {
  targets: readonly TargetId[];
  where: InstallEnv;
  /** Work out and report the change, write nothing. */
  dryRun: boolean;
}

export interface FileOutcome extends FilePlan {
  /** The file was written (never with dryRun, nor when nothing changed or it does not parse). */
  written: boolean;
  /** The backup made now (the first time tapedeck changed this file). */
  backup?: string;
  /** Writing failed (permissions …): the file is as it was. */
  error?: string;
}

/**
 * Plans and (unless dry-run) applies install, uninstall or status to every config file of the targets.
 *
 * @example const outcomes = runInstall({ mode: 'install', targets: ['cursor'], dryRun: true, … });
 */
export function runInstall(options: RunOptions): FileOutcome[] {
  const outcomes: FileOutcome[] = [];
  // Each file once, even when two locations name it (a project folder that is the home folder).
  // Resolved, for a home folder reached through a link while the working folder is the real one.
  const locations = uniqueLocations(options.targets, options.where, resolvedPath);
  for (const id of options.targets) {
    for (const location of locations.filter((each) => each.target === id)) {
      const read = readIfThere(location.path);
      if (read !== undefined && 'problem' in read) {
        // Not text tapedeck can edit without changing bytes it does not mean to: reported, left as it is.
        const base = planFile(location, undefined, { ...options, mode: 'status' });
        outcomes.push({ ...base, exists: true, problem: read.problem, written: false });
        continue;
      }
      const text = read?.text;
      let plan: FilePlan;
      try {
        plan = planFile(location, text, options);
      } catch (err) {
        const base = planFile(location, undefined, { ...options, mode: 'status' });
        outcomes.push({
          ...base,
          exists: true,
          before: text ?? '',
          after: text ?? '',
          written: false,
          error: (err as Error).message,
        });
        continue;
      }
      const outcome: FileOutcome = { ...plan, written: false };
      const write =
        options.mode !== 'status' &&
        !options.dryRun &&
        plan.problem === undefined &&
        plan.after !== plan.before;
      const readOnly = write && !options.force ? readOnlyRefusal(location.path) : undefined;
      if (readOnly !== undefined) outcome.error = readOnly;
      else if (write) {
        try {
          // What goes to disk must read back: a bug must never leave a client with a config it cannot parse.
          if (editorFor(location).read(plan.after).problem)
            throw new Error('the changed file would not parse');
          // Back in the encoding it was found in (a byte order mark stays, UTF-16 stays UTF-16).
          const backup = writeConfig(location.path, encodeConfig(plan.after, read?.encoding ?? 'utf8'));
          outcome.written = true;
          if (backup !== undefined) outcome.backup = backup;
        } catch (err) {
          outcome.error = (err as Error).message;
        }
      }
      outcomes.push(outcome);
    }
  }
  return outcomes;
}

function readIfThere(path: string): DecodedConfig | undefined {
  try {
    return decodeConfig(readFileSync(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw err;
  }
}

/**
 * Why a config file must be left alone although its folder would let a rename replace it: nobody may write it (a
 * user made it read-only on purpose). Undefined when it may be written (or does not exist).
 *
 * @example readOnlyRefusal('/home/me/.cursor/mcp.json') // → "/home/me/.cursor/mcp.json is read-only (mode 0444); …"
 */
export function readOnlyRefusal(path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
  if ((mode & 0o222) !== 0) return undefined;
  return `${path} is read-only (mode ${mode.toString(8).padStart(4, '0')}); make it writable (chmod u+w), or pass --force to rewrite it anyway`;
}

/**
 * Replaces a file's content atomically, keeping its mode, and backs the original up once. A symlinked config is
 * written where the link points (dotfile managers link configs on purpose); the backup and the temporary file are
 * new files opened without following links, so a link planted at their names is never written through. Returns
 * the backup path when one was made now.
 */
export function writeConfig(path: string, text: string | Uint8Array): string | undefined {
  const real = realpathSync(path);
  const mode = statSync(real).mode & 0o7777;
  const backup = `${path}${BACKUP_SUFFIX}`;
  let made: string | undefined;
  try {
    writeNew(backup, readFileSync(real), mode);
    made = backup;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const temp = join(dirname(real), `.${basename(real)}.tapedeck-${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeNew(temp, text, mode);
    replaceFile(temp, real);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return made;
}

/** Creates `path` (EEXIST when anything, a link included, is there) holding `data`, with exactly `mode`. */
function writeNew(path: string, data: string | Uint8Array, mode: number): void {
  const fd = openNoFollow(path, 'create', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    // The open's mode passes through the umask; the config's own mode is what it had.
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Renames `from` over `to`. On Windows a rename over a file another program has open for a moment (the client
 * reading its config, a virus scanner) fails with EPERM, EBUSY or EACCES; a few short retries get past that.
 */
function replaceFile(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const transient =
        process.platform === 'win32' && (code === 'EPERM' || code === 'EBUSY' || code === 'EACCES');
      if (!transient || attempt >= 5) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50 * (attempt + 1));
    }
  }
}

export type { InstallMode };
