/**
 * The package as npm ships it: `npm pack` (of the built tree; `npm test` builds first), unpacked into a fresh
 * project the way an install lays it out, with its dependencies beside it — but not the optional SQLite driver and
 * no dev packages. The tarball holds what a user needs and nothing that points nowhere; a strict TypeScript project
 * compiles against every entry point with only @types/node; the command line works, and the collector says in one
 * line what it is missing. (.ci/run does the real thing: a global install of the tarball with install scripts off.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  bin: Record<string, string>;
};
const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-package-'));
const project = join(tmp, 'project');
const installed = join(project, 'node_modules', pkg.name);
let files: string[] = [];

/** Every entry point by the name users import it by: the package's name, and its name with each subpath. */
function publicNames(): string[] {
  return Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
}

beforeAll(() => {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as { filename: string; files: { path: string }[] }[];
  files = packed!.files.map((file) => file.path);
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', join(tmp, packed!.filename), '-C', installed, '--strip-components=1']);
  // The dependencies an install would put beside it (from this checkout's node_modules), and @types/node.
  for (const name of [...Object.keys(pkg.dependencies), '@types/node']) {
    const target = join(project, 'node_modules', name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), target, 'dir');
  }
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the published package', () => {
  it('holds the build, the sources its maps name, README, LICENSE — and no tests, benches or scripts', () => {
    expect(files).toContain('LICENSE');
    expect(files).toContain('README.md');
    expect(files).toContain('dist/viewer/index.html');
    expect(files).toContain(pkg.bin.tapedeck!.replace(/^\.\//, ''));
    for (const target of Object.values(pkg.exports)) {
      for (const path of typeof target === 'string' ? [target] : [target.types, target.default])
        expect(files).toContain(path.replace(/^\.\//, ''));
    }
    expect(files.filter((file) => !/^(dist|src)\/|^(LICENSE|README\.md|package\.json)$/.test(file))).toEqual(
      [],
    );
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) \d{4} the tapedeck authors\n/,
    );
  });

  it('names in its source maps only files it ships', () => {
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(50);
    const shipped = new Set(files);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot } = JSON.parse(readFileSync(join(installed, map), 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of sources) {
        const path = normalize(join(dirname(map), sourceRoot ?? '', source));
        if (!shipped.has(path)) missing.push(`${map} → ${source}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('type-checks in a strict project with only @types/node, every entry point imported', () => {
    const names = publicNames();
    const source = [
      ...names.map((name, i) => `import * as entry${i} from '${name}';`),
      "import { TapedeckError, openTrace as open, useCassette as use, verifyCassette as verify, instrument as inst } from 'mcp-tapedeck';",
      "import { openTrace } from 'mcp-tapedeck/trace/io';",
      "import { alignTraces, type TraceLine } from 'mcp-tapedeck/trace';",
      "import { replayTransport, recordTransport, useCassette, serveHttp } from 'mcp-tapedeck/replay';",
      "import { instrument, createRecorder, httpMiddleware } from 'mcp-tapedeck/instrument';",
      "import { startCollector } from 'mcp-tapedeck/collector';",
      "import { verifyCassette, serveUpdate, appendToCassette } from 'mcp-tapedeck/live';",
      "import { createRedactor } from 'mcp-tapedeck/redact';",
      "import { FileSink } from 'mcp-tapedeck/sink';",
      "import { runStdioProxy } from 'mcp-tapedeck/proxy';",
      "import { PipeCapture } from 'mcp-tapedeck/capture';",
      "import { serveMcpHttp } from 'mcp-tapedeck/mcp';",
      "import { runInstall } from 'mcp-tapedeck/install';",
      "const line: TraceLine = { t: '2026-01-01T00:00:00.000Z', dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } };",
      `export const used = [${names.map((_, i) => `entry${i}`).join(', ')}, line, TapedeckError, open, use, verify, inst, openTrace, alignTraces, replayTransport, recordTransport, useCassette, serveHttp, instrument, createRecorder, httpMiddleware, startCollector, verifyCassette, serveUpdate, appendToCassette, createRedactor, FileSink, runStdioProxy, PipeCapture, serveMcpHttp, runInstall];`,
      '',
    ].join('\n');
    writeFileSync(join(project, 'index.ts'), source);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          types: ['node'],
          noEmit: true,
        },
        files: ['index.ts'],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      {
        encoding: 'utf8',
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('runs without its optional SQLite driver: every command but the collector, which says what is missing', () => {
    expect(existsSync(join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
    const bin = join(installed, pkg.bin.tapedeck!);
    const tapedeck = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd: project,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, TAPEDECK_HOME: join(tmp, 'home'), TAPEDECK_DIR: join(tmp, 'traces') },
      });
    const trace = join(root, 'test', 'fixtures', 'interop', 'mcp-tape', 'everything-stdio.jsonl');
    expect(tapedeck('--version').stdout.trim()).toBe(
      JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version,
    );
    expect(tapedeck('stats', trace, '--json').status).toBe(0);
    const library = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const c = await import('mcp-tapedeck/collector'); console.log(typeof c.startCollector)",
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(library.stdout.trim()).toBe('function');
    if (builtInSqlite()) {
      // Node.js 22.13 and later has SQLite built in: the collector starts on it (stopped here after a few seconds),
      // with no experimental-feature warning.
      const serve = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--db', join(tmp, 'c.db')], {
        cwd: project,
        encoding: 'utf8',
        timeout: 5_000,
        env: { ...process.env, TAPEDECK_HOME: join(tmp, 'home'), TAPEDECK_DIR: join(tmp, 'traces') },
      });
      expect(serve.stderr).toMatch(/^tapedeck collector on http:\/\/127\.0\.0\.1:\d+ /);
      expect(serve.stderr).not.toMatch(/warning/i);
      return;
    }
    const serve = tapedeck('serve', '--port', '0', '--db', join(tmp, 'c.db'));
    expect(serve.status).toBe(1);
    expect(serve.stderr).toMatch(
      /^tapedeck: the collector needs better-sqlite3 \(SQLite\), an optional dependency that is not installed .*\n$/,
    );
    expect(serve.stderr.split('\n')).toHaveLength(2);
  }, 60_000);
});

describe('the built checkout', () => {
  it('resolves every subpath export of the built package by its public name', () => {
    const names = publicNames();
    expect(names).toContain('mcp-tapedeck/trace');
    const script = `for (const name of ${JSON.stringify(names)}) { const m = await import(name); if (Object.keys(m).length === 0) throw new Error(name + ' exports nothing'); }`;
    // Node resolves a package's own name through its exports map (self-reference), exactly as a user's import would.
    expect(() =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root }),
    ).not.toThrow();
  });
});

/** True where this Node.js has a complete built-in SQLite (statement iterate arrived in 22.13). */
function builtInSqlite(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 13);
}
