import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { tokenPath } from '../../base/paths.js';
import { parseDuration } from '../../base/units.js';
import { readToken } from '../../collector/home.js';
import { COLLECTOR_DEFAULTS } from '../../collector/options.js';
import { outputRedaction } from '../../redact/output.js';
import { renderScanReport } from '../../report/text/scan-report.js';
import { collectorBase, collectorRequest } from '../../sink/collector-client.js';
import { toTapedeck } from '../../trace/export/tapedeck.js';
import { batch, openTrace } from '../../trace/io.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addRuleFlags, type RuleFlags, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { scan } from './scan.js';

interface PushOptions extends RuleFlags {
  to: string;
  token?: string;
  force?: boolean;
  label?: string;
  expires: string;
  json?: boolean;
}

export const DEFAULT_COLLECTOR_URL = 'http://127.0.0.1:7420';

/** What `tapedeck push` did: the stored trace and its share link. */
export interface PushResult {
  id: string;
  lines: number;
  /** The viewer's page for the trace (needs access to the collector). */
  url: string;
  /** The read-only share link. */
  share: { id: string; url: string; expiresAt: string };
}

/**
 * `tapedeck push <trace>`: scans the trace for secrets (refusing on findings unless --force), uploads it to a
 * collector and prints a read-only share link.
 *
 * @example await run(['push', 'traces/run.jsonl', '--to', 'http://127.0.0.1:7420']);
 */
export function registerPush(program: Command, { io, action }: Cli): void {
  const command = program
    .command('push')
    .description('Upload a trace to a collector (after a secret scan) and print a read-only share link.')
    .argument(
      '<trace>',
      'trace file: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON, HAR',
    )
    .option('--to <url>', `the collector (default ${DEFAULT_COLLECTOR_URL})`, DEFAULT_COLLECTOR_URL)
    .option(
      '--token <token>',
      "the collector's write token (default: $TAPEDECK_TOKEN, else the one in $TAPEDECK_HOME or ~/.tapedeck/token)",
    )
    .option('--force', 'push even when the scan finds something that looks like a secret')
    .option('--label <label>', "label for the stored trace (default: the trace's own)")
    .option('--expires <age>', 'how long the share link works, e.g. 7d, 12h (at most 365d)', '7d')
    .option('--json', 'print the result as JSON');
  addRuleFlags(command, { mode: false })
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck push traces/run.jsonl\n' +
        '  tapedeck push calls.ndjson --to http://127.0.0.1:7420 --expires 1d --json\n\n' +
        'The trace is checked first exactly as `tapedeck scan` does (the --redact flags add rules); any finding\n' +
        'stops the push (exit 1) unless --force. Rotated segments are stitched and every format is sent as\n' +
        'tapedeck JSONL. stdout gets the share link; anyone who has it can read this trace until it expires or\n' +
        'is revoked (tapedeck share revoke <link>).',
    )
    .action(
      action(async (trace: string, options: PushOptions) => {
        const result = await push(trace, options, io);
        await print(io, options.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.share.url}\n`);
        return EXIT.ok;
      }),
    );
}

/**
 * Scans, uploads and shares one trace.
 *
 * @example const { share } = await push('run.jsonl', { to: 'http://127.0.0.1:7420', expires: '7d' });
 */
export async function push(trace: string, options: PushOptions, io: CliIo): Promise<PushResult> {
  const base = collectorUrl(options.to);
  // Checked here, before anything is uploaded: a collector that refused it would leave an unshared trace behind.
  const maxDays = COLLECTOR_DEFAULTS.maxShareTtlMs / 86_400_000;
  const expires = parseDuration(options.expires);
  if (expires === undefined || expires > COLLECTOR_DEFAULTS.maxShareTtlMs)
    throw usageError(
      `--expires must be a duration such as 7d or 12h, at most ${maxDays}d; got '${options.expires}'`,
    );
  const token = options.token ?? (process.env.TAPEDECK_TOKEN?.trim() || readToken(tokenPath()));
  if (token === undefined) {
    throw usageError(
      `no collector token: give --token or set TAPEDECK_TOKEN, or run tapedeck serve once on this machine (it writes ${tokenPath()})`,
    );
  }
  const report = await scan(trace, options, io);
  if (report.unreadable > 0 && options.force !== true) {
    const n = report.unreadable;
    throw new TapedeckError(
      'input',
      `push refused: ${n} line${n === 1 ? '' : 's'} of ${trace} could not be read, so could not be checked for secrets; ` +
        'redact it (tapedeck redact -o FILE leaves them out) or push anyway with --force',
    );
  }
  if (report.findings.length > 0 && options.force !== true) {
    // The findings show masked previews; the file names and paths beside them go through the trace's rules too.
    io.stderr.write(
      outputRedaction(redactionFrom(options, io).compiled).text(renderScanReport(report, false)),
    );
    const n = report.findings.length;
    throw new TapedeckError(
      'input',
      `push refused: ${n} finding${n === 1 ? '' : 's'} in ${trace} look${n === 1 ? 's' : ''} like a secret; ` +
        'redact it (tapedeck redact) or push anyway with --force',
    );
  }
  // The bytes the scan checked: `-` is held from the run's stdin, not read a second time.
  const opened = await openTrace(userPath(io, trace), {}, traceFiles(io));
  const client = { url: base, token };
  const query = new URLSearchParams({ sourceFormat: opened.format });
  if (options.label !== undefined) query.set('label', options.label);
  const encoder = new TextEncoder();
  const stream = (async function* () {
    for await (const block of batch(toTapedeck(opened))) yield encoder.encode(block);
  })();
  const uploaded = await collectorRequest<{ id: string; lines: number; url: string }>(
    client,
    'POST',
    `/api/v1/traces?${query}`,
    undefined,
    { headers: { 'content-type': 'application/x-ndjson' }, stream },
  );
  const share = await collectorRequest<{ id: string; url: string; expiresAt: string }>(
    client,
    'POST',
    `/api/v1/traces/${uploaded.id}/shares`,
    { expiresIn: options.expires.trim() },
  );
  say(io, `pushed ${trace} to ${base} as ${uploaded.id} (${uploaded.lines} lines)`);
  return {
    id: uploaded.id,
    lines: uploaded.lines,
    url: uploaded.url,
    share: { id: share.id, url: share.url, expiresAt: share.expiresAt },
  };
}

function collectorUrl(value: string): string {
  try {
    return collectorBase(value);
  } catch {
    throw usageError(`--to must be the collector's URL such as ${DEFAULT_COLLECTOR_URL}; got '${value}'`);
  }
}
