/**
 * install on each OS, decided on this machine with the platform given: every client's config paths on Windows,
 * macOS and Linux (homes with spaces and non-ASCII letters, the variables that move them), how paths are shown,
 * and a Windows entry wrapped with absolute paths that a client with a minimal PATH can start — checked through to
 * the command line `tapedeck record` will hand cmd.exe.
 */
import { parse as parseJsonc } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/install/plan.js';
import {
  appConfigHome,
  claudeDesktopPaths,
  displayPath,
  type InstallEnv,
  TARGET_IDS,
  TARGETS,
  uniqueLocations,
} from '../../src/install/targets.js';
import { planSpawn } from '../../src/process/plan.js';
import { runThroughShim } from '../process/cmd-model.js';

const WINDOWS: InstallEnv = {
  home: 'C:\\Users\\Zoë Müller',
  cwd: 'D:\\work\\my app',
  platform: 'win32',
  appData: 'C:\\Users\\Zoë Müller\\AppData\\Roaming',
  localAppData: 'C:\\Users\\Zoë Müller\\AppData\\Local',
};
const MAC: InstallEnv = { home: '/Users/zoë müller', cwd: '/Users/zoë müller/my app', platform: 'darwin' };
const LINUX: InstallEnv = { home: '/home/zoë', cwd: '/srv/app', platform: 'linux' };

const paths = (env: InstallEnv) =>
  Object.fromEntries(TARGET_IDS.map((id) => [id, TARGETS[id].locations(env).map((l) => l.path)]));

describe("every client's config files, per OS", () => {
  it('on Windows: under %USERPROFILE%, %APPDATA% and the packaged Claude Desktop folder', () => {
    expect(paths(WINDOWS)).toEqual({
      'claude-code': ['C:\\Users\\Zoë Müller\\.claude.json', 'D:\\work\\my app\\.mcp.json'],
      'claude-desktop': [
        'C:\\Users\\Zoë Müller\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
        'C:\\Users\\Zoë Müller\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json',
      ],
      cursor: ['C:\\Users\\Zoë Müller\\.cursor\\mcp.json', 'D:\\work\\my app\\.cursor\\mcp.json'],
      vscode: [
        'C:\\Users\\Zoë Müller\\AppData\\Roaming\\Code\\User\\mcp.json',
        'D:\\work\\my app\\.vscode\\mcp.json',
      ],
      windsurf: ['C:\\Users\\Zoë Müller\\.codeium\\windsurf\\mcp_config.json'],
      gemini: ['C:\\Users\\Zoë Müller\\.gemini\\settings.json', 'D:\\work\\my app\\.gemini\\settings.json'],
      antigravity: ['C:\\Users\\Zoë Müller\\.gemini\\antigravity\\mcp_config.json'],
      codex: ['C:\\Users\\Zoë Müller\\.codex\\config.toml'],
    });
    // Without %APPDATA% / %LOCALAPPDATA%: their defaults under the profile.
    expect(claudeDesktopPaths({ home: 'C:\\Users\\me', cwd: 'C:\\', platform: 'win32' })).toEqual([
      'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      'C:\\Users\\me\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json',
    ]);
  });

  it('on macOS: under ~ and ~/Library/Application Support', () => {
    expect(paths(MAC)).toMatchObject({
      'claude-code': ['/Users/zoë müller/.claude.json', '/Users/zoë müller/my app/.mcp.json'],
      'claude-desktop': ['/Users/zoë müller/Library/Application Support/Claude/claude_desktop_config.json'],
      vscode: [
        '/Users/zoë müller/Library/Application Support/Code/User/mcp.json',
        '/Users/zoë müller/my app/.vscode/mcp.json',
      ],
      windsurf: ['/Users/zoë müller/.codeium/windsurf/mcp_config.json'],
      codex: ['/Users/zoë müller/.codex/config.toml'],
    });
    // XDG_CONFIG_HOME is a Linux convention; macOS apps ignore it.
    expect(appConfigHome({ ...MAC, vars: { XDG_CONFIG_HOME: '/elsewhere' } })).toBe(
      '/Users/zoë müller/Library/Application Support',
    );
  });

  it('on Linux: under ~ and $XDG_CONFIG_HOME (default ~/.config)', () => {
    expect(paths(LINUX)).toMatchObject({
      'claude-desktop': ['/home/zoë/.config/Claude/claude_desktop_config.json'],
      vscode: ['/home/zoë/.config/Code/User/mcp.json', '/srv/app/.vscode/mcp.json'],
      gemini: ['/home/zoë/.gemini/settings.json', '/srv/app/.gemini/settings.json'],
      antigravity: ['/home/zoë/.gemini/antigravity/mcp_config.json'],
    });
    expect(paths({ ...LINUX, vars: { XDG_CONFIG_HOME: '/cfg' } }).vscode).toEqual([
      '/cfg/Code/User/mcp.json',
      '/srv/app/.vscode/mcp.json',
    ]);
  });

  it('follows CLAUDE_CONFIG_DIR and CODEX_HOME on every OS', () => {
    const moved = (env: InstallEnv, vars: Record<string, string>) => paths({ ...env, vars });
    expect(moved(LINUX, { CLAUDE_CONFIG_DIR: '/cfg/claude', CODEX_HOME: '/cfg/codex' })).toMatchObject({
      'claude-code': ['/cfg/claude/.claude.json', '/srv/app/.mcp.json'],
      codex: ['/cfg/codex/config.toml'],
    });
    expect(moved(WINDOWS, { CLAUDE_CONFIG_DIR: 'E:\\claude', CODEX_HOME: 'E:\\codex' })).toMatchObject({
      'claude-code': ['E:\\claude\\.claude.json', 'D:\\work\\my app\\.mcp.json'],
      codex: ['E:\\codex\\config.toml'],
    });
    expect(moved(LINUX, { CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' }).codex).toEqual([
      '/home/zoë/.codex/config.toml',
    ]);
  });

  it('lists a file once when the project folder is the home folder', () => {
    const home = { ...WINDOWS, cwd: 'c:\\users\\zoë müller' };
    const cursor = uniqueLocations(['cursor', 'gemini'], home).map((l) => l.path);
    expect(cursor).toEqual([
      'C:\\Users\\Zoë Müller\\.cursor\\mcp.json',
      'C:\\Users\\Zoë Müller\\.gemini\\settings.json',
    ]);
  });

  it('shows paths under the home folder as ~ or %USERPROFILE%', () => {
    expect(displayPath('/home/zoë/.cursor/mcp.json', LINUX)).toBe('~/.cursor/mcp.json');
    expect(displayPath('/home/zoëx/.cursor/mcp.json', LINUX)).toBe('/home/zoëx/.cursor/mcp.json');
    expect(displayPath('C:\\Users\\Zoë Müller\\.cursor\\mcp.json', WINDOWS)).toBe(
      '%USERPROFILE%\\.cursor\\mcp.json',
    );
    expect(displayPath('c:\\users\\zoë müller\\.codex\\config.toml', WINDOWS)).toBe(
      '%USERPROFILE%\\.codex\\config.toml',
    );
    expect(displayPath('D:\\work\\my app\\.mcp.json', WINDOWS)).toBe('D:\\work\\my app\\.mcp.json');
  });
});

describe('a Windows entry wrapped for a client with a minimal PATH', () => {
  const tapedeck = {
    command: 'C:\\Program Files\\nodejs\\node.exe',
    prefix: ['C:\\Users\\Zoë Müller\\AppData\\Roaming\\npm\\node_modules\\tapedeck\\dist\\cli\\bin.js'],
  };
  const files = new Set(['c:\\program files\\nodejs\\npx', 'c:\\program files\\nodejs\\npx.cmd']);
  const isRunnable = (path: string) => files.has(path.toLowerCase());
  const env = { Path: 'C:\\WINDOWS\\system32;C:\\Program Files\\nodejs\\', PATHEXT: '.COM;.EXE;.BAT;.CMD' };
  const location = TARGETS['claude-desktop'].locations(WINDOWS)[1]!;
  const config =
    '{\r\n  "mcpServers": {\r\n    "everything": {\r\n      "command": "npx",\r\n' +
    '      "args": ["-y", "@modelcontextprotocol/server-everything", "--dir=C:\\\\Users\\\\Zoë Müller\\\\a&b"]\r\n' +
    '    }\r\n  }\r\n}\r\n';

  it('names node, tapedeck and the server command by absolute path (npx is npx.cmd)', () => {
    const plan = planFile(location, config, {
      mode: 'install',
      remote: 'skip',
      force: false,
      tapedeck,
      env,
      platform: 'win32',
      isRunnable,
    });
    expect(plan.servers).toEqual([{ name: 'everything', where: undefined, state: 'wrapped' }]);
    expect(plan.after.replace(/\r\n/g, '')).not.toContain('\n');
    const entry = (
      parseJsonc(plan.after) as { mcpServers: Record<string, { command: string; args: string[] }> }
    ).mcpServers.everything!;
    expect(entry.command).toBe('C:\\Program Files\\nodejs\\node.exe');
    const dashes = entry.args.indexOf('--');
    expect(entry.args.slice(0, dashes)).toEqual([tapedeck.prefix[0], 'record', '--label', 'everything']);
    const server = entry.args.slice(dashes + 1);
    expect(server).toEqual([
      'C:\\Program Files\\nodejs\\npx.cmd',
      '-y',
      '@modelcontextprotocol/server-everything',
      '--dir=C:\\Users\\Zoë Müller\\a&b',
    ]);

    // What `tapedeck record` then runs, under the client's minimal PATH: cmd.exe with the shim and every argument.
    const run = planSpawn(server[0]!, server.slice(1), {
      platform: 'win32',
      env: { SystemRoot: 'C:\\WINDOWS', Path: 'C:\\WINDOWS\\system32' },
      cwd: 'C:\\WINDOWS\\system32',
      isRunnable,
    });
    expect(run.file).toBe('C:\\WINDOWS\\System32\\cmd.exe');
    const shim = runThroughShim(run.args, { PATH: 'C:\\WINDOWS\\system32' });
    expect(shim.command).toBe('C:\\Program Files\\nodejs\\npx.cmd');
    expect(shim.operators).toEqual([]);
    expect(shim.argv).toEqual(server.slice(1));
  });

  it('leaves a command it cannot find as it was, and says so', () => {
    const plan = planFile(location, config.replace('"npx"', '"uvx"'), {
      mode: 'install',
      remote: 'skip',
      force: false,
      tapedeck,
      env,
      platform: 'win32',
      isRunnable,
    });
    expect(plan.servers[0]).toMatchObject({
      state: 'wrapped',
      detail: "'uvx' is not on PATH; left as it is",
    });
  });
});
