/**
 * The package is published as package.json's `name`, and the command it installs has another name (`tapedeck`),
 * which on npm belongs to an unrelated package: an install line, an `npx` line or an import that names the command
 * instead of the package would install and run someone else's code. Every such line in the README, the docs, the
 * examples, the workflows and the sources' comments must name the package; every subpath it imports must be one the
 * package exports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/peers.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  exports: Record<string, unknown>;
};
/** The names a line could mean this package by: its own, and its commands'. */
const OURS = new Set([pkg.name, ...Object.keys(pkg.bin)]);
const SUBPATHS = new Set(Object.keys(pkg.exports).map((key) => key.slice(2)));

/** Where people read install lines and imports: documentation, examples, CI files, and comments in the code. */
const ROOTS = [
  'README.md',
  'ARCHITECTURE.md',
  'CHANGELOG.md',
  'docs',
  'examples',
  '.github',
  '.ci',
  'src',
  'viewer',
];
const TEXT = /\.(md|ts|tsx|mts|mjs|js|yml|yaml|json)$|^run$/;

function files(path: string): string[] {
  if (statSync(path).isDirectory())
    return readdirSync(path)
      .filter((name) => name !== 'node_modules')
      .flatMap((name) => files(join(path, name)));
  return TEXT.test(path.split(/[\\/]/).pop()!) ? [path] : [];
}

/** A package spec without its version: `mcp-tapedeck@0.1.0/x` is `mcp-tapedeck`, with subpath `x`. */
function split(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const scoped = spec.startsWith('@');
  const name = (scoped ? parts.slice(0, 2).join('/') : parts[0]!).replace(/(.)@.*$/, '$1');
  return { name, subpath: parts.slice(scoped ? 2 : 1).join('/') };
}

/** The package specs a text installs, runs with npx, or imports, as written, each with the line it is on. */
function packageSpecs(text: string): { spec: string; line: number }[] {
  const specs: { spec: string; line: number }[] = [];
  let at = 0;
  const push = (spec: string) => specs.push({ spec, line: text.slice(0, at).split('\n').length });
  const words = (command: string) => command.split(/\s+/).filter((word) => word !== '');
  // npm i / install / add, with options, then one or more packages; up to the end of the command.
  for (const match of text.matchAll(/\bnpm (?:i|install|add)\b([^\n`;&|#)]*)/g)) {
    at = match.index;
    for (const word of words(match[1]!)) if (!word.startsWith('-') && !/[=$"'<>]/.test(word)) push(word);
  }
  // npx, with options, then the package to run; after -p/--package, which name the package, a command of it.
  const npx = (args: string[]) => {
    let packaged = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      const named = arg === '-p' || arg === '--package' ? args[++i] : arg.match(/^--package=(.*)$/)?.[1];
      if (named !== undefined) {
        push(named);
        packaged = true;
      } else if (!arg.startsWith('-')) {
        if (!packaged) push(arg);
        return;
      }
    }
  };
  for (const match of text.matchAll(/\bnpx\b((?: +[^\s`;&|#)]+)+)/g)) {
    at = match.index;
    npx(words(match[1]!));
  }
  // An MCP client config that starts npx: "command": "npx", "args": ["-y", "…", …].
  for (const match of text.matchAll(/"command":\s*"npx"\s*,\s*"args":\s*\[([^\]]*)\]/g)) {
    at = match.index;
    npx([...match[1]!.matchAll(/"([^"]*)"/g)].map((arg) => arg[1]!));
  }
  // import … from 'x', import('x'), require('x'), import 'x'.
  for (const match of text.matchAll(/\b(?:from|import|require)\s*\(?\s*['"]([^'"\s]+)['"]/g)) {
    at = match.index;
    push(match[1]!);
  }
  // An entry point named in prose: `<name>/<subpath>`.
  for (const match of text.matchAll(/`([\w@.-]+\/[\w/.-]+)`/g)) {
    at = match.index;
    if (OURS.has(match[1]!.split('/')[0]!)) push(match[1]!);
  }
  return specs;
}

/** What is wrong with each spec that means this package: not its name, or a subpath it does not export. */
function mistakes(text: string): string[] {
  return packageSpecs(text).flatMap(({ spec, line }) => {
    const { name, subpath } = split(spec);
    if (!OURS.has(name)) return [];
    if (name !== pkg.name) return [`line ${line}: ${spec}: the package is ${pkg.name}`];
    if (subpath !== '' && !SUBPATHS.has(subpath))
      return [`line ${line}: ${spec}: ${pkg.name} exports no ./${subpath}`];
    return [];
  });
}

describe('install, npx and import lines', () => {
  it('are found and judged: the command name, an unknown subpath and a misspelt package fail', () => {
    const bin = Object.keys(pkg.bin)[0]!;
    expect(bin).not.toBe(pkg.name);
    expect(mistakes(`npm i -g ${bin}`)).toEqual([`line 1: ${bin}: the package is ${pkg.name}`]);
    expect(mistakes(`npx -y ${bin}@latest record -- x`)).toHaveLength(1);
    expect(mistakes(`{ "command": "npx", "args": ["-y", "${bin}", "record"] }`)).toHaveLength(1);
    expect(mistakes(`import { x } from '${bin}/trace';`)).toHaveLength(1);
    expect(mistakes(`\`${bin}/replay\``)).toHaveLength(1);
    expect(mistakes(`\n\nimport { x } from '${pkg.name}/nowhere';`)).toEqual([
      `line 3: ${pkg.name}/nowhere: ${pkg.name} exports no ./nowhere`,
    ]);
    expect(
      mistakes(
        `npm i -g ${pkg.name}\nnpx ${pkg.name} record\nnpx -p ${pkg.name} ${bin} replay\n` +
          `npm install -g better-sqlite3@12\nnpx -y @modelcontextprotocol/server-everything\n` +
          `import { x } from '${pkg.name}/trace';\n${bin} record -- npx -y server\n`,
      ),
    ).toEqual([]);
  });

  it('name the package in the README, the docs, the examples, the CI files and the comments of the code', () => {
    const found = ROOTS.map((root) => join(REPO_ROOT, root))
      .flatMap((path) => {
        try {
          return files(path);
        } catch {
          return []; // a folder the repository does not have (yet)
        }
      })
      .flatMap((file) =>
        mistakes(readFileSync(file, 'utf8')).map((why) => `${relative(REPO_ROOT, file)}: ${why}`),
      );
    expect(found).toEqual([]);
  });

  it('install and run the package in the README by its name', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npm i -g ${pkg.name}`);
    expect(readme).toContain(`npx ${pkg.name} record`);
    expect(readme).toContain(`npx -y ${pkg.name} record`);
  });
});
