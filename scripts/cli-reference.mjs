// The command-line reference: every command the program defines, with its usage, arguments, options (descriptions
// and defaults) and the examples and notes its help prints, read from the commander program that `tapedeck` runs.
// `npm run docs` writes it to docs/reference/cli.md; test/docs/cli-reference.test.ts fails when the committed file
// and the command definitions disagree. Nothing is parsed or run: each command's module is only registered on a
// program (src/cli/main.ts's buildProgram), so a command added to the program shows up here with no change.
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CLI_REFERENCE_PATH = 'docs/reference/cli.md';

/** Output that goes nowhere: registering a command writes nothing, and the reference never runs one. */
function quietIo() {
  const sink = () =>
    Object.assign(
      new Writable({
        write: (_chunk, _encoding, done) => done(),
      }),
      { isTTY: false },
    );
  return { stdout: sink(), stderr: sink(), stdin: process.stdin, env: {}, cwd: '/' };
}

/** Markdown for prose from the help: characters Markdown would read as markup are escaped, code spans kept. */
function prose(text) {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part.replace(/\|/g, '\\|') : part.replace(/([\\*_|[\]<>])/g, '\\$1')))
    .join('');
}

/** A value as inline code, for a table cell. */
function code(text) {
  const ticks = text.includes('`') ? '``' : '`';
  return `${ticks}${text.replace(/\|/g, '\\|')}${ticks}`;
}

/** The heading a command's section gets, and the GitHub anchor of that heading. */
function heading(path) {
  const title = path.join(' ');
  return {
    title,
    anchor: title
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-'),
  };
}

/** The default an option shows in help, as commander words it: a description given, or the value as JSON. */
function defaultOf(option) {
  if (option.defaultValueDescription !== undefined) return option.defaultValueDescription;
  if (option.defaultValue === undefined || option.negate) return undefined;
  return JSON.stringify(option.defaultValue);
}

/** The text a command's help prints around commander's own: its examples and notes (`addHelpText`). */
function helpText(command, position) {
  let text = '';
  command.emit(`${position}Help`, { error: false, command, write: (chunk) => (text += chunk) });
  return text.replace(/^\n+|\s+$/g, '');
}

/** One command's section, then its subcommands' (`share list`, `share revoke`). */
function section(command, path, level) {
  const help = command.createHelp();
  const { title } = heading(path);
  const usage = help.commandUsage(command);
  // A usage of several forms (record's) is a block; one form reads better inline.
  const out = [
    `${'#'.repeat(level)} ${title}`,
    '',
    ...(usage.includes('\n') ? ['```text', usage, '```'] : [code(usage)]),
    '',
  ];
  const description = command.description();
  if (description) out.push(prose(description), '');
  const before = helpText(command, 'before');
  if (before) out.push('```text', before, '```', '');
  const args = command.registeredArguments;
  if (args.length > 0) {
    out.push('| argument | description |', '| --- | --- |');
    for (const arg of args) {
      const name = `${arg.required ? '<' : '['}${arg.name()}${arg.variadic ? '...' : ''}${arg.required ? '>' : ']'}`;
      const extra = [
        arg.argChoices ? `one of ${arg.argChoices.map(code).join(', ')}` : '',
        arg.defaultValue !== undefined ? `default ${code(JSON.stringify(arg.defaultValue))}` : '',
      ].filter(Boolean);
      out.push(`| ${code(name)} | ${[prose(arg.description), ...extra].filter(Boolean).join('; ')} |`);
    }
    out.push('');
  }
  const helpFlag = command._getHelpOption?.();
  const options = help.visibleOptions(command).filter((option) => option !== helpFlag);
  if (options.length > 0) {
    out.push('| option | description | default |', '| --- | --- | --- |');
    for (const option of options) {
      const notes = [
        option.argChoices ? `one of ${option.argChoices.map(code).join(', ')}` : '',
        option.envVar ? `env ${code(option.envVar)}` : '',
        option.mandatory ? 'required' : '',
      ].filter(Boolean);
      const fallback = defaultOf(option);
      out.push(
        `| ${code(option.flags)} | ${[prose(option.description), ...notes].filter(Boolean).join('; ')} | ${fallback === undefined ? '' : code(fallback)} |`,
      );
    }
    out.push('');
  }
  const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
  if (subcommands.length > 0) {
    out.push('| command | what it does |', '| --- | --- |');
    for (const sub of subcommands) {
      const { title: subTitle, anchor } = heading([...path, sub.name()]);
      out.push(`| [${code(subTitle)}](#${anchor}) | ${prose(sub.description())} |`);
    }
    out.push('');
  }
  const after = helpText(command, 'after');
  if (after) out.push('```text', after, '```', '');
  for (const sub of subcommands) out.push(...section(sub, [...path, sub.name()], level + 1));
  return out;
}

/**
 * The reference as committed, built from `buildProgram` (src/cli/main.ts): the program's own help and options, then
 * one section per command, each registered alone as `tapedeck <command>` would register it, never run.
 *
 * @example
 * const { buildProgram } = await import('../src/cli/main.ts');
 * writeFileSync(CLI_REFERENCE_PATH, await renderCliReference(buildProgram));
 */
export async function renderCliReference(buildProgram) {
  // Some help words a default as this machine has it (`tapedeck mcp --data-dir`: under TAPEDECK_HOME, else the home
  // folder). The reference shows what a user with none of tapedeck's variables set reads, home folder written `~`.
  const saved = Object.entries(process.env).filter(([name]) => name.startsWith('TAPEDECK_'));
  for (const [name] of saved) delete process.env[name];
  let listing;
  const commands = [];
  try {
    ({ program: listing } = await buildProgram([], quietIo()));
    for (const name of listing.commands.map((command) => command.name())) {
      const { program } = await buildProgram([name], quietIo());
      const command = program.commands.find((candidate) => candidate.name() === name);
      if (command === undefined) throw new Error(`the program lists ${name} but registers no such command`);
      commands.push(command);
    }
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
  const out = [
    '# Command-line reference',
    '',
    '<!-- Generated by `npm run docs` (scripts/cli-reference.mjs) from the command definitions in src/cli. Do not',
    '     edit: test/docs/cli-reference.test.ts fails when this file and the commands disagree. -->',
    '',
    'Every command, its arguments and options, as `tapedeck <command> --help` prints them. Every command also takes',
    '`-h, --help`. The [guides](../README.md) say what each command is for, with real output.',
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...commands.map((command) => {
      const { title, anchor } = heading([command.name()]);
      return `| [${code(title)}](#${anchor}) | ${prose(command.description())} |`;
    }),
    '',
  ];
  const root = listing.createHelp();
  const global = root.visibleOptions(listing).filter((option) => option !== listing._getHelpOption?.());
  out.push('## tapedeck', '', code(root.commandUsage(listing)), '', prose(listing.description()), '');
  out.push('| option | description |', '| --- | --- |');
  for (const option of global) out.push(`| ${code(option.flags)} | ${prose(option.description)} |`);
  out.push('');
  const after = helpText(listing, 'after');
  if (after) out.push('```text', after, '```', '');
  for (const command of commands) out.push(...section(command, [command.name()], 2));
  const home = new RegExp(`${homedir().replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(?=[\\\\/]|$)`, 'gm');
  return `${out.join('\n').replace(home, '~').replace(/\n+$/, '')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  // The sources, loaded through Vite's module runner (TypeScript, `./x.js` imports of `./x.ts`): no build needed.
  // The runner stays open while the reference is built: each command's module is loaded on demand.
  const { createServer, createServerModuleRunner } = await import('vite');
  const server = await createServer({
    root,
    configFile: false,
    logLevel: 'error',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, watch: null },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  let reference;
  try {
    const { buildProgram } = await runner.import(join(root, 'src/cli/main.ts'));
    reference = await renderCliReference(buildProgram);
  } finally {
    await runner.close();
    await server.close();
  }
  writeFileSync(join(root, CLI_REFERENCE_PATH), reference);
  const commands = reference.match(/^#{2,} (?!tapedeck$).*$/gm) ?? [];
  console.log(`wrote ${CLI_REFERENCE_PATH}: ${commands.length} commands`);
}
