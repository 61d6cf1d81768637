/**
 * The CI guide's workflow (docs/gates.md, "A GitHub Actions workflow") runs as written: its YAML is read from the
 * guide, and every `run:` step after the install is run by bash, word for word, in a project of the test's own: a
 * server built to `dist/server.js` (the drift fixture), a lock file approved with the guide's own command, recordings
 * made by `tapedeck record`, five agent runs and the guide's policy file. `npx tapedeck` finds the built CLI in the
 * project's `node_modules/.bin`, as it would after `npm ci` with mcp-tapedeck as a devDependency.
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  connectClient,
  makeTempDir,
  NODE_MODULES,
  REPO_ROOT,
  recorded,
  removeTempDir,
  runProcess,
} from '../helpers/peers.js';

const PACKAGE_BIN = join(
  REPO_ROOT,
  (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: { tapedeck: string } }).bin
    .tapedeck,
);
const GUIDE = readFileSync(join(REPO_ROOT, 'docs', 'gates.md'), 'utf8');

/** The fenced block of `lang` that follows `heading` in the guide. */
function block(heading: string, lang: string): string {
  const from = GUIDE.indexOf(heading);
  if (from < 0) throw new Error(`docs/gates.md has no "${heading}"`);
  const open = GUIDE.indexOf(`\`\`\`${lang}\n`, from);
  const body = open + lang.length + 4;
  return GUIDE.slice(body, GUIDE.indexOf('```', body));
}

interface Step {
  uses?: string;
  run?: string;
}
const workflow = parse(block('## A GitHub Actions workflow', 'yaml')) as {
  jobs: Record<string, { steps: Step[] }>;
};
const steps = Object.values(workflow.jobs)[0]!.steps;
const INSTALL = 'npm ci && npm run build';
const gates = steps.filter((step) => step.run !== undefined && step.run !== INSTALL).map((s) => s.run!);

/** What the scripted agent calls in each of its five runs: four keep the policy, one calls delete_item. */
const RUNS: [string, Record<string, string>][][] = [
  [
    ['search', { query: 'tapes' }],
    ['echo', { message: 'done' }],
  ],
  [
    ['search', { query: 'tapes' }],
    ['echo', { message: 'one' }],
    ['echo', { message: 'two' }],
  ],
  [
    ['echo', { message: 'first' }],
    ['search', { query: 'tapes' }],
  ],
  [
    ['search', { query: 'tapes' }],
    ['delete_item', { id: 'tape-7' }],
  ],
  [
    ['search', { query: 'tapes and more' }],
    ['search', { query: 'tapes' }],
  ],
];

let project: string;
const bash = (script: string) => runProcess('bash', ['-e', '-c', script], { cwd: project });
const server = () => ({ command: process.execPath, args: [join(project, 'dist', 'server.js')] });

beforeAll(async () => {
  project = await makeTempDir('tapedeck-workflow-');
  // The project: its server's source and a build script; the packages it would install.
  mkdirSync(join(project, 'src'));
  copyFileSync(
    join(REPO_ROOT, 'test', 'fixtures', 'servers', 'drift-server.mjs'),
    join(project, 'src', 'server.mjs'),
  );
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'gated-server',
      private: true,
      type: 'module',
      devDependencies: { 'mcp-tapedeck': `file:${REPO_ROOT}` },
      scripts: {
        build:
          "node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').copyFileSync('src/server.mjs','dist/server.js')\"",
      },
    }),
  );
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '@modelcontextprotocol'));
  symlinkSync(
    join(NODE_MODULES, '@modelcontextprotocol', 'sdk'),
    join(project, 'node_modules', '@modelcontextprotocol', 'sdk'),
  );
  symlinkSync(join(NODE_MODULES, 'zod'), join(project, 'node_modules', 'zod'));
  // The package as `npm ci` leaves it for a devDependency: in node_modules under its name (here a link to this
  // checkout, built), and its `bin` in .bin (a link npm makes executable; here a shim to the same file).
  symlinkSync(REPO_ROOT, join(project, 'node_modules', 'mcp-tapedeck'));
  writeFileSync(
    join(project, 'node_modules', '.bin', 'tapedeck'),
    `#!/bin/sh\nexec "${process.execPath}" "${PACKAGE_BIN}" "$@"\n`,
    { mode: 0o755 },
  );
  expect((await bash('npm run build --silent')).code).toBe(0);
  // Record once: approve the lock file with the guide's command, record a session and five agent runs.
  const approve = block('`--write-lock FILE` writes', '')
    .split('\n')[0]!
    .replace(/^\$ /, '')
    .replace(/\s+#.*$/, '');
  const approved = await bash(`npx -p mcp-tapedeck ${approve}`);
  expect([approved.code, approved.stderr]).toEqual([0, 'tapedeck: wrote tools.lock.json\n']);
  mkdirSync(join(project, 'recordings'));
  mkdirSync(join(project, 'runs'));
  const session = await connectClient(
    recorded(server(), { file: join(project, 'recordings', 'server.jsonl') }),
    {},
  );
  await session.client.listTools();
  await session.client.callTool({ name: 'search', arguments: { query: 'tapes' } });
  await session.client.close();
  for (const [i, calls] of RUNS.entries()) {
    const run = await connectClient(
      recorded(server(), { file: join(project, 'runs', `run-${i + 1}.jsonl`) }),
      {},
    );
    for (const [name, args] of calls) await run.client.callTool({ name, arguments: args });
    await run.client.close();
  }
  writeFileSync(join(project, 'agent-policy.yaml'), block('holds the same, and argument matchers', 'yaml'));
}, 120_000);
afterAll(() => removeTempDir(project));

describe("the CI guide's workflow, run as written", () => {
  it('has the install step, then drift, lint and check', () => {
    expect(steps.some((step) => step.run === INSTALL)).toBe(true);
    expect(gates.map((run) => run.split(' ').slice(0, 5).join(' '))).toEqual([
      'npx -p mcp-tapedeck tapedeck drift',
      'npx -p mcp-tapedeck tapedeck lint',
      'npx -p mcp-tapedeck tapedeck check',
    ]);
  });

  it('passes every gate on the build that was approved, writing the reports it names', async () => {
    for (const run of gates) {
      const result = await bash(run);
      expect([run, result.code, result.stderr]).toEqual([run, 0, '']);
    }
    const sarif = JSON.parse(readFileSync(join(project, 'drift.sarif'), 'utf8'));
    expect(sarif.runs[0].results).toEqual([]);
    expect(readFileSync(join(project, 'lint.xml'), 'utf8')).toContain('<testsuites');
  });

  it('fails the drift gate on a build with a breaking change, with a GitHub annotation', async () => {
    writeFileSync(
      join(project, 'dist', 'server.js'),
      readFileSync(join(project, 'src', 'server.mjs'), 'utf8').replace(
        "const b = at !== -1 && process.argv[at + 1] === 'b';",
        'const b = true;',
      ),
    );
    const result = await bash(gates[0]!);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^::error .*search/m);
  });
});
