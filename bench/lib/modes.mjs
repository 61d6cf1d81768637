import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist/cli/bin.js');
export const RELAY = process.env.BENCH_RELAY_SCRIPT ?? join(ROOT, 'bench/pipe-relay.cjs');
export const RAW_SERVER = join(ROOT, 'bench/raw-echo-server.mjs');
export const EVERYTHING_SERVER = join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

/**
 * The command a client runs for one mode: the server itself (`direct`), behind a bare pipe relay (`relay`), or
 * behind `tapedeck record --file <trace>` (`proxy`, with `recordArgs` before the server).
 */
export function commandFor(mode, server, traceFile, recordArgs = []) {
  const node = process.execPath;
  const profile = profileArgs();
  switch (mode) {
    case 'direct':
      return { command: node, args: server };
    case 'relay':
      return { command: node, args: [...profile, RELAY, '--', node, ...server] };
    case 'proxy':
      return {
        command: node,
        args: [...profile, CLI, 'record', '--file', traceFile, ...recordArgs, '--', node, ...server],
      };
    default:
      throw new Error(`unknown mode '${mode}'; expected direct, relay or proxy`);
  }
}

/** The modes to run, in the order they alternate within a round. */
export function modeList(config) {
  return config.relay ? ['direct', 'relay', 'proxy'] : ['direct', 'proxy'];
}

/**
 * BENCH_PROF_DIR=<dir> runs the relay and the proxy (not the servers, not this process) under `--cpu-prof`, one
 * .cpuprofile per process in <dir>; open them in Chrome DevTools or summarize with `node bench/prof-top.mjs <dir>`.
 * Profiling slows what it profiles: do not read ratios from such a run.
 */
function profileArgs() {
  const dir = process.env.BENCH_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}
