/**
 * install → status → install again → uninstall over realistic configs of every client in a temporary home: JSONC
 * with comments and trailing commas, TOML with comments and subtables, Claude Code's per-project servers, remote
 * servers, a server recorded through tapedeck by hand. After uninstall every file is byte for byte the original.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { beforeEach, describe, expect, it } from 'vitest';
import { currentTapedeck } from '../../src/install/command.js';
import { useCliHarness } from '../helpers/cli.js';
import { copyFixture, FIXTURE_FILES, FIXTURES, placeOf } from './fixture-home.js';

const FILES = FIXTURE_FILES;

const io = useCliHarness('tapedeck-install-', { cwd: 'project' });
const read = (file: string) => readFileSync(placeOf(file, io.dir), 'utf8');
const original = (file: string) => readFileSync(join(FIXTURES, file), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: parsed configs are walked freely in the assertions
type Parsed = Record<string, any>;
const json = (file: string) => parseJsonc(read(file)) as Parsed;
const tap = currentTapedeck();

beforeEach(() => {
  copyFixture(io.dir);
  // The commands the configs name, on a PATH of our own: wrapped entries get their absolute paths.
  mkdirSync(join(io.dir, 'bin'));
  for (const name of ['npx', 'uvx', 'docker', 'node']) {
    writeFileSync(join(io.dir, 'bin', name), '#!/bin/sh\n', { mode: 0o755 });
  }
  io.env.HOME = join(io.dir, 'home');
  // Desktop apps on Linux keep their settings in $XDG_CONFIG_HOME; the fixture has them in its default, ~/.config.
  io.env.XDG_CONFIG_HOME = join(io.dir, 'home', '.config');
  io.env.PATH = join(io.dir, 'bin');
});

const bin = (name: string) => join(io.dir, 'bin', name);
const wrappedArgs = (label: string, command: string, args: string[]) => [
  ...tap.prefix,
  'record',
  '--label',
  label,
  '--',
  bin(command),
  ...args,
];

describe('tapedeck install, status and uninstall on every client', () => {
  it('wraps every stdio server, keeping env, cwd, unknown keys, comments and file modes', async () => {
    chmodSync(join(io.dir, 'home/.claude.json'), 0o600);
    expect(await io.run(['install'])).toBe(0);
    const claude = json('home/.claude.json');
    expect(claude.mcpServers.everything).toEqual({
      type: 'stdio',
      command: process.execPath,
      args: wrappedArgs('everything', 'npx', ['-y', '@modelcontextprotocol/server-everything']),
      env: {},
      _tapedeck: {
        version: 1,
        original: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        inserted: 6,
      },
    });
    const postgres = claude.projects['/home/me/work/api'].mcpServers.postgres;
    expect(postgres.args).toEqual(
      wrappedArgs('postgres', 'docker', [
        'run',
        '-i',
        '--rm',
        '-e',
        'DATABASE_URI',
        'crystaldba/postgres-mcp',
      ]),
    );
    expect(postgres.env).toEqual({ DATABASE_URI: 'postgresql://localhost:5432/api' });
    expect(claude.numStartups).toBe(42);
    // Remote servers are listed and left alone.
    expect(claude.mcpServers.linear).toEqual({ type: 'sse', url: 'https://mcp.linear.app/sse' });
    expect(statSync(join(io.dir, 'home/.claude.json')).mode & 0o777).toBe(0o600);

    const cursor = read('home/.cursor/mcp.json');
    expect(cursor).toContain('// the reference server, for trying things out');
    expect(cursor).toContain('// no API key needed');
    const cursorServers = json('home/.cursor/mcp.json').mcpServers;
    expect(cursorServers.fetch.env).toEqual({ FETCH_TIMEOUT: '30' });
    expect(cursorServers.time).toEqual({
      command: 'tapedeck',
      args: ['record', '--out', '/home/me/traces', '--', 'uvx', 'mcp-server-time'],
    });
    expect(json('project/.cursor/mcp.json').mcpServers.docs).toMatchObject({
      command: process.execPath,
      args: wrappedArgs('docs', 'node', []),
      cwd: 'tools/docs-server',
    });
    expect(json('project/.vscode/mcp.json').servers.Perplexity).toMatchObject({
      type: 'stdio',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} of a client config
      env: { PERPLEXITY_API_KEY: '${input:perplexity-key}' },
    });
    expect(json('home/.gemini/settings.json').mcpServers.pythonTools).toMatchObject({
      cwd: './mcp-servers/python',
      timeout: 15000,
      trust: false,
      args: wrappedArgs('pythonTools', 'uvx', ['mcp-server-git']),
    });

    const codex = parseToml(read('home/.codex/config.toml')) as Parsed;
    expect(codex.mcp_servers.fetch).toEqual({
      command: process.execPath,
      args: wrappedArgs('fetch', 'uvx', ['mcp-server-fetch', '--ignore-robots-txt']),
      startup_timeout_sec: 20,
      env: { FETCH_TIMEOUT: '30' },
    });
    expect(codex.mcp_servers['docs server'].args).toEqual(wrappedArgs('docs server', 'node', []));
    expect(codex.mcp_servers.figma).toEqual({
      url: 'https://mcp.figma.com/mcp',
      bearer_token_env_var: 'FIGMA_TOKEN',
    });
    expect(codex.model).toBe('gpt-5-codex');
    expect(read('home/.codex/config.toml')).toContain(
      `command = ${JSON.stringify(process.execPath)}  # literal string on purpose`,
    );

    // Backed up once, as they were.
    for (const file of FILES)
      expect(readFileSync(`${placeOf(file, io.dir)}.tapedeck.bak`, 'utf8')).toBe(original(file));
    expect(io.stdout).toContain('  + everything  wrapped');
    expect(io.stdout).toContain('    time  recorded by tapedeck already (set up by hand), left alone');
    expect(io.stdout).toContain(
      'remote server(s) left alone; --include-remote wraps them through the HTTP bridge',
    );
    expect(io.stdout).toContain('changed 10 file(s)');
  });

  it('is idempotent, refreshes a wrap whose tapedeck moved, and status tells them apart', async () => {
    await io.run(['install']);
    const wrapped = FILES.map(read);
    io.stdout = '';
    expect(await io.run(['install'])).toBe(0);
    expect(FILES.map(read)).toEqual(wrapped);
    expect(io.stdout).toContain('changed 0 file(s)');

    // tapedeck (or node) moved since: the wrap points at the old place.
    const path = join(io.dir, 'home/.cursor/mcp.json');
    writeFileSync(
      path,
      read('home/.cursor/mcp.json').replaceAll(JSON.stringify(process.execPath), '"/opt/old/node"'),
    );
    io.stdout = '';
    await io.run(['status', '--target', 'cursor']);
    expect(io.stdout).toContain(
      '  ! everything  wrapped through another tapedeck path (install refreshes it)',
    );
    io.stdout = '';
    await io.run(['install', '--target', 'cursor']);
    expect(io.stdout).toContain('  ~ everything  wrap refreshed (tapedeck or node moved)');
    expect(read('home/.cursor/mcp.json')).toBe(wrapped[FILES.indexOf('home/.cursor/mcp.json')]);
    io.stdout = '';
    await io.run(['status', '--target', 'cursor,codex']);
    expect(io.stdout).toContain('  = everything  wrapped');
    expect(io.stdout).toContain('    figma  remote, not wrapped: https://mcp.figma.com/mcp');
  });

  it('gives every file back byte for byte on uninstall, and keeps servers added since', async () => {
    await io.run(['install']);
    // A server added while wrapped stays after uninstall.
    const project = join(io.dir, 'project/.mcp.json');
    writeFileSync(
      project,
      read('project/.mcp.json').replace(
        '"mcpServers": {',
        '"mcpServers": {\n    "added": { "command": "uvx", "args": ["x"] },',
      ),
    );
    expect(await io.run(['uninstall'])).toBe(0);
    for (const file of FILES.filter((f) => f !== 'project/.mcp.json'))
      expect(read(file)).toBe(original(file));
    expect(read('project/.mcp.json')).toBe(
      original('project/.mcp.json').replace(
        '"mcpServers": {',
        '"mcpServers": {\n    "added": { "command": "uvx", "args": ["x"] },',
      ),
    );
    expect(io.stdout).toContain('  - everything  restored');
  });

  it('wraps remote servers through the HTTP bridge with --include-remote, and gives them back', async () => {
    expect(await io.run(['install', '--include-remote'])).toBe(0);
    expect(json('home/.claude.json').mcpServers.sentry).toMatchObject({
      type: 'stdio',
      command: process.execPath,
      args: [
        ...tap.prefix,
        'record',
        '--upstream',
        'https://mcp.sentry.dev/mcp',
        '--stdio',
        '--header',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} of a client config
        'Authorization: Bearer ${SENTRY_TOKEN}',
        '--label',
        'sentry',
      ],
    });
    expect(json('home/.gemini/settings.json').mcpServers.sseServer.args).toContain('--sse');
    expect(json('home/.gemini/settings.json').mcpServers.httpServer.args).not.toContain('--sse');
    const codex = parseToml(read('home/.codex/config.toml')) as Parsed;
    expect(codex.mcp_servers.figma.args).toEqual([
      ...tap.prefix,
      'record',
      '--upstream',
      'https://mcp.figma.com/mcp',
      '--stdio',
      '--header',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal ${VAR} of a client config
      'Authorization: Bearer ${FIGMA_TOKEN}',
      '--label',
      'figma',
    ]);
    expect(codex.mcp_servers.figma.url).toBeUndefined();
    await io.run(['uninstall']);
    for (const file of FILES) expect(read(file)).toBe(original(file));
  });

  it('prints a diff and writes nothing with --dry-run', async () => {
    expect(await io.run(['install', '--dry-run', '--target', 'codex,vscode'])).toBe(0);
    for (const file of FILES) expect(read(file)).toBe(original(file));
    expect(existsSync(join(io.dir, 'home/.codex/config.toml.tapedeck.bak'))).toBe(false);
    expect(io.stdout).toContain('--- ~/.codex/config.toml\n+++ ~/.codex/config.toml (tapedeck)\n@@ ');
    expect(io.stdout).toContain('-command = "npx"\n');
    expect(io.stdout).toContain(`+command = ${JSON.stringify(process.execPath)}\n`);
    expect(io.stdout).toContain('would change 2 file(s) (dry run: nothing written)');
  });

  it('keeps the CRLF line ends of files written on Windows', async () => {
    const crlf = [
      'home/.cursor/mcp.json',
      'home/.codex/config.toml',
      'home/.codeium/windsurf/mcp_config.json',
    ];
    for (const file of crlf) writeFileSync(placeOf(file, io.dir), original(file).replace(/\n/g, '\r\n'));
    await io.run(['install', '--include-remote', '--target', 'cursor,codex,windsurf']);
    for (const file of crlf) {
      expect(read(file)).toContain('_tapedeck');
      expect(read(file)).not.toMatch(/[^\r]\n/);
    }
    await io.run(['uninstall', '--target', 'cursor,codex,windsurf']);
    for (const file of crlf) expect(read(file)).toBe(original(file).replace(/\n/g, '\r\n'));
  });

  it('reports a config that does not parse with its line and column, leaves it alone, and goes on', async () => {
    const broken = original('home/.cursor/mcp.json').replace('"fetch": {', '"fetch" {');
    writeFileSync(join(io.dir, 'home/.cursor/mcp.json'), broken);
    writeFileSync(join(io.dir, 'home/.codex/config.toml'), '[mcp_servers.x]\ncommand = "npx\n');
    expect(await io.run(['install'])).toBe(1);
    expect(read('home/.cursor/mcp.json')).toBe(broken);
    expect(read('home/.codex/config.toml')).toBe('[mcp_servers.x]\ncommand = "npx\n');
    expect(io.stdout).toContain('Cursor  ~/.cursor/mcp.json:6:11: ColonExpected; left as it is');
    expect(io.stdout).toMatch(/Codex {2}~\/\.codex\/config\.toml:2:\d+: .+; left as it is/);
    // The other clients were wrapped all the same.
    expect(json('home/.gemini/settings.json').mcpServers.pythonTools.command).toBe(process.execPath);
  });

  it('refuses an unknown target', async () => {
    expect(await io.run(['install', '--target', 'cursor,emacs'])).toBe(2);
    expect(io.stderr).toContain(
      "--target: unknown target 'emacs'; expected some of claude-code, claude-desktop, cursor, vscode, windsurf, gemini, antigravity, codex",
    );
  });
});
