import { remoteArgs, resolveExecutable, stdioPrefix, type TapedeckCommand } from './command.js';
import { editorFor, type SlotView } from './editors.js';
import { classifyEntry, isRecord, type RemoteServer } from './entry.js';
import { type ConfigLocation, TARGETS } from './targets.js';
import type { ConfigProblem } from './text.js';

/**
 * What install, uninstall and status do to one config file, worked out in memory: the new text and, per server,
 * what happened to it. Nothing is written here.
 */

export type InstallMode = 'install' | 'uninstall' | 'status';

/** Remote servers: listed and left alone, or wrapped through the stdio↔HTTP bridge. */
export type RemotePolicy = 'skip' | 'bridge';

export type ServerState =
  /** install: wrapped now. */
  | 'wrapped'
  /** install: the wrap pointed at another tapedeck (moved, upgraded Node) and was refreshed. */
  | 'rewrapped'
  /** install: wrapped already, through this tapedeck. status: wrapped. */
  | 'already-wrapped'
  /** status: wrapped, but through another tapedeck path (install refreshes it). */
  | 'stale'
  /** uninstall: given back as it was. */
  | 'unwrapped'
  /** A local server tapedeck does not wrap (uninstall, status). */
  | 'not-wrapped'
  /** A remote server left alone (install without --include-remote, status, uninstall). */
  | 'remote'
  /** install --include-remote: wrapped through the bridge. */
  | 'remote-wrapped'
  /** Recorded through tapedeck by hand (no marker): left alone. */
  | 'by-hand'
  /** Neither a command nor a url, or written in a way tapedeck cannot edit: left alone. */
  | 'skipped';

export interface ServerReport {
  name: string;
  where: string | undefined;
  state: ServerState;
  detail?: string;
}

export interface FilePlan {
  location: ConfigLocation;
  title: string;
  exists: boolean;
  problem?: ConfigProblem;
  before: string;
  after: string;
  servers: ServerReport[];
}

export interface PlanOptions {
  mode: InstallMode;
  remote: RemotePolicy;
  /** Rewrite wraps that already point at this tapedeck. */
  force: boolean;
  tapedeck: TapedeckCommand;
  /** Where bare server commands are looked up (PATH, and PATHEXT on Windows). */
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Whether a file may be run (default: checked on this machine's disk). */
  isRunnable?: ((path: string) => boolean) | undefined;
}

/**
 * @example planFile(location, readFileSync(location.path, 'utf8'), { mode: 'install', remote: 'skip', … }).after
 */
export function planFile(location: ConfigLocation, text: string | undefined, options: PlanOptions): FilePlan {
  const target = TARGETS[location.target];
  const plan: FilePlan = {
    location,
    title: target.title,
    exists: text !== undefined,
    before: text ?? '',
    after: text ?? '',
    servers: [],
  };
  if (text === undefined || text.trim() === '') return plan;
  const editor = editorFor(location);
  const read = editor.read(text);
  if (read.problem) {
    plan.problem = read.problem;
    return plan;
  }
  let current = text;
  const tap = options.tapedeck;
  const visit = (slot: SlotView, index: number): ServerReport => {
    const report = (state: ServerState, detail?: string): ServerReport => ({
      name: slot.name,
      where: slot.where,
      state,
      ...(detail ? { detail } : {}),
    });
    if (slot.unsupported) return report('skipped', 'not written as a [mcp_servers.<name>] table');
    const kind = classifyEntry(slot.value, target.remote, slot.marker);
    const wrapStdio = (command: string) => {
      // By absolute path: a desktop client may start servers with a PATH shorter than the shell's (Claude Desktop
      // does on macOS and Windows), and on Windows `npx` is really `npx.cmd`.
      const resolved = resolveExecutable(command, options.env, options.platform, options.isRunnable);
      current = editor.wrapStdio(
        current,
        index,
        tap.command,
        stdioPrefix(tap, slot.name, resolved ?? command),
      );
      return resolved === undefined ? `'${command}' is not on PATH; left as it is` : undefined;
    };
    const wrapRemote = (remote: RemoteServer) => {
      current = editor.wrapRemote(
        current,
        index,
        tap.command,
        remoteArgs(tap, slot.name, remote),
        remote.url,
      );
    };
    switch (kind.kind) {
      case 'stdio':
        if (options.mode === 'install') return report('wrapped', wrapStdio(kind.command));
        return report('not-wrapped');
      case 'remote':
        if (options.mode === 'install' && options.remote === 'bridge') {
          wrapRemote(kind.remote);
          return report('remote-wrapped', kind.remote.url);
        }
        return report('remote', kind.remote.url);
      case 'by-hand':
        return report('by-hand');
      case 'invalid':
        return report('skipped', kind.why);
      case 'wrapped': {
        const marker = kind.marker;
        const entry = isRecord(slot.value) ? slot.value : {};
        const fresh =
          entry.command === tap.command &&
          Array.isArray(entry.args) &&
          tap.prefix.every((part, i) => (entry.args as unknown[])[i] === part);
        if (options.mode === 'status') return report(fresh ? 'already-wrapped' : 'stale');
        if (options.mode === 'install' && fresh && !options.force) return report('already-wrapped');
        // Give it back first; install then wraps it again through this tapedeck.
        if ('remote' in marker) current = editor.unwrapRemote(current, index, marker);
        else current = editor.unwrapStdio(current, index, marker);
        if (options.mode === 'uninstall') return report('unwrapped');
        const again = editor.read(current).slots[index];
        const redo = again && classifyEntry(again.value, target.remote, again.marker);
        if (redo?.kind === 'stdio') return report('rewrapped', wrapStdio(redo.command));
        if (redo?.kind === 'remote') {
          wrapRemote(redo.remote);
          return report('rewrapped', redo.remote.url);
        }
        return report('unwrapped', 'could not be wrapped again');
      }
    }
  };
  for (const [index, slot] of read.slots.entries()) plan.servers.push(visit(slot, index));
  plan.after = current;
  return plan;
}
