import type { Command } from 'commander';
import { STDIO_PROXY_DEFAULTS } from '../../proxy/stdio.js';
import { RULE_FAMILIES } from '../../redact/index.js';
import { FILE_SINK_DEFAULTS } from '../../sink/file.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addFaultFlags, FAULT_HELP, type FaultFlags } from '../flags/faults.js';
import { addLiveFlag, type LiveFlag } from '../flags/live.js';
import { addRuleFlags, type RuleFlags } from '../flags/rules.js';
import { addServerCommandArgument, SERVER_COMMAND_HELP } from '../flags/server-command.js';
import { HEADER_EXAMPLE } from '../flags/upstream.js';
import { type CliIo, print } from '../io.js';
import { parseByteSize, parsePositiveInt } from '../parse.js';
import {
  addBridgeFlags,
  addHttpRecordFlags,
  HTTP_RECORD_HELP,
  type HttpRecordFlags,
  parseUpstream,
} from '../record/http-flags.js';
import { recordStdio } from '../record/stdio.js';
import { resolveTracePath } from '../record/trace-path.js';

interface RecordOptions extends RuleFlags, HttpRecordFlags, LiveFlag, FaultFlags {
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
  llm?: URL;
}

const LLM_RECORD_HELP =
  '\n\nRecording what an agent says to its model:\n' +
  '  tapedeck record --llm https://api.anthropic.com --listen 127.0.0.1:7431 --file agent-llm.jsonl\n' +
  '  Point the SDK at the listener (ANTHROPIC_BASE_URL=http://127.0.0.1:7431, or OpenAI baseURL\n' +
  '  http://127.0.0.1:7431/v1). Answers pass through as they come, streams event by event; the trace keeps each\n' +
  '  call as an `llm` exchange (model, usage, stop reason, tool calls), API keys redacted.';

/**
 * `tapedeck record -- <server command…>` (stdio), `record --upstream URL` (a listening HTTP proxy) and
 * `record --upstream URL --stdio` (a stdio bridge to a remote server).
 *
 * @example registerRecord(program, cli); // tapedeck record --out ./traces -- npx -y @modelcontextprotocol/server-everything
 */
export function registerRecord(program: Command, { io, action }: Cli): void {
  const command = program
    .command('record')
    .description(
      'Record an MCP session: run the server command and sit between it and the client over stdio, or ' +
        'with --upstream URL listen on HTTP and forward to a server reached over HTTP.',
    )
    .usage(
      '[options] [--] <command> [args...]\n       tapedeck record --upstream <url> [--listen <host:port>] [--header <header>…] [options]\n' +
        '       tapedeck record --upstream <url> --stdio [--sse] [--header <header>…] [options]',
    );
  addServerCommandArgument(command)
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
      STDIO_PROXY_DEFAULTS.maxMessageBytes,
    )
    .option('--no-stderr', "do not record the server's stderr (it is still passed through)")
    .option('-q, --quiet', "don't print where the trace goes")
    // Declared before --no-redact-defaults (addRuleFlags), so the pair leaves the value undefined unless given.
    .option('--redact-defaults', 'print the built-in redaction rules and exit');
  addHttpRecordFlags(command);
  command.option(
    '--llm <url>',
    "record an LLM provider's API (Anthropic Messages, OpenAI Chat Completions and Responses): listen locally " +
      '(--listen, default 127.0.0.1:7431) and forward to this base URL, e.g. https://api.anthropic.com',
    (value: string) => parseUpstream(value, '--llm'),
  );
  addBridgeFlags(command);
  addLiveFlag(command);
  addFaultFlags(command);
  addRuleFlags(command)
    .addHelpText(
      'after',
      '\nExample:\n  tapedeck record --out ./traces -- npx -y @modelcontextprotocol/server-everything\n\n' +
        'Put the whole line in an MCP client config in place of the server command; the client never notices.\n' +
        `${SERVER_COMMAND_HELP}\n` +
        'Nothing but the protocol is written to stdout.\n\n' +
        'The trace copy is redacted (never the forwarded bytes): built-in rules (--redact-defaults lists them),\n' +
        'plus ~/.config/tapedeck/redact.json, ./.tapedeck/redact.json, $TAPEDECK_REDACT and the flags above.' +
        HTTP_RECORD_HELP +
        LLM_RECORD_HELP +
        '\n\nA stdio-only client and a remote server: --stdio makes the recorder a stdio MCP server that speaks\n' +
        'Streamable HTTP (or legacy SSE with --sse) to the URL, e.g. in a client config:\n' +
        `  tapedeck record --upstream https://mcp.example.com/mcp --stdio ${HEADER_EXAMPLE}\n` +
        'Without an Authorization header, a server behind OAuth is signed in to by the bridge itself: it prints\n' +
        'the URL to open and keeps the sign-in in ~/.tapedeck/oauth/ for the next run.\n\n' +
        `${FAULT_HELP}\nThe faults are injected between the server and the client (stdio, or --upstream's proxy); the\n` +
        "trace keeps the server's own answers, and a fault whose MATCH found no request is a warning at the end.\n" +
        '  tapedeck record --fault error=-32603@tools/call#2 --fault latency=200~50 -- node server.js',
    )
    .action(action((commandArgs: string[], options: RecordOptions) => runRecord(commandArgs, options, io)));
}

/** Which recording the command line asks for, started. */
async function runRecord(commandArgs: string[], options: RecordOptions, io: CliIo): Promise<number> {
  // What only some command lines need is loaded by them: a stdio recording starts with the client waiting.
  if (options.redactDefaults === true) {
    const { renderDefaultRules } = await import('../../report/text/redact-rules.js');
    const { terminalWidth } = await import('../terminal.js');
    await print(io, renderDefaultRules(RULE_FAMILIES, terminalWidth(io.stdout, io.env)));
    return EXIT.ok;
  }
  if (options.llm !== undefined) {
    const other = commandArgs.length > 0 ? 'a server command' : options.upstream ? '--upstream' : undefined;
    if (other !== undefined) {
      throw usageError(
        `--llm records an LLM provider's API and takes no ${other}; run a second recorder for it`,
      );
    }
    const { recordLlm } = await import('../record/llm.js');
    const { llm } = options;
    return await recordLlm({ ...options, llm }, (label) => resolveTracePath(options, label, io), io);
  }
  if (options.upstream !== undefined) {
    if (commandArgs.length > 0) {
      throw usageError(
        '--upstream records a server reached over HTTP and takes no server command; give one or the other',
      );
    }
    if (options.stdio === true) {
      const listening = listenerFlagOf(options);
      if (listening !== undefined) {
        throw usageError(
          `${listening} does not apply with --stdio: the client talks to tapedeck over stdio, not HTTP`,
        );
      }
      if (options.fault?.length || options.faults !== undefined)
        throw usageError(
          '--fault and --faults apply to a stdio recording or --upstream without --stdio; the --stdio bridge injects none',
        );
      const { upstream } = options;
      const { recordBridge } = await import('../record/bridge.js');
      return await recordBridge(
        { ...options, upstream, path: (label) => resolveTracePath(options, label, io) },
        io,
      );
    }
    if (options.sse === true) {
      throw usageError(
        '--sse only applies with --upstream URL --stdio (the listening proxy serves whichever transport the client speaks)',
      );
    }
    const { recordHttp } = await import('../record/http.js');
    return await recordHttp(options, (label) => resolveTracePath(options, label, io), io);
  }
  const stray = (
    [
      ['--listen', options.listen],
      ['--allow-host', options.allowHost],
      ['--oauth', options.oauth],
      ['--stdio', options.stdio],
      ['--sse', options.sse],
      ['--header', options.header],
    ] as const
  ).find(([, value]) => value !== undefined);
  if (stray) throw usageError(`${stray[0]} only applies with --upstream URL`);
  if (commandArgs.length === 0) {
    throw usageError(
      'record needs a server command (e.g. tapedeck record npx -y @modelcontextprotocol/server-everything, or the same after --) or --upstream URL',
    );
  }
  return await recordStdio(commandArgs, options, io);
}

/** The first flag given that only a listening proxy uses (none of them applies to the --stdio bridge). */
function listenerFlagOf(options: {
  listen?: unknown;
  allowHost?: unknown;
  oauth?: unknown;
}): string | undefined {
  if (options.listen !== undefined) return '--listen';
  if (options.allowHost !== undefined) return '--allow-host';
  return options.oauth !== undefined ? '--oauth' : undefined;
}
