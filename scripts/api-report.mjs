// The public API report: for every entry point in package.json's `exports`, each name it exports at run time and
// each type, read from the sources by the TypeScript compiler. `npm run api` writes it to api/mcp-tapedeck.api.md;
// test/api/report.test.ts fails when the committed report and the sources disagree, so a change to what users can
// import is always a reviewed change to that file.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const REPORT_PATH = 'api/mcp-tapedeck.api.md';

/**
 * The package's entry points: the public name and the source file behind its declarations.
 *
 * @example
 * entryPoints('.') // → [{ name: 'mcp-tapedeck', source: 'src/index.ts' }, { name: 'mcp-tapedeck/trace', … }, …]
 */
export function entryPoints(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([key, target]) => ({
      name: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`,
      source: target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'),
    }));
}

/** True when an export reaches its declaration through a type-only link (`export type { X }`). */
function typeOnly(checker, symbol) {
  let current = symbol;
  while (current.flags & ts.SymbolFlags.Alias) {
    for (const declaration of current.declarations ?? []) {
      if (
        ts.isExportSpecifier(declaration) &&
        (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)
      )
        return true;
      if (
        ts.isImportSpecifier(declaration) &&
        (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly)
      )
        return true;
    }
    current = checker.getImmediateAliasedSymbol(current);
    if (!current) break;
  }
  return false;
}

const SIGNATURE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.WriteArrowStyleSignature;

/** One export as a line of the report: its kind, and a function's signatures (they are part of the contract). */
function describe(checker, name, symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbol(target);
    return type
      .getCallSignatures()
      .map(
        (signature) => `function ${name}${checker.signatureToString(signature, undefined, SIGNATURE_FLAGS)}`,
      );
  }
  if (flags & ts.SymbolFlags.Class) return [`class ${name}`];
  if (flags & ts.SymbolFlags.Enum) return [`enum ${name}`];
  if (flags & ts.SymbolFlags.Variable) return [`const ${name}`];
  if (flags & ts.SymbolFlags.Interface) return [`interface ${name}`];
  if (flags & ts.SymbolFlags.TypeAlias) return [`type ${name}`];
  if (flags & ts.SymbolFlags.Module) return [`namespace ${name}`];
  return [`${name}`];
}

const PRIVATE = ts.ModifierFlags.Private;

/** src/ as the compiler spells file names: forward slashes on every platform. */
const sourceDir = (root) => `${join(root, 'src').split(sep).join('/')}/`;

/**
 * The types an export's declaration names (parameters, results, members, heritage, annotations) that are declared in
 * src/ but are not in `exported`: a user would be handed a type they cannot name. Bodies and initializers are
 * implementation and are not looked into; private members neither, nor members whose doc comment says `@internal`
 * (the parts of a handle users only pass around, such as CompiledRules, that tapedeck's own modules read).
 */
function unexportedReferences(checker, root, declaration, exported) {
  const found = new Set();
  const resolve = (symbol) =>
    symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const visit = (node) => {
    if (ts.isBlock(node)) return;
    if (
      (ts.isClassElement(node) || ts.isTypeElement(node)) &&
      ((ts.getCombinedModifierFlags(node) & PRIVATE) !== 0 ||
        (node.name && ts.isPrivateIdentifier(node.name)) ||
        ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal'))
    )
      return;
    if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isParameter(node)) {
      if (node.type) visit(node.type);
      return;
    }
    let reference;
    if (ts.isTypeReferenceNode(node)) reference = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) reference = node.expression;
    else if (ts.isTypeQueryNode(node)) reference = node.exprName;
    if (reference) {
      const symbol = resolve(checker.getSymbolAtLocation(reference));
      const declared = symbol?.declarations?.[0]?.getSourceFile().fileName ?? '';
      if (
        symbol &&
        !(symbol.flags & ts.SymbolFlags.TypeParameter) &&
        declared.startsWith(sourceDir(root)) &&
        !exported.has(symbol)
      )
        found.add(symbol.getName());
    }
    ts.forEachChild(node, visit);
  };
  visit(declaration);
  return found;
}

/**
 * Every entry point's exports, split into what exists at run time and what is a type only.
 *
 * @example
 * const [main] = apiSurface('.');
 * main.runtime.map((item) => item.name); // → ['TapedeckError', 'alignTraces', …]
 */
export function apiSurface(root) {
  const entries = entryPoints(root);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram({
    rootNames: entries.map((entry) => join(root, entry.source)),
    options: { ...config.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const resolve = (symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exportsOf = (entry) => {
    const file = program.getSourceFile(join(root, entry.source));
    if (!file) throw new Error(`${entry.name}: ${entry.source} is not a source file`);
    const moduleSymbol = checker.getSymbolAtLocation(file);
    return moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  };
  // A type one entry point's exports name is fine when any entry point exports it: users can import it.
  const exported = new Set(entries.flatMap((entry) => exportsOf(entry).map(resolve)));
  return entries.map((entry) => {
    const runtime = [];
    const types = [];
    const symbols = exportsOf(entry);
    const unexported = new Map();
    for (const symbol of symbols) {
      for (const declaration of resolve(symbol).declarations ?? []) {
        if (!declaration.getSourceFile().fileName.startsWith(sourceDir(root))) continue;
        for (const name of unexportedReferences(checker, root, declaration, exported))
          unexported.set(name, [...(unexported.get(name) ?? []), symbol.getName()]);
      }
    }
    for (const symbol of symbols) {
      const name = symbol.getName();
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const isValue = (target.flags & ts.SymbolFlags.Value) !== 0 && !typeOnly(checker, symbol);
      (isValue ? runtime : types).push({ name, lines: describe(checker, name, symbol) });
    }
    const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const missing = [...unexported]
      .map(([name, users]) => ({
        name,
        lines: [`${name} (named by ${[...new Set(users)].sort().join(', ')})`],
      }))
      .sort(byName);
    return { ...entry, runtime: runtime.sort(byName), types: types.sort(byName), unexported: missing };
  });
}

/** The report as committed: one section per entry point, run-time names first, then types. */
export function renderReport(surface) {
  const out = [
    '# The public API of tapedeck',
    '',
    'Generated by `npm run api` from the entry points in package.json; `test/api/report.test.ts` fails when it and',
    'the sources disagree. A change here is a change to what users can import: review it as one.',
    '',
  ];
  for (const entry of surface) {
    out.push(
      `## ${entry.name}`,
      '',
      `${entry.source}: ${entry.runtime.length} run-time names, ${entry.types.length} types`,
      '',
      '### Run-time',
      '',
      ...(entry.runtime.length === 0
        ? ['(none)']
        : entry.runtime.flatMap((item) => item.lines.map((l) => `- ${l}`))),
      '',
      '### Types',
      '',
      ...(entry.types.length === 0
        ? ['(none)']
        : entry.types.flatMap((item) => item.lines.map((l) => `- ${l}`))),
      '',
    );
    if (entry.unexported.length > 0)
      out.push(
        '### Named by the exports above, exported by no entry point',
        '',
        ...entry.unexported.flatMap((item) => item.lines.map((l) => `- ${l}`)),
        '',
      );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const report = renderReport(apiSurface(root));
  writeFileSync(join(root, REPORT_PATH), report);
  const surface = report.match(/^## .*$/gm) ?? [];
  console.log(`wrote ${REPORT_PATH}: ${surface.length} entry points`);
}
