import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TapedeckError } from '../base/errors.js';
import { PRODUCER } from '../base/version.js';
import {
  type RecordingTransport,
  type RecordTransportOptions,
  recordTransport,
} from '../capture/record-transport.js';
import type { McpTransport } from '../capture/sdk-transport.js';
import type { FaultOptions } from '../faults/options.js';
import { type FaultRecord, faultEvent } from '../faults/records.js';
import type { LlmCall } from '../llm/calls.js';
import type { LlmMiss } from '../llm/match.js';
import type { ReplayReport } from '../replay/engine/engine.js';
import { withTransportFaults } from '../replay/sdk/fault-transport.js';
import {
  type ReplayTransport,
  type ReplayTransportOptions,
  replayTransport,
} from '../replay/sdk/replay-transport.js';
import { timestamp } from '../trace/encode.js';
import { nodeTraceFiles } from '../trace/io.js';
import type { ProjectConfig } from './project-config.js';
import { findProjectFile } from './project-file.js';
import { RUN_DEFAULTS } from './run.js';

/**
 * Cassettes as test fixtures: `useCassette` hands a test a connected SDK Client, backed by the real server the first
 * time (recorded into `__cassettes__/<name>.jsonl`) and by that cassette every time after. The SDK stays an optional
 * peer of tapedeck: it is imported here, at call time, and only its types are referenced statically. So are
 * node:path, node:url and the transport that starts the server (src/replay imports no node: module at load time,
 * so browser hosts can import it).
 */

/** `auto`: replay when the cassette exists, else record it; `record`: always (overwrites); `replay`: never spawn. */
export type CassetteMode = 'auto' | 'record' | 'replay' | 'passthrough';
export const CASSETTE_MODES: readonly CassetteMode[] = ['auto', 'record', 'replay', 'passthrough'];

/**
 * `faults` (and `seed`) are injected in every mode: replaying, they spoil the cassette's answers; recording or
 * passing through, the live server's — the client sees the same either way, and a recording keeps the server's
 * own answers with a `fault` event beside each.
 */
export interface UseCassetteOptions extends FaultOptions {
  /** The server command, e.g. `['node', 'dist/server.js']`; spawned only when recording (or `passthrough`). */
  command: readonly string[];
  /**
   * Default `auto`. `$TAPEDECK_MODE`, then the `mode` of the project file (tapedeck.config.json) override it, so CI
   * can force `replay`.
   */
  mode?: CassetteMode | undefined;
  /** `import.meta.url` of the calling test file: the cassette is `__cassettes__/<name>.jsonl` next to it. */
  from?: string | URL | undefined;
  /**
   * Or the folder the cassette lives in (the cassette is `<dir>/<name>.jsonl`). Give `from` or `dir`, or set
   * `cassetteDir` in the project file.
   */
  dir?: string | undefined;
  /** Environment and working folder of the spawned server. */
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** A Client of your own (with sampling / elicitation / roots handlers), not yet connected. */
  client?: Client | undefined;
  /**
   * How the recording is redacted (see recordTransport): by default the rules `tapedeck record` applies — built-in,
   * the user and project redact.json, `$TAPEDECK_REDACT`. Rules added here (`{ patterns, files, rules }`) are used
   * again when the cassette is replayed, so a request carrying a secret they hid still matches.
   */
  redact?: RecordTransportOptions['redact'];
  /** Replay knobs: `match`, `ignore`, `repeat`, `redaction` … (see replayTransport). */
  replay?: Omit<ReplayTransportOptions, 'llm'> | undefined;
  /**
   * The agent's model calls, in the same mode as the MCP side: recorded through the recording proxy in front of
   * `upstream` (the provider's base URL) into `file` (relative to the cassette's folder; default
   * `<cassette>.llm.jsonl`), or answered from it with no provider. `session.llm.url` is the base URL to give the model's SDK; passing through,
   * it is `upstream` itself.
   */
  llm?: { upstream?: string | undefined; file?: string | undefined } | undefined;
}

/** The model's side of a cassette session (the `llm` option). */
export interface LlmSide {
  /** What the model's SDK takes as its base URL (OpenAI clients: this plus `/v1`). */
  url: string;
  /** The LLM cassette's absolute path. */
  path: string;
  /** Replay's misses and the recorded calls not asked for yet; empty lists when recorded or passed through. */
  report(): { misses: LlmMiss[]; unused: LlmCall[] };
}

export interface CassetteSession {
  /** Connected to the cassette or to the recorded server. */
  client: Client;
  /** What actually runs: `record` or `replay` (`auto` resolved), or `passthrough`. */
  mode: Exclude<CassetteMode, 'auto'>;
  /** The cassette's absolute path. */
  path: string;
  /** Closes the client; when recording, resolves once the cassette has its end line. */
  close(): Promise<void>;
  /** Replay's account (used, unused, misses); undefined when the session was recorded or passed through. */
  report(): ReplayReport | undefined;
  /** Every fault injected so far, in every mode (see the `faults` option). */
  faults(): FaultRecord[];
  /** The model's side, when the `llm` option asked for it (closed by close()). */
  llm: LlmSide | undefined;
}

/**
 * A connected SDK Client backed by a cassette, VCR style.
 *
 * @example
 * const session = await useCassette('everything', {
 *   command: ['node', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
 *   from: import.meta.url, // → <this test's folder>/__cassettes__/everything.jsonl
 * });
 * const result = await session.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
 * await session.close();
 * expect(session.report()?.misses ?? []).toEqual([]);
 */
export async function useCassette(name: string, options: UseCassetteOptions): Promise<CassetteSession> {
  const project = await projectOf(name, options);
  const path = await cassettePath(name, {
    ...options,
    ...(options.dir === undefined && options.from === undefined && project?.cassetteDir !== undefined
      ? { dir: project.cassetteDir }
      : {}),
  });
  const mode = await resolveMode(options.mode, path, project);
  const sdk = await loadSdk();
  const client =
    options.client ?? new sdk.Client({ name: 'tapedeck-use-cassette', version: PRODUCER.version });

  const llm = options.llm === undefined ? undefined : await startLlmSide(path, mode, options.llm);

  if (mode === 'replay') {
    const transport: ReplayTransport = replayTransport(path, replayOptions(options));
    try {
      await client.connect(transport);
    } catch (err) {
      await llm?.close();
      throw err;
    }
    return {
      client,
      mode,
      path,
      close: async () => {
        await client.close();
        await llm?.close();
      },
      report: () => transport.report(),
      faults: () => transport.report().faults,
      llm: llm?.side,
    };
  }

  const [command, ...args] = options.command;
  if (command === undefined) {
    await llm?.close();
    throw new TapedeckError('usage', `useCassette('${name}') needs the server command to ${mode} ${path}`);
  }
  // Started as tapedeck starts every server (npx on Windows, the whole tree stopped on close), with the SDK's
  // short default environment plus the given one, as the SDK's own stdio transport would.
  const { ServerStdioTransport } = await import('../process/stdio-client.js');
  const stdio: McpTransport = new ServerStdioTransport({
    command,
    args,
    env: { ...sdk.getDefaultEnvironment(), ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const recording: RecordingTransport | undefined =
    mode === 'record'
      ? recordTransport(stdio, {
          file: path,
          label: name,
          transport: 'stdio',
          ...(options.redact !== undefined ? { redact: options.redact } : {}),
        })
      : undefined;
  const injected: FaultRecord[] = [];
  const faulted = withTransportFaults(recording ?? stdio, options, (fault) => {
    injected.push(fault);
    recording?.sink.append(faultEvent(fault, timestamp()));
  });
  try {
    await client.connect(faulted as never);
  } catch (err) {
    await llm?.close();
    throw err;
  }
  return {
    client,
    mode,
    path,
    close: async () => {
      await client.close();
      await recording?.closed;
      await llm?.close();
    },
    report: () => undefined,
    faults: () => [...injected],
    llm: llm?.side,
  };
}

/**
 * The model's side, in the session's mode: useLlmCassette records or replays `<cassette>.llm.jsonl` (or the file
 * named); passing through, the provider is used as is.
 */
async function startLlmSide(
  path: string,
  mode: Exclude<CassetteMode, 'auto'>,
  options: NonNullable<UseCassetteOptions['llm']>,
): Promise<{ side: LlmSide; close(): Promise<unknown> }> {
  const { resolve, dirname } = await import('node:path');
  const file =
    options.file === undefined
      ? path.replace(/(\.jsonl)?$/, '.llm.jsonl')
      : resolve(dirname(path), options.file);
  if (mode === 'passthrough') {
    if (options.upstream === undefined)
      throw new TapedeckError(
        'usage',
        'useCassette: llm needs upstream (the provider base URL) to pass through',
      );
    const empty = { misses: [], unused: [] };
    return { side: { url: options.upstream, path: file, report: () => empty }, close: async () => {} };
  }
  const { useLlmCassette } = await import('../llm/cassette.js');
  const cassette = await useLlmCassette({
    file,
    mode,
    ...(options.upstream === undefined ? {} : { upstream: options.upstream }),
  });
  return {
    side: { url: cassette.url, path: file, report: () => cassette.report() },
    close: () => cassette.close(),
  };
}

/** Replay's options, with the rules the recording was given added for matching unless replay names its own. */
function replayOptions(options: UseCassetteOptions): ReplayTransportOptions {
  const faults = options.faults === undefined ? {} : { faults: options.faults, seed: options.seed };
  const replay = { ...faults, ...options.replay };
  const redact = options.redact;
  if (replay.redaction !== undefined || typeof redact !== 'object') return replay;
  const { patterns, files, rules, defaults, where } = redact;
  return {
    ...replay,
    redaction: {
      ...(patterns !== undefined ? { patterns } : {}),
      ...(files !== undefined ? { files } : {}),
      ...(rules !== undefined ? { rules } : {}),
      ...(defaults !== undefined ? { defaults } : {}),
      ...(where !== undefined ? { where } : {}),
    },
  };
}

/**
 * Where `useCassette(name, options)` keeps its cassette: `<dir>/<name>.jsonl`, or `__cassettes__/<name>.jsonl` next
 * to the file `from` names. A name that already ends in `.jsonl` (or any `.ext`) is kept as is.
 *
 * @example await cassettePath('everything', { from: 'file:///repo/test/a.test.ts' }) // → '/repo/test/__cassettes__/everything.jsonl'
 */
export async function cassettePath(
  name: string,
  options: Pick<UseCassetteOptions, 'from' | 'dir'>,
): Promise<string> {
  if (name === '') throw new TapedeckError('usage', 'useCassette needs a cassette name');
  const [{ dirname, isAbsolute, join, resolve }, { fileURLToPath }] = await Promise.all([
    import('node:path'),
    import('node:url'),
  ]);
  const file = /\.[A-Za-z0-9]+$/.test(name) ? name : `${name}.jsonl`;
  if (isAbsolute(file)) return file;
  if (options.dir !== undefined) return resolve(options.dir, file);
  if (options.from !== undefined) {
    const from = String(options.from);
    const caller = from.startsWith('file:') ? fileURLToPath(from) : from;
    return join(dirname(resolve(caller)), '__cassettes__', file);
  }
  throw new TapedeckError(
    'usage',
    `useCassette('${name}') needs to know where cassettes live: pass from: import.meta.url (→ __cassettes__/ next to the test) or dir`,
  );
}

/**
 * The project file (tapedeck.config.json) above the working folder, else above the folder the cassette is in:
 * its `mode` reaches every test whatever environment the runner passes on, its `cassetteDir` is where cassettes
 * live when the test names neither `from` nor `dir`.
 */
async function projectOf(name: string, options: UseCassetteOptions): Promise<ProjectConfig | undefined> {
  const starts = [process.cwd()];
  if (options.dir !== undefined || options.from !== undefined) {
    const { dirname } = await import('node:path');
    starts.push(dirname(await cassettePath(name, options)));
  }
  return findProjectFile(starts);
}

/** `$TAPEDECK_MODE`, then the project file's `mode`, then the option, then `auto`. */
async function resolveMode(
  given: CassetteMode | undefined,
  path: string,
  project: ProjectConfig | undefined,
): Promise<Exclude<CassetteMode, 'auto'>> {
  const fromEnv = process.env[RUN_DEFAULTS.modeEnv];
  const envSet = fromEnv !== undefined && fromEnv.trim() !== '';
  const raw = envSet ? fromEnv.trim().toLowerCase() : (project?.mode ?? given ?? 'auto');
  const mode = CASSETTE_MODES.find((m) => m === raw);
  if (mode === undefined) {
    const source = envSet
      ? `$${RUN_DEFAULTS.modeEnv}`
      : project?.mode !== undefined
        ? `"mode" in ${project.path}`
        : 'mode';
    throw new TapedeckError(
      'usage',
      `useCassette: ${source} must be one of ${CASSETTE_MODES.join(', ')}; got '${raw}' (update needs tapedeck run)`,
    );
  }
  if (mode !== 'auto') return mode;
  return (await exists(path)) ? 'replay' : 'record';
}

interface Sdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment;
}

async function loadSdk(): Promise<Sdk> {
  try {
    const [client, stdio] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
    ]);
    return { Client: client.Client, getDefaultEnvironment: stdio.getDefaultEnvironment };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new TapedeckError(
        'usage',
        'useCassette needs the MCP SDK, which tapedeck does not install: npm install --save-dev @modelcontextprotocol/sdk',
        { cause: err },
      );
    }
    throw err;
  }
}

/** A file there: true; nothing: false; a folder or an unreadable path: its error. */
async function exists(path: string): Promise<boolean> {
  try {
    await nodeTraceFiles.check(path);
    return true;
  } catch (err) {
    if (err instanceof TapedeckError && err.code === 'not_found') return false;
    throw err;
  }
}
