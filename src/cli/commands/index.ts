import type { Command } from 'commander';

/** Every subcommand registers itself here; one file per command under this folder. */
export function registerCommands(program: Command): void {
  void program;
}
