import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isSymlink, linkRefusal, openNoFollow, readNoFollow } from '../base/no-follow.js';
import { makePrivateFolder } from '../base/private-files.js';
import { checkName, nameProblem } from './names.js';

/**
 * The data folder of `tapedeck mcp`: one tapedeck trace per trajectory (`<name>.jsonl`), shack-session-replay
 * trajectory files (`<name>.json`) read as they are, and a marker (`<name>.recording`) beside each trace being
 * recorded, naming the server process that records it. Every file is opened without following a link: a link
 * planted in the folder is never written through, listed or read (see src/base/no-follow.ts).
 */

export type TrajectoryFormat = 'tapedeck' | 'shack';

/** A trajectory file in the data folder. */
export interface TrajectoryFile {
  name: string;
  path: string;
  format: TrajectoryFormat;
}

/** What a `.recording` marker says. */
export interface RecordingMarker {
  name: string;
  pid: number;
  startedAt: string;
}

const EXTENSIONS: Record<string, TrajectoryFormat> = { '.jsonl': 'tapedeck', '.json': 'shack' };

/**
 * @example
 * const store = new TrajectoryStore('/home/me/.tapedeck/trajectories');
 * store.list().map((t) => t.name) // → ['my_session', …]
 */
export class TrajectoryStore {
  constructor(readonly dir: string) {}

  /** Creates the folder (0700) when it is missing. */
  ensure(): void {
    makePrivateFolder(this.dir);
  }

  tracePath(name: string): string {
    return join(this.dir, `${checkName(name)}.jsonl`);
  }

  markerPath(name: string): string {
    return join(this.dir, `${checkName(name)}.recording`);
  }

  /**
   * Every trajectory in the folder, by name; a tapedeck trace wins over a shack file of the same name. Only regular
   * files count: a link is not a trajectory, wherever it points.
   */
  list(): TrajectoryFile[] {
    const found = new Map<string, TrajectoryFile>();
    for (const file of this.entries()) {
      for (const [ext, format] of Object.entries(EXTENSIONS)) {
        if (!file.endsWith(ext)) continue;
        const name = file.slice(0, -ext.length);
        if (nameProblem(name) !== undefined) continue;
        const known = found.get(name);
        if (known === undefined || (known.format === 'shack' && format === 'tapedeck'))
          found.set(name, { name, path: join(this.dir, file), format });
      }
    }
    return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The trajectory called `name`, or an Error that says which ones there are (or that it is a link). */
  locate(name: string, what = 'trajectory'): TrajectoryFile {
    checkName(name, what);
    for (const [ext, format] of Object.entries(EXTENSIONS)) {
      const path = join(this.dir, `${name}${ext}`);
      if (isSymlink(path)) throw linkRefusal(path);
      if (isFile(path)) return { name, path, format };
    }
    const names = this.list().map((t) => t.name);
    const known =
      names.length === 0
        ? `${this.dir} holds none yet (record one with start_recording, record_event, stop_recording)`
        : `it holds ${names
            .slice(0, 10)
            .map((n) => `'${n}'`)
            .join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}`;
    throw new Error(`no trajectory named '${name}' in ${this.dir}: ${known}`);
  }

  /**
   * Writes a marker atomically (0600): a new file under an unguessable temporary name, renamed over the marker (a
   * rename replaces a link in its place instead of writing where it points).
   */
  writeMarker(marker: RecordingMarker): void {
    const path = this.markerPath(marker.name);
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openNoFollow(temp, 'create');
    try {
      writeSync(fd, `${JSON.stringify(marker)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }

  removeMarker(name: string): void {
    rmSync(this.markerPath(name), { force: true });
  }

  readMarker(name: string): RecordingMarker | undefined {
    try {
      const value = JSON.parse(
        readNoFollow(this.markerPath(name)).toString('utf8'),
      ) as Partial<RecordingMarker>;
      if (typeof value.pid !== 'number') return undefined;
      return { name, pid: value.pid, startedAt: String(value.startedAt ?? '') };
    } catch {
      return undefined;
    }
  }

  /** Every marker in the folder, newest first (a link is not a marker). */
  markers(): RecordingMarker[] {
    const out: { marker: RecordingMarker; mtime: number }[] = [];
    for (const file of this.entries()) {
      if (!file.endsWith('.recording')) continue;
      const name = file.slice(0, -'.recording'.length);
      if (nameProblem(name) !== undefined) continue;
      const marker = this.readMarker(name);
      if (marker === undefined) continue;
      out.push({ marker, mtime: lstatSync(join(this.dir, file)).mtimeMs });
    }
    return out.sort((a, b) => b.mtime - a.mtime).map((entry) => entry.marker);
  }

  /** The names of the regular files in the folder. */
  private entries(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }
}

/** True while process `pid` runs (a process of another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
