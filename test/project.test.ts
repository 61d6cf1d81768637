import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME, VERSION } from '../src/base/version.js';

const root = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const NODE_IMPORT = /from ['"]node:|require\(['"]node:|from ['"](fs|path|os|crypto|stream)['"]/;

/**
 * The layers of src/, lowest first. A module may import its own layer, the other folders of its rank and anything
 * ranked below; never a folder ranked above (folders of one rank may import each other; the cycle check keeps that
 * from going round in a circle). base/ holds the plumbing every layer may use; the package's main entry (index.ts,
 * the one top-level file) names everything, so it sits on top. A new folder must be given a rank here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['base'],
  ['trace'],
  ['redact'],
  // process/ starts servers for the recorders, live peers, useCassette and install above it, and frames a server's
  // stdout with capture's line framer: the stdio counterpart of upstream/, ranked with it.
  // faults/ decides which answers to spoil and how; the recorders and replay above carry it out.
  ['capture', 'sink', 'upstream', 'process', 'faults'],
  // llm/ records and replays what an agent says to its model: a proxy and a replayer of its own kind.
  ['proxy', 'replay', 'live', 'instrument', 'llm'],
  // report/ renders what commands found: the terminal text (text/) and, through one model that verify, diff,
  // replay and scan map what they found into (src/live, src/replay, src/trace, src/redact), the CI formats (ci/).
  // Only the CLI uses it.
  ['collector', 'mcp', 'install', 'report'],
  // view/ serves the built viewer (collector/viewer-files.ts finds it) and pages a big trace for `tapedeck view`.
  ['view'],
  ['cli'],
  ['index.ts'],
];

/** A module's layer: its top-level folder under src/, or the file's own name for a top-level file (index.ts). */
const layerOf = (file: string) => file.split('/')[1]!;
const rankOf = (layer: string) => {
  const rank = LAYERS.findIndex((names) => names.includes(layer));
  return rank < 0 ? undefined : rank;
};

interface Edge {
  from: string;
  to: string;
}

/**
 * Every import between modules of src/, as repository paths: static and dynamic imports, re-exports and type-only
 * imports alike (a type that points up a layer ties the layers together as firmly as a value does).
 */
function moduleGraph(): { files: string[]; edges: Edge[] } {
  const files = sourceFiles(join(root, 'src')).map((file) => relative(root, file).split(sep).join('/'));
  const edges: Edge[] = [];
  for (const from of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = posix.join(posix.dirname(from), fileName).replace(/\.js$/, '.ts');
      expect(files, `${from} imports ${fileName}, which is no source file`).toContain(to);
      edges.push({ from, to });
    }
  }
  return { files, edges };
}

/** The import cycles of a graph, one per strongly connected component, each as a path back to its start. */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const found: string[][] = [];
  const done = new Set<string>();
  for (const start of [...next.keys()].sort()) {
    if (done.has(start)) continue;
    // Depth-first from `start`; a module already on the path closes a cycle.
    const path: string[] = [];
    const onPath = new Set<string>();
    const visit = (node: string) => {
      if (onPath.has(node)) {
        found.push([...path.slice(path.indexOf(node)), node]);
        return;
      }
      if (done.has(node)) return;
      path.push(node);
      onPath.add(node);
      for (const to of next.get(node) ?? []) visit(to);
      path.pop();
      onPath.delete(node);
      done.add(node);
    };
    visit(start);
  }
  return found;
}

/** The longest a function's body may be, in lines: past this a closure becomes an object with named methods. */
const MAX_FUNCTION_LINES = 120;

/** Every function of a source file whose body spans more than `max` lines, as `path:line name (N lines)`. */
function longFunctions(file: string, max: number): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const body = node.body as ts.Node;
      const first = lineOf(body.getStart(source));
      const lines = lineOf(body.getEnd()) - first + 1;
      if (lines > max) found.push(`${file}:${first} ${functionName(node, source)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function's own name, or the name of what it is assigned to. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source);
  const { parent } = node;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return '(anonymous)';
}

describe('the project', () => {
  it('keeps src/trace pure so the web viewer can import it: only io.ts touches node: modules', () => {
    const files = sourceFiles(join(root, 'src', 'trace'));
    expect(files.length).toBeGreaterThan(3);
    const offenders = files
      .filter((file) => !file.endsWith(join('trace', 'io.ts')))
      .filter((file) => NODE_IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('writes the package version into traces, and knows the name it is published under', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    expect(PACKAGE_NAME).toBe(pkg.name);
  });

  it('imports only down the layers: no module imports a folder ranked above its own', () => {
    const { edges, files } = moduleGraph();
    const unranked = [...new Set(files.map(layerOf))].filter((layer) => rankOf(layer) === undefined);
    expect(unranked, 'every top-level file and folder of src/ needs a rank in LAYERS').toEqual([]);
    const upward = edges
      .filter(({ from, to }) => rankOf(layerOf(to))! > rankOf(layerOf(from))!)
      .map(({ from, to }) => `${from} → ${to} (${layerOf(from)} is below ${layerOf(to)})`);
    expect(upward).toEqual([]);
  });

  it('has no import cycles, type-only imports included', () => {
    const { edges } = moduleGraph();
    expect(cycles(edges).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no cycle between the top-level folders of src/', () => {
    const { edges } = moduleGraph();
    const between = edges
      .map(({ from, to }) => ({ from: layerOf(from), to: layerOf(to) }))
      .filter(({ from, to }) => from !== to);
    const unique = [...new Map(between.map((edge) => [`${edge.from} ${edge.to}`, edge])).values()];
    expect(cycles(unique).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it(`keeps every function short: no body over ${MAX_FUNCTION_LINES} lines (a longer closure becomes an object)`, () => {
    const files = sourceFiles(join(root, 'src')).map((file) => relative(root, file).split(sep).join('/'));
    expect(files.flatMap((file) => longFunctions(file, MAX_FUNCTION_LINES))).toEqual([]);
  });

  it('keeps src/replay and src/live free of node: imports, so in-process and browser hosts can use them', () => {
    for (const folder of ['replay', 'live']) {
      const files = sourceFiles(join(root, 'src', folder));
      expect(files.length).toBeGreaterThan(5);
      // Subfolders too (serve/http/ loads node:http lazily, inside the function that serves).
      const offenders = files
        .filter((file) => /from ['"]node:/.test(readFileSync(file, 'utf8')))
        .map((file) => relative(root, file));
      expect(offenders).toEqual([]);
    }
  });

  it('keeps every source file a readable size (split past ~400 lines)', () => {
    const long = sourceFiles(join(root, 'src'))
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 450);
    expect(long).toEqual([]);
  });
});
