/**
 * @modelcontextprotocol/server-filesystem through `tapedeck record --out`, with an SDK client that declares the
 * roots capability: the server asks `roots/list` right after `initialize`, so the trace must carry a server →
 * client request and the client's answer, and the folders `--out` creates must be private.
 */
import { readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceLine } from '../../src/trace/types.js';
import {
  type CommandLine,
  connectClient,
  filesystemServer,
  makeTempDir,
  mcpTapeProblems,
  readTrace,
  recorded,
  removeTempDir,
  responsesByRequest,
  rpc,
  settle,
  type TraceParts,
  traceParts,
} from '../helpers/peers.js';

const FILE_TEXT = 'Hello from a temp dir.\nSecond line: ünïcödé ✓\n';

async function runSession(target: CommandLine, dataDir: string) {
  const roots = [{ uri: pathToFileURL(dataDir).href, name: 'data' }];
  let rootsAsked!: () => void;
  const rootsListed = new Promise<void>((resolve) => {
    rootsAsked = resolve;
  });
  const { client, transport } = await connectClient(
    target,
    { capabilities: { roots: { listChanged: true } } },
    (c) =>
      c.setRequestHandler(ListRootsRequestSchema, async () => {
        rootsAsked();
        return { roots };
      }),
  );
  try {
    // The server asks for roots from its `oninitialized` hook; wait for the question so the exchange is surely in
    // the trace. (Its answer may still cross the first tool call on the wire: the SDK sends it after the handler.)
    await rootsListed;
    const results = {
      allowed: await settle(() => client.callTool({ name: 'list_allowed_directories', arguments: {} })),
      read: await settle(() =>
        client.callTool({ name: 'read_text_file', arguments: { path: join(dataDir, 'hello.txt') } }),
      ),
      listing: await settle(() => client.callTool({ name: 'list_directory', arguments: { path: dataDir } })),
      // Outside the roots: the server must refuse, the same way both times.
      outside: await settle(() =>
        client.callTool({ name: 'read_text_file', arguments: { path: join(dataDir, '..', 'secret.txt') } }),
      ),
    };
    return { results, roots, sent: transport.sent, received: transport.received };
  } finally {
    await client.close();
  }
}

describe('SDK client with roots ↔ server-filesystem through tapedeck record --out', () => {
  let tmp: string | undefined;
  let dataDir: string;
  let outDir: string;
  let traceFiles: string[];
  let direct: Awaited<ReturnType<typeof runSession>>;
  let proxied: Awaited<ReturnType<typeof runSession>>;
  let lines: TraceLine[];
  let trace: TraceParts;

  beforeAll(async () => {
    tmp = await makeTempDir();
    dataDir = join(tmp, 'data');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'hello.txt'), FILE_TEXT);
    await writeFile(join(tmp, 'secret.txt'), 'not for the server');
    // Two levels that do not exist yet: tapedeck creates both.
    outDir = join(tmp, 'new', 'sub');

    direct = await runSession(filesystemServer(dataDir), dataDir);
    proxied = await runSession(recorded(filesystemServer(dataDir), { out: outDir }), dataDir);
    traceFiles = readdirSync(outDir).filter((name) => name.endsWith('.jsonl'));
    lines = readTrace(join(outDir, traceFiles[0] ?? 'missing.jsonl'));
    trace = traceParts(lines);
  });

  afterAll(() => removeTempDir(tmp));

  it('lists the allowed directory and reads a file through the recorder', () => {
    const r = proxied.results;
    expect(r.allowed).toMatchObject({
      content: [{ type: 'text', text: `Allowed directories:\n${dataDir}` }],
    });
    expect(r.read).toMatchObject({ content: [{ type: 'text', text: FILE_TEXT }] });
    expect(JSON.stringify(r.listing)).toContain('[FILE] hello.txt');
    expect(r.outside).toMatchObject({ isError: true });
    expect(JSON.stringify(r.outside)).not.toContain('not for the server');
    expect(proxied.results).toEqual(direct.results);
  });

  it('records the roots/list request from the server and the client answer', () => {
    const asks = trace.messages.filter((m) => m.dir === 'out' && rpc(m.raw).method === 'roots/list');
    expect(asks).toHaveLength(1);
    const answers = responsesByRequest(trace.messages, 'out').get(asks[0]!);
    expect(answers).toHaveLength(1);
    expect(answers![0]!.dir).toBe('in');
    expect(answers![0]!.seq!).toBeGreaterThan(asks[0]!.seq!);
    expect(rpc(answers![0]!.raw).result).toEqual({ roots: proxied.roots });
    // The server asks only once the handshake is complete.
    const initialized = trace.messages.find((m) => rpc(m.raw).method === 'notifications/initialized');
    expect(asks[0]!.seq!).toBeGreaterThan(initialized!.seq!);
  });

  it('records both directions exactly as the client saw them', () => {
    expect(trace.in).toEqual(proxied.sent);
    expect(trace.out).toEqual(proxied.received);
    expect(rpc(trace.in[0]!).params?.capabilities).toEqual({ roots: { listChanged: true } });
    for (const [request, responses] of responsesByRequest(trace.messages, 'in')) {
      expect({ method: rpc(request.raw).method, responses: responses.length }).toEqual({
        method: rpc(request.raw).method,
        responses: 1,
      });
    }
  });

  it('names the file after the server and writes a complete mcp-tape v1 trace', () => {
    expect(traceFiles).toHaveLength(1);
    expect(traceFiles[0]).toMatch(/^\d{8}T\d{6}\.\d{3}Z-server-filesystem\.jsonl$/);
    expect(mcpTapeProblems(lines)).toEqual([]);
    expect(trace.meta).toMatchObject({ v: 1, type: 'meta', label: 'server-filesystem', transport: 'stdio' });
    expect(trace.end).toMatchObject({ type: 'end', reason: 'process_exit', exitCode: 0 });
  });

  // Skipped on Windows only: it has no POSIX mode bits to check.
  it.skipIf(process.platform === 'win32')('creates the --out folders 0700 and the trace file 0600', () => {
    expect(statSync(join(tmp!, 'new')).mode & 0o777).toBe(0o700);
    expect(statSync(outDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(outDir, traceFiles[0]!)).mode & 0o777).toBe(0o600);
  });
});
