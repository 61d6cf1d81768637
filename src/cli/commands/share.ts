import type { Command } from 'commander';
import { tokenPath } from '../../base/paths.js';
import { readToken } from '../../collector/home.js';
import { SHARE_ID, type ShareInfo } from '../../collector/shares.js';
import { renderTable } from '../../report/text/table.js';
import { collectorBase, collectorRequest } from '../../sink/collector-client.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { type CliIo, print, say } from '../io.js';
import { terminalWidth } from '../terminal.js';
import { DEFAULT_COLLECTOR_URL } from './push.js';

/**
 * `tapedeck share list [trace-id]` and `tapedeck share revoke <share…>`: the read-only share links a collector
 * holds (`push` makes one per upload), listed and revoked with the write token. A revoked link stops working at
 * once, live viewers included.
 */

interface ShareFlags {
  to: string;
  token?: string;
  json?: boolean;
}

/** A trace id as the collector makes them (src/collector/routes.ts). */
const TRACE_ID = /^[A-Za-z0-9_-]{16}$/;

/**
 * Registers `tapedeck share` with its `list` and `revoke` subcommands.
 *
 * @example registerShare(program, cli); // tapedeck share revoke http://127.0.0.1:7420/#share=…
 */
export function registerShare(program: Command, { io, action }: Cli): void {
  const share = program
    .command('share')
    .description(
      "List a collector's read-only share links, or revoke them (with the collector's write token).",
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck share list                       # every share link, with its trace and state\n' +
        '  tapedeck share list Hq3vX0aZ9bC1dE2f      # the links of one trace\n' +
        "  tapedeck share revoke 'http://127.0.0.1:7420/#share=…'   # the link push printed, or its id\n\n" +
        'A revoked link stops working at once (its live viewers are closed); revoking one twice is fine.',
    );
  collectorFlags(
    share
      .command('list')
      .description(
        'List share links: id, trace, created, expires, state (active, expired, revoked); in a pipe, one tab-separated line each.',
      )
      .argument('[trace-id]', 'only the links of this stored trace')
      .option('--json', 'print the list as JSON'),
  ).action(
    action(async (traceId: string | undefined, flags: ShareFlags) => {
      if (traceId !== undefined && !TRACE_ID.test(traceId))
        throw usageError(`a trace id is 16 characters A-Z a-z 0-9 _ -; got '${traceId}'`);
      const client = clientOf(flags);
      const path = traceId === undefined ? '/api/v1/shares' : `/api/v1/traces/${traceId}/shares`;
      const { shares } = await collectorRequest<{ shares: ShareInfo[] }>(client, 'GET', path);
      if (flags.json === true) {
        await print(io, `${JSON.stringify(shares, null, 2)}\n`);
        return EXIT.ok;
      }
      if (shares.length === 0) {
        say(io, `no share links on ${client.url}${traceId === undefined ? '' : ` for trace ${traceId}`}`);
        return EXIT.ok;
      }
      await print(io, renderShares(shares, io));
      return EXIT.ok;
    }),
  );
  collectorFlags(
    share
      .command('revoke')
      .description('Revoke share links: each a link as push printed it, or its share id.')
      .argument('<share...>', 'share links (…#share=<id>) or share ids'),
  ).action(
    action(async (given: string[], flags: ShareFlags) => {
      // Every argument is checked before anything is revoked: a typo must not leave half the links working.
      const ids = given.map(shareIdOf);
      const client = clientOf(flags);
      for (const id of ids) {
        await collectorRequest<{ revoked: string }>(client, 'DELETE', `/api/v1/shares/${id}`);
        say(io, `revoked share ${id}`);
      }
      return EXIT.ok;
    }),
  );
}

function collectorFlags(command: Command): Command {
  return command
    .option('--to <url>', `the collector (default ${DEFAULT_COLLECTOR_URL})`, DEFAULT_COLLECTOR_URL)
    .option(
      '--token <token>',
      "the collector's write token (default: the one in $TAPEDECK_HOME or ~/.tapedeck/token)",
    );
}

/** The collector and its token, or a usage error naming what is missing. */
function clientOf(flags: ShareFlags): { url: string; token: string } {
  let url: string;
  try {
    url = collectorBase(flags.to);
  } catch {
    throw usageError(`--to must be the collector's URL such as ${DEFAULT_COLLECTOR_URL}; got '${flags.to}'`);
  }
  const token = flags.token ?? readToken(tokenPath());
  if (token === undefined)
    throw usageError(
      `no collector token: give --token, or run tapedeck serve once on this machine (it writes ${tokenPath()})`,
    );
  return { url, token };
}

/**
 * The share id in a share link (`…/#share=<id>`, `…?share=<id>`, `…/api/v1/shares/<id>…`) or a bare id.
 *
 * @example shareIdOf('http://127.0.0.1:7420/#share=abcdefghijklmnopqrstuvwxyz012345') // → 'abcdefghijklmnopqrstuvwxyz012345'
 */
export function shareIdOf(value: string): string {
  const text = value.trim();
  const id = SHARE_ID.test(text)
    ? text
    : (/[#?&]share=([^&#]*)/.exec(text)?.[1] ?? /\/api\/v1\/shares\/([^/?#]*)/.exec(text)?.[1]);
  if (id === undefined || !SHARE_ID.test(id))
    throw usageError(
      `'${value}' is neither a share link (…#share=<id>) nor a share id (32 characters A-Z a-z 0-9 _ -)`,
    );
  return id;
}

/** The state of a share as of now: revoked wins over expired. */
function stateOf(share: ShareInfo, now: number): 'active' | 'expired' | 'revoked' {
  if (share.revoked) return 'revoked';
  return Date.parse(share.expiresAt) <= now ? 'expired' : 'active';
}

/** A table on a terminal; in a pipe one tab-separated line per share: id, trace, created, expires, state. */
function renderShares(shares: readonly ShareInfo[], io: CliIo): string {
  const now = Date.now();
  if (io.stdout.isTTY !== true)
    return shares
      .map((share) =>
        [share.id, share.traceId, share.createdAt, share.expiresAt, stateOf(share, now)].join('\t'),
      )
      .map((line) => `${line}\n`)
      .join('');
  const time = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
  return renderTable(
    [
      { header: 'share' },
      { header: 'trace' },
      { header: 'created (UTC)' },
      { header: 'expires (UTC)' },
      { header: 'state' },
    ],
    shares.map((share) => [
      share.id,
      share.traceId,
      time(share.createdAt),
      time(share.expiresAt),
      stateOf(share, now),
    ]),
    { width: terminalWidth(io.stdout, io.env) },
  );
}
