import { resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultDataDir } from '../../base/paths.js';
import { summarize } from '../../redact/index.js';
import type { Cli } from '../context.js';
import { usageError } from '../errors.js';
import { addRuleFlags, type RuleFlags, redactionFrom } from '../flags/rules.js';
import { type ServeHttpFlags, serveHttpOf } from '../flags/serve-http.js';
import type { CliIo } from '../io.js';
import { holdSignals } from '../signals.js';

interface McpFlags extends RuleFlags, ServeHttpFlags {
  dataDir?: string;
}

/**
 * `tapedeck mcp [--data-dir DIR] [--http HOST:PORT]`: tapedeck as an MCP server for agents — start_recording,
 * record_event, stop_recording, replay_lookup, list_trajectories (shack-session-replay compatible) and
 * get_trajectory, search_trajectories, diff_trajectories, trajectory_stats.
 *
 * @example registerMcp(program, cli); // tapedeck mcp --data-dir ./trajectories
 */
export function registerMcp(program: Command, { io, action }: Cli): void {
  const command = program
    .command('mcp')
    .description(
      'Be an MCP server with recording and lookup tools for agents (shack-session-replay compatible).',
    )
    .option('--data-dir <dir>', `where trajectories are kept (default: ${defaultDataDir()})`)
    .option(
      '--http <host:port>',
      'serve Streamable HTTP on this address instead of stdio (port 0: a free one)',
    )
    .option(
      '--allow-host <name>',
      'with --http: accept this name in Host / Origin besides localhost (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  addRuleFlags(command)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck mcp\n' +
        '  tapedeck mcp --data-dir ./trajectories\n' +
        '  tapedeck mcp --http 127.0.0.1:7431\n\n' +
        'Tools: start_recording {name}, record_event {request, response}, stop_recording {},\n' +
        'replay_lookup {trajectory, request, occurrence?, ignore?}, list_trajectories {},\n' +
        'get_trajectory {name, offset?, limit?}, search_trajectories {query}, diff_trajectories {a, b},\n' +
        'trajectory_stats {name}.\n\n' +
        'Each trajectory is a tapedeck trace (<data dir>/<name>.jsonl, 0600, redacted like `record`), so show,\n' +
        'stats, replay and diff read it; shack-session-replay files (<name>.json) in the folder are read too.\n' +
        'Events are on disk as they come: a recording interrupted by a crash is taken over by the next server\n' +
        '(or continued by start_recording with its name). Only the protocol goes to stdout.',
    )
    .action(action((flags: McpFlags) => mcp(flags, io)));
}

async function mcp(flags: McpFlags, io: CliIo): Promise<number> {
  const front = serveHttpOf(flags);
  if (flags.dataDir === '') throw usageError('--data-dir needs a folder path');
  const redaction = redactionFrom(flags, io);
  // Loaded when it runs: the SDK's server and zod are not for every tapedeck command to pay for at startup.
  const { createTrajectoryService, serveMcpStdio } = await import('../../mcp/server.js');
  const { serveMcpHttp } = await import('../../mcp/http.js');
  const service = createTrajectoryService({
    dataDir: resolve(io.cwd, flags.dataDir ?? defaultDataDir()),
    redact: redaction.redactor,
    meta: { redaction: summarize(redaction.config) },
  });
  if (front !== undefined) {
    const http = await serveMcpHttp(service, front);
    io.stderr.write(`tapedeck mcp: serving ${service.store.dir} on ${http.url}\n`);
    await new Promise<void>((stop) => {
      const held = holdSignals(() => {
        held.release();
        stop();
      });
    });
    await http.close();
    service.recorder.close();
    return 0;
  }
  const server = serveMcpStdio(service);
  const held = holdSignals(() => server.stop());
  try {
    await server.done;
  } finally {
    held.release();
  }
  return 0;
}
