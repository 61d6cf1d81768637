import type { RemoteMarker, StdioMarker } from './entry.js';
import { isRecord, REMOTE_KEYS } from './entry.js';
import {
  jsonSlots,
  parseJsonConfig,
  unwrapRemoteEdits,
  unwrapStdioEdits,
  wrapRemoteEdits,
  wrapStdioEdits,
} from './json-config.js';
import type { ConfigLocation } from './targets.js';
import { applyTextEdits, type ConfigProblem } from './text.js';
import {
  codexRemoteView,
  parseTomlConfig,
  tomlSlots,
  unwrapRemoteToml,
  unwrapStdioToml,
  wrapRemoteToml,
  wrapStdioToml,
} from './toml-config.js';

/**
 * One interface over the two config formats: list the servers, wrap or unwrap one. Every operation takes the
 * current text and returns the new text; servers are addressed by their position, which edits never change.
 */

export interface SlotView {
  name: string;
  /** Where in the file, when a file holds several server maps (a Claude Code project path). */
  where: string | undefined;
  /** The entry as classification reads it. */
  value: unknown;
  marker: unknown;
  unsupported: boolean;
}

export interface ConfigEditor {
  read(text: string): { problem?: ConfigProblem; slots: SlotView[] };
  /** `prefix` goes in front of the original arguments (it ends with the original command). */
  wrapStdio(text: string, index: number, command: string, prefix: string[]): string;
  unwrapStdio(text: string, index: number, marker: StdioMarker): string;
  wrapRemote(text: string, index: number, command: string, args: string[], url: string): string;
  unwrapRemote(text: string, index: number, marker: RemoteMarker): string;
}

function jsonEditor(location: ConfigLocation): ConfigEditor {
  const slotsOf = (text: string) => {
    const { root, problem } = parseJsonConfig(text);
    if (problem) throw new Error(`the file no longer parses: ${problem.message}`);
    return jsonSlots(root, location.maps);
  };
  const at = (text: string, index: number) => {
    const slot = slotsOf(text)[index];
    if (slot === undefined) throw new Error(`server #${index} is gone`);
    return slot;
  };
  return {
    read(text) {
      const { root, problem } = parseJsonConfig(text);
      if (problem) return { problem, slots: [] };
      return {
        slots: jsonSlots(root, location.maps).map((slot) => ({
          name: slot.name,
          where: whereOf(slot.path),
          value: slot.value,
          marker: slot.marker,
          unsupported: false,
        })),
      };
    },
    wrapStdio: (text, index, command, prefix) =>
      applyTextEdits(text, wrapStdioEdits(text, at(text, index), command, prefix)),
    unwrapStdio: (text, index, marker) =>
      applyTextEdits(text, unwrapStdioEdits(text, at(text, index), marker)),
    wrapRemote(text, index, command, args, url) {
      const slot = at(text, index);
      const entry = isRecord(slot.value) ? slot.value : {};
      const kept = Object.fromEntries(Object.entries(entry).filter(([key]) => !REMOTE_KEYS.includes(key)));
      // Clients that type their entries (Claude Code, VS Code) need the stdio type said.
      const typed = typeof entry.type === 'string' ? { type: 'stdio' } : {};
      return applyTextEdits(text, wrapRemoteEdits(text, slot, { ...typed, command, args, ...kept }, url));
    },
    unwrapRemote: (text, index, marker) => applyTextEdits(text, unwrapRemoteEdits(at(text, index), marker)),
  };
}

const tomlEditor: ConfigEditor = {
  read(text) {
    const { doc, problem } = parseTomlConfig(text);
    if (problem) return { problem, slots: [] };
    return {
      slots: tomlSlots(text, doc).map((slot) => ({
        name: slot.name,
        where: undefined,
        value:
          isRecord(slot.value) && typeof slot.value.url === 'string'
            ? codexRemoteView(slot.value)
            : slot.value,
        marker: slot.marker,
        unsupported: slot.unsupported === true,
      })),
    };
  },
  wrapStdio(text, index, command, prefix) {
    const slot = tomlAt(text, index);
    const original =
      isRecord(slot.value) && Array.isArray(slot.value.args) ? (slot.value.args as string[]) : [];
    return applyTextEdits(text, wrapStdioToml(text, slot, command, [...prefix, ...original]));
  },
  unwrapStdio: (text, index, marker) => applyTextEdits(text, unwrapStdioToml(tomlAt(text, index), marker)),
  wrapRemote: (text, index, command, args, url) =>
    applyTextEdits(text, wrapRemoteToml(text, tomlAt(text, index), command, args, url)),
  unwrapRemote: (text, index, marker) => applyTextEdits(text, unwrapRemoteToml(tomlAt(text, index), marker)),
};

function tomlAt(text: string, index: number) {
  const { doc, problem } = parseTomlConfig(text);
  if (problem) throw new Error(`the file no longer parses: ${problem.message}`);
  const slot = tomlSlots(text, doc)[index];
  if (slot === undefined) throw new Error(`server #${index} is gone`);
  return slot;
}

/** Claude Code's per-project servers: `project /home/me/app`; other nested maps by their key path. */
function whereOf(path: readonly string[]): string | undefined {
  if (path.length <= 2) return undefined;
  if (path[0] === 'projects' && path.length === 4) return `project ${path[1]}`;
  return path.slice(0, -2).join(' › ');
}

/** The editor for a config location's format. */
export function editorFor(location: ConfigLocation): ConfigEditor {
  return location.format === 'toml' ? tomlEditor : jsonEditor(location);
}
