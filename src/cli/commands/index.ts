import { type Command, Help } from 'commander';
import type { Cli, Register } from '../context.js';

/** One subcommand as the top-level help lists it, and how to load the module that defines it. */
export interface CommandEntry {
  name: string;
  /** The help's left column: name, `[options]`, arguments — what commander would derive from the real command. */
  term: string;
  description: string;
  load: () => Promise<Register>;
}

const install = async () => (await import('./install.js')).registerInstall;

/**
 * Every subcommand, in help order. A command's module (and everything it imports) is loaded only when that
 * command runs: start-up time is paid per command, not for all of them. A test keeps `term` and `description` in
 * step with what each module registers.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'record',
    term: 'record [options] [command...]',
    description:
      'Record an MCP session: run the server command and sit between it and the client over stdio, or with --upstream URL listen on HTTP and forward to a server reached over HTTP.',
    load: async () => (await import('./record.js')).registerRecord,
  },
  {
    name: 'ls',
    term: 'ls [options] [dir]',
    description:
      'List recent traces in a folder (default: the recording folder), newest first: time, label, transport, duration, messages, errors, size.',
    load: async () => (await import('./ls.js')).registerLs,
  },
  {
    name: 'convert',
    term: 'convert [options] <in>',
    description: 'Convert a trace to another format (the input format is detected from its content).',
    load: async () => (await import('./convert.js')).registerConvert,
  },
  {
    name: 'show',
    term: 'show [options] [trace]',
    description: 'Print a trace as a timeline: every message with its time, direction, latency and errors.',
    load: async () => (await import('./show.js')).registerShow,
  },
  {
    name: 'stats',
    term: 'stats [options] [trace]',
    description:
      'Summarize a trace: duration, server, message and byte counts, latency per method and per tool.',
    load: async () => (await import('./stats.js')).registerStats,
  },
  {
    name: 'diff',
    term: 'diff [options] <a> <b>',
    description:
      'Line two traces up request by request and show what was added, removed or answered differently.',
    load: async () => (await import('./diff.js')).registerDiff,
  },
  {
    name: 'redact',
    term: 'redact [options] <trace>',
    description:
      'Apply redaction rules to an existing trace (any format tapedeck reads), keeping its format.',
    load: async () => (await import('./redact.js')).registerRedact,
  },
  {
    name: 'scan',
    term: 'scan [options] <trace>',
    description: 'Report what in a trace still looks like a secret; exits 1 when anything is found.',
    load: async () => (await import('./scan.js')).registerScan,
  },
  {
    name: 'replay',
    term: 'replay [options] [cassette]',
    description:
      'Serve a recorded session (a cassette) as an MCP server, over stdio or HTTP: no real server runs.',
    load: async () => (await import('./replay.js')).registerReplay,
  },
  {
    name: 'verify',
    term: 'verify [options] <cassette> [command...]',
    description: 'Re-run a recorded session against a live server and diff its answers with the recording.',
    load: async () => (await import('./verify.js')).registerVerify,
  },
  {
    name: 'run',
    term: 'run [options] [command...]',
    description:
      'Record a session into a cassette, or serve it from one (VCR modes), in place of the server.',
    load: async () => (await import('./run.js')).registerRun,
  },
  {
    name: 'view',
    term: 'view [options] [trace...]',
    description:
      'Open traces in the web viewer: timeline, waterfall, calls, tool time and latency, diff, raw lines.',
    load: async () => (await import('./view.js')).registerView,
  },
  {
    name: 'report',
    term: 'report [options] [trace...]',
    description: 'Write one self-contained HTML file with the viewer and the traces (redacted), for sharing.',
    load: async () => (await import('./report.js')).registerReport,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'Run the collector: a service that stores traces and feeds the web viewer, live too.',
    load: async () => (await import('./serve.js')).registerServe,
  },
  {
    name: 'push',
    term: 'push [options] <trace>',
    description: 'Upload a trace to a collector (after a secret scan) and print a read-only share link.',
    load: async () => (await import('./push.js')).registerPush,
  },
  {
    name: 'share',
    term: 'share',
    description:
      "List a collector's read-only share links, or revoke them (with the collector's write token).",
    load: async () => (await import('./share.js')).registerShare,
  },
  {
    name: 'token',
    term: 'token',
    description: "Make, list and revoke team tokens kept in the collector's database (read or write).",
    load: async () => (await import('./token.js')).registerToken,
  },
  {
    name: 'mcp',
    term: 'mcp [options]',
    description:
      'Be an MCP server with recording and lookup tools for agents (shack-session-replay compatible).',
    load: async () => (await import('./mcp.js')).registerMcp,
  },
  {
    name: 'install',
    term: 'install [options]',
    description:
      "Wrap every stdio MCP server in your MCP clients' configs with `tapedeck record`, so each session is recorded.",
    load: install,
  },
  {
    name: 'uninstall',
    term: 'uninstall [options]',
    description: 'Give every server `tapedeck install` wrapped back exactly as it was.',
    load: install,
  },
  {
    name: 'status',
    term: 'status [options]',
    description: 'Show, per MCP client config, which servers are wrapped by tapedeck.',
    load: install,
  },
];

/**
 * Registers what `argv` needs: the one subcommand it names (`tapedeck show …`, `tapedeck help show`), or — for the
 * top-level help, a typo, or no command at all — a listing of every command that loads none of their modules.
 *
 * @example await registerCommands(program, ['stats', 'trace.jsonl'], cli); // loads only the stats command
 */
export async function registerCommands(program: Command, argv: readonly string[], cli: Cli): Promise<void> {
  const named = argv[0] === 'help' ? argv[1] : argv[0];
  const entry = COMMANDS.find((candidate) => candidate.name === named);
  if (entry !== undefined) {
    // Loading a command blocks the event loop; `record`'s early relay (early-spawn.ts) passes on what is ready first.
    await new Promise((resolve) => setImmediate(resolve));
    const register = await entry.load();
    register(program, cli);
    return;
  }
  const terms = new Map(COMMANDS.map((candidate) => [candidate.name, candidate.term]));
  const standard = new Help();
  program.configureHelp({
    subcommandTerm: (command) => terms.get(command.name()) ?? standard.subcommandTerm(command),
  });
  for (const listed of COMMANDS) program.command(listed.name).description(listed.description);
}
