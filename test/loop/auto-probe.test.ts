/**
 * `tapedeck run --mode auto` with real clients: the first run records, the second replays with no server started,
 * no miss and nothing unused. The v2 stdio client (`@modelcontextprotocol/client` 2.4.0) with version negotiation
 * spawns the command twice — a probe that asks only `server/discover` (then stdin EOF and SIGTERM), and the
 * session — so a run is two tapedeck processes: the probe's must never write the cassette, and the session's must
 * write one that also answers the next run's probe. The SDK 1.x client spawns once.
 *
 * Every process is logged by test/fixtures/scripts/exit-log.mjs: the tapedeck processes (their exit codes and
 * stderr, which the v2 client keeps private for its probe) and the server processes (how many were started).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as V2Client, type ClientOptions as V2Options } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CommandLine,
  EVERYTHING_SERVER,
  makeTempDir,
  REPO_ROOT,
  readTrace,
  removeTempDir,
  TAPEDECK_BIN,
} from '../helpers/peers.js';
import { waitFor } from '../helpers/proxy.js';
import { firstText } from './peers.js';

const EXIT_LOG = join(REPO_ROOT, 'test', 'fixtures', 'scripts', 'exit-log.mjs');
const V2_SERVER = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'v2-server.mjs');

type ClientKind = 'v2-pinned' | 'v2-auto' | 'sdk-1';
type ServerKind = 'v2-server' | 'everything-2025';

const CLIENT_OPTIONS: Record<Exclude<ClientKind, 'sdk-1'>, V2Options> = {
  'v2-pinned': { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  'v2-auto': { versionNegotiation: { mode: 'auto' } },
};

const SERVERS: Record<ServerKind, { argv: string[]; echo: Record<string, string>; echoed: string }> = {
  'v2-server': { argv: [process.execPath, V2_SERVER], echo: { text: 'hi' }, echoed: 'echo: hi' },
  'everything-2025': {
    argv: [process.execPath, EVERYTHING_SERVER, 'stdio'],
    echo: { message: 'hi' },
    echoed: 'Echo: hi',
  },
};

interface Logged {
  code: number | null;
  signal: string | null;
  stderr: string;
}

const readLog = (path: string): Logged[] => {
  try {
    return readTrace(path) as unknown as Logged[];
  } catch {
    return [];
  }
};

let tmp: string;
beforeAll(async () => {
  tmp = await makeTempDir('tapedeck-auto-probe-');
});
afterAll(() => removeTempDir(tmp));

/** One client run: `tapedeck run --cassette C -- <server>`, every process logged. */
async function clientRun(client: ClientKind, server: ServerKind, dir: string, flags: string[] = []) {
  const cassette = join(dir, 'cassettes', 'session.jsonl');
  const runs = join(dir, 'tapedeck-runs.jsonl');
  const starts = join(dir, 'server-starts.jsonl');
  const target: CommandLine = {
    command: process.execPath,
    args: [
      EXIT_LOG,
      runs,
      process.execPath,
      TAPEDECK_BIN,
      'run',
      '--cassette',
      cassette,
      ...flags,
      '--',
      process.execPath,
      EXIT_LOG,
      starts,
      ...SERVERS[server].argv,
    ],
  };
  // The clients' default environment, plus a tapedeck home of the test's own.
  const env = { PATH: process.env.PATH ?? '', TAPEDECK_HOME: join(dir, 'home') };
  const before = readLog(runs).length;
  let result: { tools: number; echoed: string; protocol: string | undefined };
  if (client === 'sdk-1') {
    const sdk = new Client({ name: 'loop-sdk1', version: '1.0.0' });
    await sdk.connect(new StdioClientTransport({ ...target, env, stderr: 'ignore' }));
    result = {
      tools: (await sdk.listTools()).tools.length,
      echoed: firstText(await sdk.callTool({ name: 'echo', arguments: SERVERS[server].echo })),
      protocol: undefined,
    };
    await sdk.close();
  } else {
    const v2 = new V2Client({ name: 'loop-v2', version: '1.0.0' }, CLIENT_OPTIONS[client]);
    await v2.connect(new V2StdioTransport({ ...target, env, stderr: 'ignore' }));
    result = {
      tools: (await v2.listTools()).tools.length,
      echoed: firstText(await v2.callTool({ name: 'echo', arguments: SERVERS[server].echo })),
      protocol: v2.getNegotiatedProtocolVersion(),
    };
    await v2.close();
  }
  const processes = client === 'sdk-1' ? 1 : 2;
  await waitFor(() => readLog(runs).length >= before + processes, 10_000, 'every tapedeck process to exit');
  return {
    result,
    cassette,
    tapedeck: readLog(runs).slice(before),
    serverStarts: () => readLog(starts).length,
  };
}

const CASES: [ClientKind, ServerKind][] = [
  ['v2-pinned', 'v2-server'],
  ['v2-auto', 'v2-server'],
  ['v2-auto', 'everything-2025'],
  ['sdk-1', 'v2-server'],
  ['sdk-1', 'everything-2025'],
];

describe.each(CASES)('run --mode auto: the %s client against %s', (client, server) => {
  it('records on the first run and replays on the second with no server, no miss and nothing unused', async () => {
    const dir = join(tmp, `${client}-${server}`);
    const first = await clientRun(client, server, dir);
    expect(first.result.echoed).toBe(SERVERS[server].echoed);
    expect(first.result.tools).toBeGreaterThan(0);
    const spawned = client === 'sdk-1' ? 1 : 2;
    expect(first.serverStarts()).toBe(spawned);
    const session = first.tapedeck.find((p) => /recorded \d+ request/.test(p.stderr))!;
    expect(session.stderr).toContain(`recording ${first.cassette}: no cassette there yet`);
    expect(session.code).toBe(0);
    if (spawned === 2) {
      // The probe's run saw only server/discover: it wrote nothing, and the session's cassette holds its answer.
      const probe = first.tapedeck.find((p) => p !== session)!;
      expect(probe.stderr).toContain('only server/discover was asked');
      expect(session.stderr).toContain("with the discovery its client's probe asked before it");
    }
    const methods = readTrace(first.cassette)
      .filter((line) => line.type === undefined && line.dir === 'in')
      .map((line) => (line as { raw: { method?: string } }).raw.method)
      .filter((method) => method !== undefined && !method.startsWith('notifications/'));
    expect(methods.filter((m) => m === 'server/discover')).toHaveLength(client === 'sdk-1' ? 0 : 1);
    expect(methods).toContain('tools/list');

    const second = await clientRun(client, server, dir);
    expect(second.result).toEqual(first.result);
    expect(first.serverStarts()).toBe(spawned); // no server started by the replaying run
    for (const run of second.tapedeck) {
      expect(run.stderr).toMatch(/replaying .*: cassette exists \(\d+ exchanges\)/);
      expect(run.stderr).not.toMatch(/miss|unused/);
      expect(run.code).toBe(0);
    }
    const replayed = second.tapedeck.map((p) => /replayed (\d+)\/(\d+) exchanges/.exec(p.stderr));
    const report = replayed.find((m) => m !== null);
    expect(report?.[1]).toBe(report?.[2]);
    expect(readFileSync(first.cassette, 'utf8')).not.toBe('');
  });
});

describe('a cassette that holds only a probe (as a run that replayed its own probe used to leave)', () => {
  it('is repaired by --mode update, and every later run replays it with nothing unused', async () => {
    const dir = join(tmp, 'repair');
    const cassette = join(dir, 'cassettes', 'session.jsonl');
    mkdirSync(join(dir, 'cassettes'), { recursive: true });
    const t = new Date().toISOString();
    const probeOnly = [
      { v: 1, type: 'meta', startedAt: t, label: 'v2-server', transport: 'stdio' },
      { t, seq: 1, dir: 'in', raw: { jsonrpc: '2.0', id: 'p', method: 'server/discover', params: {} } },
      {
        t,
        seq: 2,
        dir: 'out',
        raw: {
          jsonrpc: '2.0',
          id: 'p',
          result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete' },
        },
      },
      { t, type: 'end', durationMs: 1, reason: 'process_exit' },
    ];
    writeFileSync(cassette, probeOnly.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const repair = await clientRun('v2-pinned', 'v2-server', dir, ['--mode', 'update']);
    expect(repair.result.echoed).toBe('echo: hi');
    const session = repair.tapedeck.find((p) => p.stderr.includes('added '))!;
    expect(session.stderr).toContain('added 2 new exchanges');
    expect(session.code).toBe(0);
    const after = await clientRun('v2-pinned', 'v2-server', dir);
    expect(after.result).toEqual(repair.result);
    for (const run of after.tapedeck) {
      expect(run.stderr).not.toMatch(/miss|unused/);
      expect(run.code).toBe(0);
    }
  });
});
