import type { Command } from 'commander';
import type { CollectorStore } from '../../collector/store.js';
import { TOKEN_ID, type TokenInfo, type TokenScope } from '../../collector/tokens.js';
import { renderTable } from '../../report/text/table.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { type CliIo, print, say } from '../io.js';
import { terminalWidth } from '../terminal.js';
import { databaseOf } from './serve.js';

/**
 * `tapedeck token create|list|revoke`: team tokens, kept in the collector's store (SQLite file or Postgres), so
 * every collector on that database accepts them at once. Run where the database is reachable: these commands
 * open it directly, as `serve` does. The token file beside one collector keeps working besides them.
 */

interface TokenFlags {
  db?: string;
  json?: boolean;
}

/** Opens the store `--db` names (or $TAPEDECK_DATABASE_URL, else the default SQLite file), runs `work`, closes it. */
async function withStore<T>(
  flags: TokenFlags,
  io: CliIo,
  work: (store: CollectorStore) => Promise<T>,
): Promise<T> {
  const { openStore } = await import('../../collector/open-store.js');
  const store = await openStore(databaseOf(flags.db, io));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const dbFlag = (command: Command) =>
  command.option(
    '--db <file|url>',
    "the collector's database: an SQLite file or a postgres:// URL (default: $TAPEDECK_DATABASE_URL, else the default SQLite file)",
  );

/**
 * Registers `tapedeck token` with `create`, `list` and `revoke`.
 *
 * @example registerToken(program, cli); // tapedeck token create --write --label ci
 */
export function registerToken(program: Command, { io, action }: Cli): void {
  const token = program
    .command('token')
    .description("Make, list and revoke team tokens kept in the collector's database (read or write).")
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck token create --write --label ci     # prints the secret once: keep it\n' +
        '  tapedeck token create --read --db postgres://tapedeck:PASSWORD@db:5432/tapedeck\n' +
        '  tapedeck token list\n' +
        '  tapedeck token revoke tok_Ab3dEf6hIj9k\n\n' +
        'A write token also reads. Clients send it as Authorization: Bearer <secret> (push --token, record --live).\n' +
        'A revoked token is refused at once by every collector on the database.',
    );
  dbFlag(
    token
      .command('create')
      .description('Make a token and print its secret (shown this once; only a hash is kept).')
      .option('--read', 'a token that reads traces (needed for reads beyond loopback)')
      .option('--write', 'a token that uploads, appends, deletes and shares (and reads)')
      .option('--label <text>', 'what the token is for, shown by token list')
      .option('--json', 'print the token as JSON, secret included'),
  ).action(
    action(async (flags: TokenFlags & { read?: boolean; write?: boolean; label?: string }) => {
      if (flags.read === flags.write) throw usageError('token create needs one of --read or --write');
      const scope: TokenScope = flags.write === true ? 'write' : 'read';
      const label = (flags.label ?? '').slice(0, 200);
      const made = await withStore(flags, io, (store) => store.createToken(scope, label, Date.now()));
      if (flags.json === true) await print(io, `${JSON.stringify(made, null, 2)}\n`);
      else {
        say(
          io,
          `made ${scope} token ${made.id}${label === '' ? '' : ` (${label})`}; its secret is shown once:`,
        );
        await print(io, `${made.secret}\n`);
      }
      return EXIT.ok;
    }),
  );
  dbFlag(
    token
      .command('list')
      .description('List tokens: id, scope, label, created, revoked (never a secret).')
      .option('--json', 'print the list as JSON'),
  ).action(
    action(async (flags: TokenFlags) => {
      const tokens = await withStore(flags, io, (store) => store.listTokens());
      if (flags.json === true) await print(io, `${JSON.stringify(tokens, null, 2)}\n`);
      else if (tokens.length === 0)
        say(io, 'no team tokens; make one with tapedeck token create --read|--write');
      else await print(io, renderTokens(tokens, io));
      return EXIT.ok;
    }),
  );
  dbFlag(
    token
      .command('revoke')
      .description('Revoke tokens by id (as token list shows them).')
      .argument('<id...>', 'token ids'),
  ).action(
    action(async (ids: string[], flags: TokenFlags) => {
      for (const id of ids)
        if (!TOKEN_ID.test(id)) throw usageError(`a token id is tok_ and 12 characters; got '${id}'`);
      const missing = await withStore(flags, io, async (store) => {
        const unknown: string[] = [];
        for (const id of ids) if (!(await store.revokeToken(id, Date.now()))) unknown.push(id);
        return unknown;
      });
      for (const id of ids) if (!missing.includes(id)) say(io, `revoked ${id}`);
      if (missing.length > 0)
        throw usageError(`not known in this database: ${missing.join(', ')} (see tapedeck token list)`);
      return EXIT.ok;
    }),
  );
}

function renderTokens(tokens: readonly TokenInfo[], io: CliIo): string {
  const time = (iso: string | null) => (iso === null ? '' : iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ''));
  const rows = tokens.map((t) => [t.id, t.scope, t.label, time(t.createdAt), time(t.revokedAt)]);
  if (io.stdout.isTTY !== true) return rows.map((row) => `${row.join('\t')}\n`).join('');
  return renderTable(
    [
      { header: 'token' },
      { header: 'scope' },
      { header: 'label' },
      { header: 'created (UTC)' },
      { header: 'revoked (UTC)' },
    ],
    rows,
    { width: terminalWidth(io.stdout, io.env) },
  );
}
