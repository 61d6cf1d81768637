import type { Command } from 'commander';
import { registerConvert } from './convert.js';
import { registerDiff } from './diff.js';
import { registerInstall } from './install.js';
import { registerMcp } from './mcp.js';
import { registerPush } from './push.js';
import { registerRecord } from './record.js';
import { registerRedact } from './redact.js';
import { registerReplay } from './replay.js';
import { registerReport } from './report.js';
import { registerRun } from './run.js';
import { registerScan } from './scan.js';
import { registerServe } from './serve.js';
import { registerShow } from './show.js';
import { registerStats } from './stats.js';
import { registerVerify } from './verify.js';
import { registerView } from './view.js';

/** Every subcommand registers itself here; one file per command under this folder. */
export function registerCommands(program: Command): void {
  registerRecord(program);
  registerConvert(program);
  registerShow(program);
  registerStats(program);
  registerDiff(program);
  registerRedact(program);
  registerScan(program);
  registerReplay(program);
  registerVerify(program);
  registerRun(program);
  registerView(program);
  registerReport(program);
  registerServe(program);
  registerPush(program);
  registerMcp(program);
  registerInstall(program);
}
