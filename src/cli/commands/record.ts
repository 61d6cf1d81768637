import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runStdioProxy } from '../../proxy/stdio.js';
import { finishStdout, openStdout } from '../../proxy/streams.js';
import { FILE_SINK_DEFAULTS, FileSink } from '../../sink/file.js';
import { deriveLabel, safeLabel, traceFileName } from '../../sink/naming.js';
import { defaultTraceDir } from '../../sink/paths.js';
import { timestamp } from '../../trace/encode.js';
import type { MetaLine } from '../../trace/types.js';
import { PRODUCER } from '../../version.js';
import { usageError } from '../errors.js';
import { parseByteSize, parsePositiveInt } from '../parse.js';

interface RecordOptions {
  out?: string;
  file?: string;
  label?: string;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
  stderr: boolean;
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description('Record a stdio MCP session: run the server command and sit between it and the client.')
    .usage('[options] -- <command> [args...]')
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
    .addHelpText(
      'after',
      '\nExample:\n  tapedeck record --out ./traces -- npx -y @modelcontextprotocol/server-everything\n\n' +
        'Put the whole line in an MCP client config in place of the server command; the client never notices.\n' +
        'Nothing but the protocol is written to stdout.',
    )
    .action(async (commandArgs: string[], options: RecordOptions, command: Command) => {
      // Commander drops the `--` itself; its raw arguments still show whether the user wrote one.
      const rawArgs = (command.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? [];
      if (!rawArgs.includes('--') || commandArgs.length === 0) {
        throw usageError(
          "record needs the server command after '--', e.g. tapedeck record -- npx -y @modelcontextprotocol/server-everything",
        );
      }
      process.exitCode = await record(commandArgs, options);
    });
}

function resolveTracePath(options: RecordOptions, label: string): string {
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
    return resolve(options.file);
  }
  const dir = options.out ?? defaultTraceDir();
  if (options.out !== undefined && exists(dir) && !isDirectory(dir)) {
    throw usageError(`--out ${dir} is a file; give a folder, or use --file ${dir}`);
  }
  return resolve(traceFileName(dir, label));
}

async function record(argv: string[], options: RecordOptions): Promise<number> {
  const label = options.label !== undefined ? safeLabel(options.label) : deriveLabel(argv);
  const path = resolveTracePath(options, label);
  const sink = new FileSink({ path, maxBytes: options.maxBytes, maxFiles: options.maxFiles });
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: timestamp(),
    label,
    command: argv,
    kind: 'mcp',
    producer: { ...PRODUCER },
    traceId: randomUUID(),
    segment: 0,
    transport: 'stdio',
  };
  sink.start(meta);
  const output = openStdout();
  const [command, ...args] = argv as [string, ...string[]];
  const result = await runStdioProxy({
    command,
    args,
    sink,
    maxMessageBytes: options.maxMessageBytes,
    recordStderr: options.stderr,
    output: output.stream,
  });
  await sink.close({
    reason: 'process_exit',
    exitCode: result.serverExitCode ?? (result.signal === null ? result.exitCode : null),
    signal: result.signal,
  });
  await finishStdout(output);
  return result.exitCode;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
