import type { Command } from 'commander';
import { registerRecord } from './record.js';

/** Every subcommand registers itself here; one file per command under this folder. */
export function registerCommands(program: Command): void {
  registerRecord(program);
}
