import { resolve } from 'node:path';
import type { Command } from 'commander';
import { recordStdioSession } from '../../proxy/session.js';
import { type StartedServer, startServer } from '../../proxy/start.js';
import { RULE_FAMILIES, redactArgv, redactText, summarize } from '../../redact/index.js';
import { FILE_SINK_DEFAULTS, type TraceFileTarget } from '../../sink/file.js';
import { deriveLabel, safeLabel, traceFileName } from '../../sink/naming.js';
import { defaultTraceDir } from '../../sink/paths.js';
import { newMeta } from '../../trace/meta.js';
import { takeEarly } from '../early-spawn.js';
import { usageError } from '../errors.js';
import { renderDefaultRules } from '../format/redact-rules.js';
import { parseByteSize, parsePositiveInt } from '../parse.js';
import { exists, isDirectory } from '../paths.js';
import { holdSignals } from '../signals.js';
import { addBridgeFlags, HEADER_EXAMPLE, recordBridge } from './record-bridge.js';
import { addHttpRecordFlags, HTTP_RECORD_HELP, type HttpRecordFlags, recordHttp } from './record-http.js';
import { addLiveFlag, type LiveFlag, recordingSink } from './record-live.js';
import { addRuleFlags, type RuleFlags, redactionFrom } from './redact.js';

interface RecordOptions extends RuleFlags, HttpRecordFlags, LiveFlag {
  out?: string;
  file?: string;
  label?: string;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
  stderr: boolean;
  stdio?: boolean;
  sse?: boolean;
  header?: string[];
  quiet?: boolean;
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export function registerRecord(program: Command): void {
  const command = program
    .command('record')
    .description(
      'Record an MCP session: run the server command and sit between it and the client over stdio, or ' +
        'with --upstream URL listen on HTTP and forward to a server reached over HTTP.',
    )
    .usage(
      '[options] -- <command> [args...]\n       tapedeck record --upstream <url> [--listen <host:port>] [--header <header>…] [options]\n' +
        '       tapedeck record --upstream <url> --stdio [--sse] [--header <header>…] [options]',
    )
    .argument('[command...]', 'the server command, after --')
    .option('--out <dir>', 'folder for the trace (default: $TAPEDECK_DIR or ~/.tapedeck/traces)')
    .option('--file <file>', 'exact trace file path (instead of --out)')
    .option('--label <label>', 'label for the trace (default: derived from the command)')
    .option(
      '--max-bytes <size>',
      'rotate the trace file past this size',
      (v) => parseByteSize('--max-bytes', v),
      FILE_SINK_DEFAULTS.maxBytes,
    )
    .option(
      '--max-files <n>',
      'keep at most this many trace files per recording',
      (v) => parsePositiveInt('--max-files', v),
      FILE_SINK_DEFAULTS.maxFiles,
    )
    .option(
      '--max-message-bytes <size>',
      'trace copies of larger messages are replaced by a `truncated` event',
      (v) => parseByteSize('--max-message-bytes', v),
      DEFAULT_MAX_MESSAGE_BYTES,
    )
    .option('--no-stderr', "do not record the server's stderr (it is still passed through)")
    .option('-q, --quiet', "don't print where the trace goes")
    // Declared before --no-redact-defaults (addRuleFlags), so the pair leaves the value undefined unless given.
    .option('--redact-defaults', 'print the built-in redaction rules and exit');
  addHttpRecordFlags(command);
  addBridgeFlags(command);
  addLiveFlag(command);
  addRuleFlags(command)
    .addHelpText(
      'after',
      '\nExample:\n  tapedeck record --out ./traces -- npx -y @modelcontextprotocol/server-everything\n\n' +
        'Put the whole line in an MCP client config in place of the server command; the client never notices.\n' +
        'Nothing but the protocol is written to stdout.\n\n' +
        'The trace copy is redacted (never the forwarded bytes): built-in rules (--redact-defaults lists them),\n' +
        'plus ~/.config/tapedeck/redact.json, ./.tapedeck/redact.json, $TAPEDECK_REDACT and the flags above.' +
        HTTP_RECORD_HELP +
        '\n\nA stdio-only client and a remote server: --stdio makes the recorder a stdio MCP server that speaks\n' +
        'Streamable HTTP (or legacy SSE with --sse) to the URL, e.g. in a client config:\n' +
        `  tapedeck record --upstream https://mcp.example.com/mcp --stdio ${HEADER_EXAMPLE}`,
    )
    .action(async (commandArgs: string[], options: RecordOptions, self: Command) => {
      if (options.redactDefaults === true) {
        process.stdout.write(renderDefaultRules(RULE_FAMILIES));
        return;
      }
      // Commander drops the `--` itself; its raw arguments still show whether the user wrote one.
      const rawArgs = (self.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? [];
      if (options.upstream !== undefined) {
        if (rawArgs.includes('--') || commandArgs.length > 0) {
          throw usageError(
            '--upstream records a server reached over HTTP and takes no server command; give one or the other',
          );
        }
        if (options.stdio === true) {
          if (options.listen !== undefined || options.allowHost !== undefined) {
            throw usageError(
              `${options.listen !== undefined ? '--listen' : '--allow-host'} does not apply with --stdio: the client talks to tapedeck over stdio, not HTTP`,
            );
          }
          const { upstream } = options;
          process.exitCode = await recordBridge({
            ...options,
            upstream,
            path: (label) => resolveTracePath(options, label),
          });
          return;
        }
        if (options.sse === true) {
          throw usageError(
            '--sse only applies with --upstream URL --stdio (the listening proxy serves whichever transport the client speaks)',
          );
        }
        process.exitCode = await recordHttp(options, (label) => resolveTracePath(options, label));
        return;
      }
      const stray = (
        [
          ['--listen', options.listen],
          ['--allow-host', options.allowHost],
          ['--stdio', options.stdio],
          ['--sse', options.sse],
          ['--header', options.header],
        ] as const
      ).find(([, value]) => value !== undefined);
      if (stray) throw usageError(`${stray[0]} only applies with --upstream URL`);
      if (!rawArgs.includes('--') || commandArgs.length === 0) {
        throw usageError(
          "record needs the server command after '--' (e.g. tapedeck record -- npx -y @modelcontextprotocol/server-everything) or --upstream URL",
        );
      }
      process.exitCode = await record(commandArgs, options);
    });
}

/**
 * The trace file of a recording: `--file` as given (an existing file is overwritten, with a warning), or a new
 * name in `--out` (or the default folder) that no other recording holds.
 */
function resolveTracePath(options: RecordOptions, label: string): TraceFileTarget {
  if (options.file !== undefined && options.out !== undefined) {
    throw usageError(
      '--file and --out cannot be used together; give a folder with --out or one file with --file',
    );
  }
  if (options.file !== undefined) {
    if (options.file === '-') {
      throw usageError(
        '--file - is not allowed: stdout carries the MCP protocol; give a file path or --out <dir>',
      );
    }
    if (isDirectory(options.file)) {
      throw usageError(
        `--file ${options.file} is a directory; give a file path, or use --out ${options.file}`,
      );
    }
    return { path: resolve(options.file), existing: 'warn' };
  }
  const dir = options.out ?? defaultTraceDir();
  if (options.out !== undefined && exists(dir) && !isDirectory(dir)) {
    throw usageError(`--out ${dir} is a file; give a folder, or use --file ${dir}`);
  }
  return { path: resolve(traceFileName(dir, label)), existing: 'unique' };
}

async function record(argv: string[], options: RecordOptions): Promise<number> {
  // From the start: the proxy forwards signals to the server while it runs; a late one (after the server exited,
  // while the end line is written) must not kill the recorder before the trace is finished.
  const held = holdSignals();
  // The server the executable started before this code was loaded, if it is the one asked for.
  const started = takeEarly(argv, options.stderr ? 'pipe' : 'inherit');
  try {
    return await recordSession(argv, options, started);
  } catch (err) {
    // Refused after all (a bad redaction rule, an unreachable --live collector): the server got no byte yet.
    started?.stop();
    throw err;
  } finally {
    held.release();
  }
}

async function recordSession(
  argv: string[],
  options: RecordOptions,
  started: StartedServer | undefined,
): Promise<number> {
  // Everything that can fail on the user's input fails here, before a file is created or the server started.
  const { config, compiled, redactor } = redactionFrom(options);
  // A token passed as an argument must reach neither the label nor the file name (nor meta.command, which the
  // redactor would hide again; markers are left as they are).
  const shownArgv = [...redactArgv(argv, compiled)];
  const label =
    options.label !== undefined ? safeLabel(redactText(options.label, compiled)) : deriveLabel(shownArgv);
  const file = {
    ...resolveTracePath(options, label),
    maxBytes: options.maxBytes,
    maxFiles: options.maxFiles,
    redact: redactor,
  };
  const { sink, close } = await recordingSink(options, label, file);
  sink.start(newMeta({ label, command: shownArgv, redaction: summarize(config), transport: 'stdio' }));
  const [command, ...args] = argv as [string, ...string[]];
  const server = started ?? startServer(command, args, { stderr: options.stderr ? 'pipe' : 'inherit' });
  // Said once the server runs: a server that cannot start gets its one line of why, and nothing else.
  if (options.quiet !== true && (await server.spawned) === undefined)
    process.stderr.write(`tapedeck: recording to ${sink.path}\n`);
  try {
    return await recordStdioSession(argv, sink, {
      maxMessageBytes: options.maxMessageBytes,
      recordStderr: options.stderr,
      started: server,
    });
  } finally {
    await close();
  }
}
