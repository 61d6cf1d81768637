import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CHANGE_CLASSES, type DriftFailOn, driftFails } from '../../gates/drift/classes.js';
import { compareDefinitions } from '../../gates/drift/compare.js';
import type { Definitions } from '../../gates/drift/definitions.js';
import { listLive } from '../../gates/drift/live.js';
import { type LoadedDefinitions, loadDefinitions } from '../../gates/drift/load.js';
import { renderLock } from '../../gates/drift/lock.js';
import { outputRedaction } from '../../redact/output.js';
import { driftReport } from '../../report/from-drift.js';
import { renderDriftText } from '../../report/text/drift-report.js';
import { writePrivateFile } from '../../trace/io.js';
import type { JsonObject } from '../../trace/jsonrpc.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addReporterFlag, parseReporters, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { print, say, traceFiles, userPath } from '../io.js';
import { refuseLinkedOutput } from '../paths.js';
import { useColor } from '../terminal.js';

interface DriftOptions extends RuleFlags {
  upstream?: string;
  writeLock?: string;
  failOn: string;
  json?: boolean;
  reporter: string[];
}

const FAIL_ON: readonly DriftFailOn[] = [...CHANGE_CLASSES, 'any'];

/**
 * `tapedeck drift <base> <new | -- server… | --upstream URL>`: compares the definitions a server offers (tools,
 * prompts, resources, resource templates) between two recordings, a lock file and a recording, or either and a
 * live server, and classes each change. `--write-lock` approves what NEW offers.
 *
 * @example await run(['drift', 'tools.lock.json', '--', 'node', 'server.js']);
 */
export function registerDrift(program: Command, { io, action }: Cli): void {
  const command = program
    .command('drift')
    .description(
      'Compare the tools, prompts and resources a server offers between two recordings, a lock file or a live server.',
    )
    .argument('<base>', 'a lock file or a recording')
    .argument('[new...]', 'a lock file or a recording; or, after --, a server command to start and list')
    .option('--upstream <url>', 'list a Streamable HTTP server at this URL as NEW')
    .option(
      '--write-lock <file>',
      'write what NEW offers as a lock file (canonical JSON, sorted): approves the change',
    )
    .option('--fail-on <class>', `the lowest class that fails the run: ${FAIL_ON.join(' | ')}`, 'breaking')
    .option('--json', 'print the changes as JSON ("version": 1)');
  addReporterFlag(addRuleFlags(command, { mode: false }), ['junit', 'github', 'json', 'sarif'])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck drift tools.lock.json -- node dist/server.js        # the CI gate\n' +
        '  tapedeck drift tools.lock.json --write-lock tools.lock.json -- node dist/server.js   # approve\n' +
        '  tapedeck drift old.jsonl new.jsonl --fail-on risky\n' +
        '  tapedeck drift tools.lock.json --upstream http://127.0.0.1:3000/mcp --reporter sarif:drift.sarif\n\n' +
        'Classes: breaking (removed; required input added; type, enum or format narrowed; output property removed),\n' +
        'risky (annotations made less safe; other constraints), additive (new items, optional inputs), cosmetic (text).\n' +
        'Exit codes: 0 nothing at or above --fail-on, 1 drift, 2 a usage error.',
    )
    .action(
      action(async (base: string, rest: string[], options: DriftOptions, cmd: Command) => {
        const clock = reportClock();
        const failOn = FAIL_ON.find((c) => c === options.failOn);
        if (failOn === undefined)
          throw usageError(`--fail-on must be ${FAIL_ON.join(', ')}; got '${options.failOn}'`);
        const reporters = parseReporters(options.reporter, {
          formats: ['junit', 'github', 'json', 'sarif'],
          stdoutTakenBy: options.json ? '--json' : undefined,
          cwd: io.cwd,
        });
        if (options.writeLock !== undefined)
          refuseLinkedOutput('--write-lock', options.writeLock, resolve(io.cwd, options.writeLock));
        const files = traceFiles(io);
        // The first `--write-lock` of a project has no lock to compare with yet: everything NEW offers is new.
        const first = options.writeLock !== undefined && !existsSync(userPath(io, base));
        const read = first ? undefined : await loadDefinitions(userPath(io, base), files);
        const { label, definitions } = await newSide(rest, options, cmd, io, read?.clientCapabilities);
        const loaded: LoadedDefinitions = read ?? {
          file: base,
          source: 'lock',
          definitions: emptyLike(definitions),
        };
        const changes = compareDefinitions(loaded.definitions, definitions);
        const redaction = redactionFrom(options, io);
        const out = redactedIo(io, redaction);
        if (options.json)
          await print(out, `${JSON.stringify({ version: 1, base, new: label, failOn, changes }, null, 2)}\n`);
        else if (!reporters.replacesStdout)
          await print(out, renderDriftText(changes, failOn, useColor(io.stdout, io.env)));
        if (reporters.reporters.length > 0) {
          const input = { base: reportPath(base, io.cwd), next: label, lines: loaded.lines, changes, failOn };
          await writeReports(reporters, driftReport(input, clock.context()), {
            ...out,
            stdoutTaken: options.json === true,
          });
        }
        if (options.writeLock !== undefined) {
          // A lock file is written from traffic too: the same rules hide a secret a definition carries.
          const hide = outputRedaction(redaction.compiled);
          const shown: Definitions = Object.fromEntries(
            Object.entries(definitions).map(([kind, items]) => [
              kind,
              new Map([...items].map(([name, item]) => [name, hide.json(item) as JsonObject])),
            ]),
          );
          await writePrivateFile(resolve(io.cwd, options.writeLock), [renderLock(shown)]);
          say(io, `wrote ${options.writeLock}`);
          return EXIT.ok;
        }
        return changes.some((c) => driftFails(c, failOn)) ? EXIT.finding : EXIT.ok;
      }),
    );
}

/** NEW: a file, a server command after `--`, or `--upstream`; exactly one. */
async function newSide(
  rest: string[],
  options: DriftOptions,
  cmd: Command,
  io: Cli['io'],
  capabilities: JsonObject | undefined,
): Promise<{ label: string; definitions: Definitions }> {
  // Commander keeps the words after `--` among the operands; only the raw command line tells them apart.
  const raw = (cmd.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? [];
  const dashes = raw.indexOf('--');
  const server = dashes < 0 ? [] : raw.slice(dashes + 1);
  const files = rest.slice(0, rest.length - server.length);
  const given = [files.length > 0, server.length > 0, options.upstream !== undefined].filter(Boolean).length;
  if (given !== 1 || files.length > 1)
    throw usageError(
      'drift needs one NEW: a lock file or recording, a server command after --, or --upstream URL',
    );
  if (options.upstream !== undefined) {
    let url: URL;
    try {
      url = new URL(options.upstream);
    } catch {
      throw usageError(`--upstream must be an http(s) URL; got '${options.upstream}'`);
    }
    return { label: options.upstream, definitions: await listLive({ url: url.href }, { capabilities }) };
  }
  if (server.length > 0) {
    const [command, ...args] = server as [string, ...string[]];
    return {
      label: server.join(' '),
      definitions: await listLive({ command, args, env: { ...io.env }, cwd: io.cwd }, { capabilities }),
    };
  }
  const file = files[0]!;
  return {
    label: file,
    definitions: (await loadDefinitions(userPath(io, file), traceFiles(io))).definitions,
  };
}

/** Definitions with the same kinds listed, each empty. */
function emptyLike(definitions: Definitions): Definitions {
  return Object.fromEntries(Object.keys(definitions).map((kind) => [kind, new Map()])) as Definitions;
}
