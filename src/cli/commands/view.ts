import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { frameAncestor } from '../../base/viewer-headers.js';
import { cmdArgs, escapeForCmd } from '../../process/cmd-line.js';
import { commandProcessor } from '../../process/plan.js';
import { openTrace } from '../../trace/io.js';
import { pagingPlan } from '../../view/paged/plan.js';
import { TraceIndex } from '../../view/paged/trace-index.js';
import { startViewServer, type ViewServer, viewFiles } from '../../view/server.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addLastFlag, type LastFlag, traceArguments } from '../flags/last.js';
import { type CliIo, print, say, userPath } from '../io.js';
import { parsePositiveInt } from '../parse.js';
import { holdSignals } from '../signals.js';

export interface ViewOptions {
  /** false with --no-open. */
  open?: boolean;
  port?: number;
  /** Pages allowed to frame the viewer (`--embed`, repeatable), already checked. */
  embed?: string[];
  /** `--paged` (true), `--no-paged` (false), or decide by size (undefined). */
  paged?: boolean;
}

/** What a host running the viewer in-process may set besides the CliIo. */
export interface ViewControl {
  /** The platform whose browser opener is used (default: this one). */
  platform?: NodeJS.Platform;
  /** Stops the server (the command wires SIGINT / SIGTERM to it when not given). */
  stop?: AbortSignal;
  /** Called once the server listens (tests read the URL from it). */
  onListening?: (server: ViewServer) => void;
}

/**
 * Every file the viewer needs for these traces: each one checked (exists, is a trace tapedeck reads) and the
 * rotated segments of each added. A bad path is a usage error naming it.
 *
 * @example await traceFilesFor(['calls.jsonl']) // → ['/abs/calls.1.jsonl', '/abs/calls.jsonl']
 */
export async function traceFilesFor(paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) throw usageError('give at least one trace file');
  const files: string[] = [];
  for (const path of paths) {
    // The browser fetches each file when it wants it, so the trace must be a file that can be read again.
    if (path === '-')
      throw usageError(
        'view serves trace files, and - (standard input) is none: save the trace to a file and name it, or write a page with tapedeck report - -o report.html',
      );
    try {
      const trace = await openTrace(path);
      for (const segment of trace.segments) files.push(segment.file);
    } catch (err) {
      if (err instanceof TapedeckError) throw usageError(err.message);
      throw err;
    }
  }
  return files;
}

/** The program that opens a URL in the default browser here, if there is one. */
export function browserOpener(
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
): { command: string; args: (url: string) => string[]; verbatim?: true } | undefined {
  // cmd.exe's `start` opens a URL with its default browser; the line is written escaped (an empty title first),
  // so a character in the URL is never read as a command separator.
  if (platform === 'win32')
    return {
      command: commandProcessor({ env }),
      args: (url) => cmdArgs(`start ${escapeForCmd('""')} ${escapeForCmd(`"${url}"`)}`),
      verbatim: true,
    };
  // Without a display xdg-open falls back to a text browser in this very terminal: better to only print the URL.
  if (platform !== 'darwin' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  const name = platform === 'darwin' ? 'open' : 'xdg-open';
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return { command: join(dir, name), args: (url) => [url] };
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Opens the URL in a browser when this machine has a way to; never fails (a headless box just has none). */
function openBrowser(url: string, io: CliIo, platform: NodeJS.Platform): void {
  const opener = browserOpener(platform, io.env);
  if (!opener) {
    say(io, 'no browser to open here (no display, or no xdg-open / open); open the URL above yourself');
    return;
  }
  try {
    const child = spawn(opener.command, opener.args(url), {
      detached: true,
      stdio: 'ignore',
      windowsVerbatimArguments: opener.verbatim === true,
    });
    child.on('error', () => say(io, `could not run ${opener.command}; open the URL yourself`));
    child.unref();
  } catch {
    say(io, `could not run ${opener.command}; open the URL yourself`);
  }
}

/**
 * `tapedeck view`: serves the viewer and the traces until stopped.
 *
 * @example await viewTraces(['calls.jsonl'], { open: false }, processIo());
 */
export async function viewTraces(
  paths: readonly string[],
  options: ViewOptions,
  io: CliIo,
  control: ViewControl = {},
): Promise<void> {
  const named = paths.map((path) => userPath(io, path));
  const files = await traceFilesFor(named);
  const plan = await pagingPlan(named, files, options.paged);
  if (plan.note) say(io, plan.note);
  const shown = viewFiles(files);
  const index = plan.paged ? await TraceIndex.open(named[0]!, shown) : undefined;
  const server = await startViewServer({
    files: shown,
    ...(options.port ? { port: options.port } : {}),
    ...(options.embed?.length ? { frameAncestors: options.embed } : {}),
    ...(index ? { paged: index } : {}),
  });
  const count = paths.length === 1 ? 'the trace' : `${paths.length} traces`;
  await print(io, `tapedeck: viewing ${count} at ${server.url}\n`);
  say(io, 'serving on 127.0.0.1 only; press Ctrl-C to stop');
  if (index)
    say(
      io,
      'the trace is served a page at a time (indexing it now); Calls, Diff and Raw need it whole: --no-paged',
    );
  if (options.embed?.length)
    say(io, `pages at ${options.embed.join(', ')} may frame the viewer; embed it as ${embedUrl(server.url)}`);
  control.onListening?.(server);
  if (options.open !== false) openBrowser(server.url, io, control.platform ?? process.platform);
  await new Promise<void>((done) => {
    const { stop } = control;
    if (stop) {
      if (stop.aborted) return done();
      stop.addEventListener('abort', () => done(), { once: true });
      return;
    }
    const held = holdSignals(() => {
      held.release();
      done();
    });
  });
  await server.close();
}

/** A --port value: 1 to 65535. */
function parsePort(value: string): number {
  const port = parsePositiveInt('--port', value);
  if (port > 65535) throw usageError(`--port must be at most 65535; got '${value}'`);
  return port;
}

/**
 * An --embed value (repeatable): an origin that may frame the viewer. A bad one is a usage error naming it.
 *
 * @example collectEmbed('https://dash.example.com', []) // → ['https://dash.example.com']
 */
export function collectEmbed(value: string, previous: string[] = []): string[] {
  const source = frameAncestor(value);
  if (source === undefined)
    throw usageError(
      `--embed takes an origin that may frame the viewer (https://dash.example.com, http://localhost:3000, ` +
        `http://localhost:*, vscode-webview:, self, or * for any page); got '${value}'`,
    );
  return previous.includes(source) ? previous : [...previous, source];
}

/** The viewer's address in embed mode: `?embed=1` before the hash. */
function embedUrl(url: string): string {
  const at = url.indexOf('#');
  return at < 0 ? `${url}?embed=1` : `${url.slice(0, at)}?embed=1${url.slice(at)}`;
}

/** How many of a folder's newest traces `view DIR` opens unless --newest says otherwise. */
const NEWEST_DEFAULT = 5;

/** Registers `tapedeck view <trace… | dir> | --last [--newest N] [--no-open] [--port N]`. */
export function registerView(program: Command, { io, action }: Cli): void {
  const command = program
    .command('view')
    .description(
      'Open traces in the web viewer: timeline, waterfall, calls, tool time and latency, diff, raw lines.',
    )
    .argument(
      '[trace...]',
      'trace files (any format tapedeck reads; rotated segments are found and stitched), or folders of traces',
    )
    .option('--no-open', 'print the URL only; do not start a browser')
    .option('--port <n>', 'listen on this port (default: any free one)', parsePort)
    .option(
      '--paged',
      'serve the trace a page at a time (the default for one trace of 256 MiB or 80,000 messages or more)',
    )
    .option('--no-paged', 'hand the browser the whole files, however big')
    .option(
      '--llm <file>',
      "the LLM recorder's trace of the same run (record --llm), opened beside: the Agent view draws model turns with their MCP calls",
    )
    .option(
      '--embed <origin>',
      'let pages of this origin frame the viewer (repeatable; open it with ?embed=1 for the view alone)',
      collectEmbed,
    )
    .option(
      '--newest <n>',
      'for a folder: open its n newest traces',
      (value) => parsePositiveInt('--newest', value),
      NEWEST_DEFAULT,
    );
  addLastFlag(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck view traces/everything.jsonl',
        '  tapedeck view before.jsonl after.jsonl      # two traces: merged by time, and a Diff view',
        '  tapedeck view calls.jsonl --no-open         # on a machine without a browser; open the URL elsewhere',
        '  tapedeck view --last                        # the newest trace of the recording folder',
        '  tapedeck view ./traces --newest 3           # the 3 newest traces of a folder, merged by time',
        '  tapedeck view calls.jsonl --embed http://localhost:3000   # a dashboard there may frame it (?embed=1)',
        '  tapedeck view huge.jsonl                    # 256 MiB or more: indexed here, shown a page at a time',
        '  tapedeck view mcp.jsonl --llm llm.jsonl     # an agent run: model turns and their MCP calls (Agent view)',
        '',
        'The server listens on 127.0.0.1 only and every URL carries a random token; it runs until Ctrl-C.',
        'No page may frame the viewer unless --embed names it (frame-ancestors in its content security policy).',
        'For a file to share, see tapedeck report.',
      ].join('\n'),
    )
    .action(
      action(async (traces: string[], options: ViewOptions & LastFlag & { newest: number; llm?: string }) => {
        const paths = traceArguments(traces, options, 'view', io, options.newest);
        await viewTraces(options.llm === undefined ? paths : [...paths, options.llm], options, io);
        return EXIT.ok;
      }),
    );
}
