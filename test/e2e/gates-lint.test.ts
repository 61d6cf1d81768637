/**
 * `tapedeck lint` over real recorded traffic: server-everything and server-filesystem driven by the official v1 SDK
 * client, the v2 fixture server driven by the v2 client in the 2026-07-28 era, all through `tapedeck record`; then a
 * server that prints a banner on stdout, planted defects, the reporters and the project file's lint section.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAnnotations, parseXml, sarifProblems } from '../helpers/ci-formats.js';
import {
  bannerEverythingServer,
  type CommandLine,
  connectClient,
  everythingServer,
  filesystemServer,
  makeTempDir,
  REPO_ROOT,
  recorded,
  removeTempDir,
  runProcess,
  settle,
  TAPEDECK_BIN,
} from '../helpers/peers.js';

/** server-memory's entry point, as node resolves the package (a devDependency: `npm ci` installs it). */
const MEMORY_SERVER = (() => {
  const manifest = createRequire(join(REPO_ROOT, 'package.json')).resolve(
    '@modelcontextprotocol/server-memory/package.json',
  );
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0]!);
})();

let tmp: string;
const lint = (args: string[], cwd = REPO_ROOT) =>
  runProcess(process.execPath, [TAPEDECK_BIN, 'lint', ...args], { cwd });

async function recordV1(
  server: CommandLine,
  file: string,
  calls: (c: Awaited<ReturnType<typeof connectClient>>['client']) => Promise<void>,
) {
  const { client } = await connectClient(
    recorded(server, { file }),
    { capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: {} } },
    (c) => {
      c.setRequestHandler(CreateMessageRequestSchema, async () => ({
        model: 'm',
        role: 'assistant',
        content: { type: 'text', text: 'hi' },
      }));
      c.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: `file://${tmp}`, name: 'tmp' }],
      }));
      c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    },
  );
  await client.listTools();
  await calls(client);
  // server-everything asks the client for its roots ~350 ms after the handshake: let that exchange finish.
  await new Promise((done) => setTimeout(done, 800));
  await client.close();
}

beforeAll(async () => {
  tmp = await makeTempDir('tapedeck-lint-');
  await recordV1(everythingServer(), join(tmp, 'everything.jsonl'), async (c) => {
    await settle(() => c.callTool({ name: 'echo', arguments: { message: 'hi' } }));
    await settle(() => c.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }));
    await settle(() => c.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } }));
    await settle(() =>
      c.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } }),
    );
    await settle(() => c.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
    await settle(() => c.callTool({ name: 'toggle-simulated-logging', arguments: {} }));
    await settle(() => c.callTool({ name: 'get-roots-list', arguments: {} }));
    await settle(() => c.callTool({ name: 'get-sum', arguments: { a: 'one' } }));
    await settle(() => c.listPrompts());
    await settle(() => c.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon' } }));
    await settle(() => c.listResources());
    await settle(() => c.listResourceTemplates());
    await settle(() => c.readResource({ uri: 'demo://resource/static/document/instructions.md' }));
    await settle(() => c.subscribeResource({ uri: 'demo://resource/static/document/instructions.md' }));
    await settle(() => c.setLoggingLevel('debug'));
    await settle(() =>
      c.complete({
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      }),
    );
  });
  const files = join(tmp, 'files');
  await runProcess('mkdir', ['-p', files]);
  await recordV1(filesystemServer(files), join(tmp, 'filesystem.jsonl'), async (c) => {
    await settle(() =>
      c.callTool({ name: 'write_file', arguments: { path: join(files, 'a.txt'), content: 'hello' } }),
    );
    await settle(() => c.callTool({ name: 'read_text_file', arguments: { path: join(files, 'a.txt') } }));
    await settle(() => c.callTool({ name: 'list_directory', arguments: { path: files } }));
    await settle(() => c.callTool({ name: 'get_file_info', arguments: { path: join(files, 'a.txt') } }));
    await settle(() => c.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } }));
    await settle(() => c.callTool({ name: 'search_files', arguments: { path: files, pattern: '*.txt' } }));
  });
  // The 2026-07-28 era: the v2 client pinned to it, against the v2 fixture server.
  const v2 = recorded(
    { command: process.execPath, args: [join(REPO_ROOT, 'test/fixtures/servers/v2-server.mjs')] },
    { file: join(tmp, 'era2026.jsonl') },
  );
  const client = new V2Client(
    { name: 'lint-e2e', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Stdio({ command: v2.command, args: v2.args, cwd: REPO_ROOT }));
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await client.close();
  // server-memory (a devDependency), its knowledge graph kept in the test's folder.
  await recordV1(
    {
      command: 'env',
      args: [`MEMORY_FILE_PATH=${join(tmp, 'memory.jsonl')}`, process.execPath, MEMORY_SERVER],
    },
    join(tmp, 'memory-session.jsonl'),
    async (c) => {
      const entities = [
        { name: 'tapedeck', entityType: 'tool', observations: ['records MCP traffic'] },
        { name: 'ci', entityType: 'process', observations: ['gates every build'] },
      ];
      await c.callTool({ name: 'create_entities', arguments: { entities } });
      const relations = [{ from: 'ci', to: 'tapedeck', relationType: 'runs' }];
      await c.callTool({ name: 'create_relations', arguments: { relations } });
      await c.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'ci', contents: ['runs lint'] }] },
      });
      await c.callTool({ name: 'read_graph', arguments: {} });
      await c.callTool({ name: 'search_nodes', arguments: { query: 'MCP' } });
      await c.callTool({ name: 'open_nodes', arguments: { names: ['ci'] } });
    },
  );
  await recordV1(
    bannerEverythingServer('Everything server ready!'),
    join(tmp, 'banner.jsonl'),
    async () => {},
  );
}, 120_000);

afterAll(() => removeTempDir(tmp));

describe('tapedeck lint over real servers', () => {
  it('finds only the bad arguments the test sent in a server-everything session', async () => {
    const result = await lint([join(tmp, 'everything.jsonl')]);
    expect(result.stdout).toMatch(
      /everything\.jsonl:\d+ {2}error {2}tools\/input-schema {2}the arguments of "get-sum" fail its inputSchema: \/ must have required property 'b'\n1 finding \(1 error, 0 warn, 0 info\)/,
    );
    expect(result.code).toBe(1);
  });

  it('finds nothing in server-filesystem, server-memory and a 2026-07-28 session of the v2 SDK', async () => {
    for (const name of ['filesystem', 'memory-session', 'era2026']) {
      const result = await lint([join(tmp, `${name}.jsonl`)]);
      expect(result.stdout, name).toMatch(/^no findings in \d+ lines of /);
      expect(result.code, name).toBe(0);
    }
  });

  it('reports a banner on stdout as a warning: exit 0 by default, 1 with --fail-on warn, 0 with the rule off', async () => {
    const file = join(tmp, 'banner.jsonl');
    const plain = await lint([file]);
    expect(plain.stdout).toMatch(
      /banner\.jsonl:\d+ {2}warn {3}stdio\/non-json {2}the server wrote a line that is not JSON on stdout: "Everything server ready!"/,
    );
    expect(plain.code).toBe(0);
    expect((await lint([file, '--fail-on', 'warn'])).code).toBe(1);
    const off = await lint([file, '--fail-on', 'warn', '--rule', 'stdio/non-json=off']);
    expect([off.code, off.stdout]).toEqual([0, expect.stringMatching(/^no findings/)]);
  });

  it('takes the lint section of tapedeck.config.json, and flags beat it', async () => {
    const dir = await makeTempDir('tapedeck-lint-config-');
    try {
      writeFileSync(join(dir, 'tapedeck.config.json'), JSON.stringify({ lint: { failOn: 'warn' } }));
      expect((await lint([join(tmp, 'banner.jsonl')], dir)).code).toBe(1);
      expect((await lint([join(tmp, 'banner.jsonl'), '--rule', 'stdio/non-json=info'], dir)).code).toBe(0);
      writeFileSync(
        join(dir, 'tapedeck.config.json'),
        JSON.stringify({ lint: { rules: { 'no/such': 'off' } } }),
      );
      const bad = await lint([join(tmp, 'banner.jsonl')], dir);
      expect([bad.code, bad.stderr.trim()]).toEqual([
        2,
        expect.stringMatching(/"lint"\.rules names no lint rule 'no\/such'/),
      ]);
    } finally {
      await removeTempDir(dir);
    }
  });

  it('refuses a bad --rule or --fail-on with one line and exit 2', async () => {
    const file = join(tmp, 'banner.jsonl');
    const level = await lint([file, '--rule', 'stdio/non-json=loud']);
    expect([level.code, level.stderr.trim()]).toEqual([
      2,
      expect.stringContaining("needs a level: off | info | warn | error; got 'stdio/non-json=loud'"),
    ]);
    const failOn = await lint([file, '--fail-on', 'info']);
    expect([failOn.code, failOn.stderr.trim()]).toEqual([
      2,
      expect.stringContaining('--fail-on must be warn or error; got "info"'),
    ]);
  });

  it('reports planted defects in every CI format, pointing at trace lines', async () => {
    const file = join(tmp, 'planted.jsonl');
    const line = (o: object) => JSON.stringify(o);
    writeFileSync(
      file,
      [
        line({
          v: 1,
          type: 'meta',
          startedAt: '2026-12-06T00:00:00.000Z',
          label: 'planted',
          transport: 'stdio',
        }),
        line({
          t: '2026-12-06T00:00:00.001Z',
          dir: 'in',
          raw: {
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'c', version: '1' },
            },
          },
        }),
        line({
          t: '2026-12-06T00:00:00.002Z',
          dir: 'out',
          raw: {
            jsonrpc: '2.0',
            id: 0,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              serverInfo: { name: 's', version: '1' },
            },
          },
        }),
        line({ t: '2026-12-06T00:00:00.003Z', dir: 'out', raw: { jsonrpc: '2.0', id: 7, result: {} } }),
        line({
          t: '2026-12-06T00:00:00.004Z',
          dir: 'out',
          raw: { jsonrpc: '2.0', id: 1, method: 'roots/list' },
        }),
        '',
      ].join('\n'),
    );
    const sarifFile = join(tmp, 'lint.sarif');
    const junitFile = join(tmp, 'lint.xml');
    const run = await lint([
      file,
      '--reporter',
      `sarif:${sarifFile}`,
      '--reporter',
      `junit:${junitFile}`,
      '--reporter',
      'github',
    ]);
    expect(run.code).toBe(1);
    const annotations = parseAnnotations(
      run.stdout
        .split('\n')
        .filter((l) => l.startsWith('::'))
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(annotations.map((a) => [a.level, a.properties.line])).toEqual([
      ['error', '4'],
      ['error', '5'],
      ['warning', '5'],
    ]);
    const sarif = JSON.parse((await runProcess('cat', [sarifFile])).stdout);
    expect(sarifProblems(sarif)).toEqual([]);
    expect(
      sarif.runs[0].results.map(
        (r: { ruleId: string; locations: { physicalLocation: { region: { startLine: number } } }[] }) => [
          r.ruleId,
          r.locations[0]?.physicalLocation.region.startLine,
        ],
      ),
    ).toEqual([
      ['jsonrpc/unknown-id', 4],
      ['capabilities/client', 5],
      ['jsonrpc/unanswered', 5],
    ]);
    const junit = parseXml((await runProcess('cat', [junitFile])).stdout);
    expect(JSON.stringify(junit)).toContain('jsonrpc/unknown-id');
  });
});
