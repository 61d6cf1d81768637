import type { Command } from 'commander';
import { type FileOutcome, runInstall } from '../../install/apply.js';
import { currentTapedeck } from '../../install/command.js';
import type { InstallMode, ServerReport, ServerState } from '../../install/plan.js';
import { displayPath, type InstallEnv, parseTargets, TARGET_IDS } from '../../install/targets.js';
import { unifiedDiff } from '../../install/text.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { type CliIo, homeOf, print } from '../io.js';

interface InstallFlags {
  target?: string;
  dryRun?: boolean;
  force?: boolean;
  includeRemote?: boolean;
  json?: boolean;
}

const HELP: Record<InstallMode, string> = {
  install:
    "Wrap every stdio MCP server in your MCP clients' configs with `tapedeck record`, so each session is recorded.",
  uninstall: 'Give every server `tapedeck install` wrapped back exactly as it was.',
  status: 'Show, per MCP client config, which servers are wrapped by tapedeck.',
};

/**
 * `tapedeck install | uninstall | status [--target a,b] [--dry-run] [--force] [--include-remote]`.
 *
 * @example registerInstall(program, cli); // tapedeck install --target cursor,codex --dry-run
 */
export function registerInstall(program: Command, { io, action }: Cli): void {
  for (const mode of ['install', 'uninstall', 'status'] as const) {
    const command = program
      .command(mode)
      .description(HELP[mode])
      .option('--target <ids>', `comma-separated clients (default: all): ${TARGET_IDS.join(', ')}`)
      .option('--json', 'print the outcome as JSON');
    if (mode !== 'status')
      command.option('--dry-run', 'print what would change (a diff per file) and write nothing');
    if (mode === 'uninstall') command.option('--force', 'rewrite read-only config files too');
    if (mode === 'install')
      command
        .option('--force', 'rewrite wraps that already point at this tapedeck, and read-only config files')
        .option(
          '--include-remote',
          'also wrap remote (url) servers, through `tapedeck record --upstream URL --stdio`',
        );
    command
      .addHelpText(
        'after',
        '\nExamples:\n' +
          `  tapedeck ${mode}\n` +
          `  tapedeck ${mode} --target claude-code,cursor${mode === 'status' ? '' : ' --dry-run'}\n\n` +
          'Config files (~ is %USERPROFILE% on Windows): Claude Code (~/.claude.json or $CLAUDE_CONFIG_DIR,\n' +
          './.mcp.json), Claude Desktop (macOS ~/Library/Application Support/Claude, Windows %APPDATA%\\Claude\n' +
          "and the packaged app's %LOCALAPPDATA%\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude,\n" +
          'elsewhere ~/.config/Claude), Cursor (~/.cursor/mcp.json, ./.cursor/mcp.json), VS Code (the user\n' +
          "profile's mcp.json: ~/Library/Application Support/Code/User, %APPDATA%\\Code\\User, ~/.config/Code/User;\n" +
          './.vscode/mcp.json), Windsurf (~/.codeium/windsurf/mcp_config.json), Gemini CLI (~/.gemini/settings.json,\n' +
          './.gemini/settings.json), Antigravity (~/.gemini/antigravity/mcp_config.json), Codex ($CODEX_HOME or\n' +
          '~/.codex, config.toml). A wrapped entry runs <node> <tapedeck>/dist/cli/tapedeck.cjs record --label <name> --\n' +
          '<command> <args…>; its "_tapedeck" key (a "# _tapedeck:" comment in TOML) holds what uninstall restores.\n' +
          'Server commands found on PATH are written by absolute path (npx is npx.cmd on Windows). Files are\n' +
          'written atomically in the encoding they were found in (CRLF, byte order mark), comments and formatting\n' +
          'kept; the first change backs a file up to <file>.tapedeck.bak. A file that does not parse is reported\n' +
          'and left as it is (exit 1), and so is a read-only one unless --force.',
      )
      .action(action((flags: InstallFlags) => install(mode, flags, io)));
  }
}

async function install(mode: InstallMode, flags: InstallFlags, io: CliIo): Promise<number> {
  let targets: ReturnType<typeof parseTargets>;
  try {
    targets = parseTargets(flags.target);
  } catch (err) {
    throw usageError(`--target: ${(err as Error).message}`);
  }
  // The home folder is %USERPROFILE% on Windows, $HOME elsewhere.
  const where: InstallEnv = {
    home: homeOf(io.env),
    cwd: io.cwd,
    platform: process.platform,
    appData: io.env.APPDATA,
    localAppData: io.env.LOCALAPPDATA,
    vars: io.env,
  };
  const outcomes = runInstall({
    mode,
    targets,
    where,
    dryRun: flags.dryRun === true,
    force: flags.force === true,
    remote: flags.includeRemote === true ? 'bridge' : 'skip',
    tapedeck: currentTapedeck(),
    env: io.env,
    platform: process.platform,
  });
  const failed = outcomes.some((o) => o.problem !== undefined || o.error !== undefined);
  const shown = outcomes.map(({ before: _b, after: _a, ...rest }) => ({ ...rest, changed: _a !== _b }));
  await print(
    io,
    flags.json
      ? `${JSON.stringify({ version: 1, mode, dryRun: flags.dryRun === true, files: shown }, null, 2)}\n`
      : render(mode, outcomes, flags, (path) => displayPath(path, where)),
  );
  return failed ? EXIT.finding : EXIT.ok;
}

const MARKS: Record<ServerState, string> = {
  wrapped: '+',
  rewrapped: '~',
  'already-wrapped': '=',
  stale: '!',
  unwrapped: '-',
  'not-wrapped': ' ',
  remote: ' ',
  'remote-wrapped': '+',
  'by-hand': ' ',
  skipped: '?',
};

const SAID: Record<ServerState, string> = {
  wrapped: 'wrapped',
  rewrapped: 'wrap refreshed (tapedeck or node moved)',
  'already-wrapped': 'wrapped',
  stale: 'wrapped through another tapedeck path (install refreshes it)',
  unwrapped: 'restored',
  'not-wrapped': 'not wrapped',
  remote: 'remote, not wrapped',
  'remote-wrapped': 'remote, wrapped through the HTTP bridge',
  'by-hand': 'recorded by tapedeck already (set up by hand), left alone',
  skipped: 'left alone',
};

function render(
  mode: InstallMode,
  outcomes: FileOutcome[],
  flags: InstallFlags,
  show: (path: string) => string,
): string {
  const out: string[] = [];
  const diffs: string[] = [];
  let changedFiles = 0;
  let remoteSkipped = 0;
  for (const o of outcomes) {
    const path = show(o.location.path);
    if (!o.exists) {
      if (mode === 'status') out.push(`${o.title}  ${path}: no such file`);
      continue;
    }
    if (o.problem) {
      out.push(
        `${o.title}  ${path}:${o.problem.line}:${o.problem.column}: ${o.problem.message}; left as it is`,
      );
      continue;
    }
    out.push(`${o.title}  ${path}${o.servers.length === 0 ? ': no servers' : ''}`);
    for (const server of o.servers)
      out.push(`  ${MARKS[server.state]} ${label(server)}  ${describe(server)}`);
    if (o.error) out.push(`  ✗ not written: ${o.error}; the file is as it was`);
    if (o.backup) out.push(`  backup: ${show(o.backup)}`);
    remoteSkipped += o.servers.filter((s) => s.state === 'remote').length;
    if (o.after !== o.before && o.error === undefined) {
      changedFiles++;
      if (flags.dryRun) diffs.push(unifiedDiff(o.before, o.after, path));
    }
  }
  if (out.length === 0) out.push('no MCP client config files found for the chosen targets');
  if (mode === 'install' && remoteSkipped > 0 && !flags.includeRemote)
    out.push(
      `${remoteSkipped} remote server(s) left alone; --include-remote wraps them through the HTTP bridge`,
    );
  if (mode !== 'status') {
    const verb = flags.dryRun ? 'would change' : 'changed';
    out.push(`${verb} ${changedFiles} file(s)${flags.dryRun ? ' (dry run: nothing written)' : ''}`);
  }
  return `${[...diffs, out.join('\n')].join('\n')}\n`;
}

function label(server: ServerReport): string {
  return server.where === undefined ? server.name : `${server.name} (${server.where})`;
}

function describe(server: ServerReport): string {
  return server.detail === undefined ? SAID[server.state] : `${SAID[server.state]}: ${server.detail}`;
}
