import type { RunMode } from './modes.js';

/**
 * What a project file says once read and checked (project-file.ts finds it, project-file-parse.ts checks it): a type
 * of its own, so the finder and the parser, which is loaded only when there is a file, share it without importing
 * each other.
 */
export interface ProjectConfig {
  /** The file's absolute path. */
  path: string;
  mode?: RunMode | undefined;
  /** Absolute: the folder relative cassette paths are taken from. */
  cassetteDir?: string | undefined;
  /** The `lint` section as written; `tapedeck lint` checks it. */
  lint?: unknown;
}
