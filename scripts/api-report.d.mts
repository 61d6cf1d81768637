// Types for scripts/api-report.mjs, which test/api/report.test.ts imports.

/** Where the report is committed, from the repository root. */
export const REPORT_PATH: string;

export interface EntryPoint {
  /** The name users import, e.g. `mcp-tapedeck/trace`. */
  name: string;
  /** The source file behind its declarations, e.g. `src/trace/index.ts`. */
  source: string;
}

export interface ApiItem {
  name: string;
  /** The item as the report shows it: its kind, and a function's signatures (one line each). */
  lines: string[];
}

export interface EntrySurface extends EntryPoint {
  runtime: ApiItem[];
  types: ApiItem[];
  /** Types the entry's exports name that no entry point exports. */
  unexported: ApiItem[];
}

export function entryPoints(root: string): EntryPoint[];
export function apiSurface(root: string): EntrySurface[];
export function renderReport(surface: readonly EntrySurface[]): string;
