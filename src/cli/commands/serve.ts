import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { isLoopback } from '../../base/local-names.js';
import { defaultDbPath, tokenPath } from '../../base/paths.js';
import { parseDuration } from '../../base/units.js';
import { loadOrCreateToken, shownPath } from '../../collector/home.js';
import { COLLECTOR_DEFAULTS } from '../../collector/options.js';
import { isPostgresUrl } from '../../collector/postgres-connect.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { type CliIo, say } from '../io.js';
import { parseByteSize } from '../parse.js';
import { isDirectory, refuseLinkedOutput } from '../paths.js';
import { holdSignals } from '../signals.js';

interface ServeOptions {
  db?: string;
  port: number;
  host: string;
  allowHost?: string[];
  retain: number | 'off';
  maxBytes: number | 'off';
  maxBody: number;
  maxLine: number;
}

/** Default retention by age: a month of traces. */
const DEFAULT_RETAIN = '30d';

/**
 * `tapedeck serve`: the collector — stores traces in SQLite, takes uploads (`tapedeck push`) and live recordings
 * (`record --live`), serves the web viewer and its API — until SIGINT or SIGTERM.
 *
 * @example await run(['serve', '--port', '0', '--db', '/tmp/t.db']);
 */
export function registerServe(program: Command, { io, action }: Cli): void {
  program
    .command('serve')
    .description('Run the collector: a service that stores traces and feeds the web viewer, live too.')
    .option(
      '--db <file|url>',
      'the SQLite database file, or a postgres:// URL for a team collector (default: $TAPEDECK_DATABASE_URL, else $TAPEDECK_HOME/tapedeck.db or ~/.tapedeck/tapedeck.db)',
    )
    .option('--port <n>', 'port to listen on, 0 for any free one', parsePort, COLLECTOR_DEFAULTS.port)
    .option(
      '--host <host>',
      'address to listen on',
      (value: string) => parseHost(value),
      COLLECTOR_DEFAULTS.host,
    )
    .option(
      '--allow-host <name>',
      'with a non-loopback --host: also answer requests whose Host or Origin is this name (repeatable)',
      (value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        parseHost(value, '--allow-host'),
      ],
    )
    .addOption(
      new Option('--retain <age>', 'delete traces idle for longer than this, e.g. 30d, 12h; off keeps them')
        .argParser(parseRetain)
        .default(parseRetain(DEFAULT_RETAIN), DEFAULT_RETAIN),
    )
    .addOption(
      new Option(
        '--max-bytes <size>',
        'keep the stored traces under this size in all, oldest deleted first, e.g. 2GB',
      )
        .argParser((value: string) => (value === 'off' ? 'off' : parseByteSize('--max-bytes', value)))
        .default('off'),
    )
    .addOption(
      new Option('--max-body <size>', 'largest upload or append accepted')
        .argParser((value: string) => parseByteSize('--max-body', value))
        .default(COLLECTOR_DEFAULTS.maxBodyBytes, '512MB'),
    )
    .addOption(
      new Option(
        '--max-line <size>',
        'longest trace line accepted (and JSON document of a format read whole); it bounds the memory an upload holds',
      )
        .argParser((value: string) => parseByteSize('--max-line', value))
        .default(COLLECTOR_DEFAULTS.uploads.maxLineBytes, '32MB'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck serve\n' +
        '  tapedeck serve --port 0 --db ./traces.db --retain 7d --max-bytes 2GB\n' +
        '  tapedeck serve --host 0.0.0.0 --db postgres://tapedeck:PASSWORD@db:5432/tapedeck\n\n' +
        'Once listening, stderr says: tapedeck collector on http://127.0.0.1:7420 (token in ~/.tapedeck/token)\n' +
        'Writes (push, record --live, delete, share) need that token; on 127.0.0.1 reads do not. Binding another\n' +
        'address with --host makes reads need the token too, and only Host/Origin names given with --allow-host\n' +
        'are answered besides local ones. Team tokens (tapedeck token create) work besides the file token.\n' +
        'Several collectors on one Postgres database act as one (docs/team-collector.md). The API is described\n' +
        'in docs/reference/collector-api.md (GET /api/v1/traces …).',
    )
    .action(action((options: ServeOptions) => serve(options, io)));
}

async function serve(options: ServeOptions, io: CliIo): Promise<number> {
  if ((options.allowHost ?? []).length > 0 && isLoopback(options.host)) {
    throw usageError('--allow-host only applies with a non-loopback --host (e.g. --host 0.0.0.0)');
  }
  const dbPath = databaseOf(options.db, io);
  const tokenFile = tokenPath(io.env);
  const token = loadOrCreateToken(tokenFile);
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolveStop) => {
    stop = resolveStop;
  });
  const held = holdSignals(() => stop?.());
  try {
    // Loaded when it runs: `tapedeck <anything else>` need not load SQLite and the HTTP framework.
    const { startCollector } = await import('../../collector/server.js');
    const collector = await startCollector({
      dbPath,
      token,
      tokenPath: tokenFile,
      host: options.host,
      port: options.port,
      allowHosts: options.allowHost ?? [],
      maxBodyBytes: options.maxBody,
      uploads: { maxLineBytes: options.maxLine },
      retention: {
        maxAgeMs: options.retain === 'off' ? undefined : options.retain,
        maxBytes: options.maxBytes === 'off' ? undefined : options.maxBytes,
      },
    });
    if (collector.unfinishedRemoved > 0)
      say(io, `removed ${collector.unfinishedRemoved} upload(s) that were cut off before they finished`);
    if (!isLoopback(collector.host))
      say(
        io,
        `warning: listening on ${collector.host}, which other machines can reach; every request needs the token`,
      );
    io.stderr.write(`tapedeck collector on ${collector.url} (token in ${shownPath(tokenFile)})\n`);
    await stopped;
    await collector.close();
    return EXIT.ok;
  } finally {
    held.release();
  }
}

/** The --db value (or $TAPEDECK_DATABASE_URL): a postgres:// URL as given, a file path checked and resolved. */
export function databaseOf(db: string | undefined, io: CliIo): string {
  const given = db ?? io.env.TAPEDECK_DATABASE_URL;
  if (given !== undefined && isPostgresUrl(given)) return given;
  const dbPath = resolve(io.cwd, given ?? defaultDbPath(io.env));
  if (isDirectory(dbPath))
    throw usageError(`--db ${given ?? dbPath} is a directory; give a database file path`);
  refuseLinkedOutput('--db', given ?? dbPath, dbPath);
  return dbPath;
}

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) > 65535)
    throw usageError(`--port must be a port number from 0 to 65535; got '${value}'`);
  return Number(value);
}

function parseHost(value: string, flag = '--host'): string {
  const host = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (!/^[A-Za-z0-9.:-]+$/.test(host) || host === '')
    throw usageError(`${flag} must be a host name or IP address such as 127.0.0.1; got '${value}'`);
  return host;
}

function parseRetain(value: string): number | 'off' {
  if (value === 'off') return 'off';
  const ms = parseDuration(value);
  if (ms === undefined)
    throw usageError(`--retain must be a duration such as 30d, 12h or 90m, or off; got '${value}'`);
  return ms;
}
