// Types for scripts/cli-reference.mjs, which test/docs/cli-reference.test.ts imports.
import type { Command } from 'commander';

/** Where the reference is committed, from the repository root. */
export const CLI_REFERENCE_PATH: string;

/** The program builder of src/cli/main.ts, as the reference calls it: argv names the command to register. */
export type BuildProgram = (argv: readonly string[], io?: never) => Promise<{ program: Command }>;

export function renderCliReference(buildProgram: BuildProgram): Promise<string>;
