/**
 * What runs for a server command on win32, darwin and linux, decided on this machine with the platform, the
 * environment and the files given: resolution through PATH and PATHEXT, batch files through cmd.exe, programs
 * directly, and the plain spawn of today elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { SpawnPlanError } from '../../src/process/cmd-line.js';
import { commandProcessor, planSpawn } from '../../src/process/plan.js';
import {
  type CommandContext,
  envValue,
  resolveCommand,
  windowsExtension,
} from '../../src/process/resolve.js';
import { runThroughShim } from './cmd-model.js';

/** A Windows machine: files compared without regard to case, as NTFS does. */
function windows(files: string[], env: Record<string, string>, cwd = 'C:\\work'): CommandContext {
  const set = new Set(files.map((f) => f.toLowerCase()));
  return { platform: 'win32', env, cwd, isRunnable: (path) => set.has(path.toLowerCase()) };
}

function posix(platform: 'linux' | 'darwin', files: string[], env: Record<string, string>): CommandContext {
  const set = new Set(files);
  return { platform, env, cwd: '/work', isRunnable: (path) => set.has(path) };
}

const NODE_DIR = 'C:\\Program Files\\nodejs';
/** What a Node.js install on Windows puts in its folder: the shims, and a Git Bash script beside each. */
const NODE_FILES = [
  `${NODE_DIR}\\node.exe`,
  `${NODE_DIR}\\npx`,
  `${NODE_DIR}\\npx.cmd`,
  `${NODE_DIR}\\npx.ps1`,
  `${NODE_DIR}\\npm`,
  `${NODE_DIR}\\npm.cmd`,
];
const WIN_ENV = {
  Path: `C:\\Windows\\system32;"${NODE_DIR}";C:\\Users\\Zoë\\.local\\bin;`,
  PATHEXT: '.COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  SystemRoot: 'C:\\Windows',
};

describe('resolving a command on Windows', () => {
  const ctx = windows(
    [
      ...NODE_FILES,
      'C:\\Users\\Zoë\\.local\\bin\\uvx.exe',
      'C:\\Users\\Zoë\\.local\\bin\\tool.js',
      'C:\\Users\\Zoë\\.local\\bin\\tool.cmd',
      'C:\\tools\\My Server\\server.exe',
      'C:\\work\\bin\\serve.bat',
      'C:\\work\\start.ps1',
    ],
    WIN_ENV,
  );

  it('finds a bare name through PATH and PATHEXT, never the extension-less Git Bash script', () => {
    expect(resolveCommand('npx', ctx)).toEqual({ kind: 'batch', path: `${NODE_DIR}\\npx.cmd` });
    expect(resolveCommand('uvx', ctx)).toEqual({
      kind: 'executable',
      path: 'C:\\Users\\Zoë\\.local\\bin\\uvx.exe',
    });
    expect(resolveCommand('node', ctx)).toEqual({ kind: 'executable', path: `${NODE_DIR}\\node.exe` });
    // .JS is in PATHEXT, but Windows would hand it to its script host: only programs and batch files count.
    expect(resolveCommand('tool', ctx)).toEqual({
      kind: 'batch',
      path: 'C:\\Users\\Zoë\\.local\\bin\\tool.cmd',
    });
  });

  it('takes a name with its extension as it is, whatever its case or trailing dots', () => {
    expect(resolveCommand('npx.cmd', ctx)).toEqual({ kind: 'batch', path: `${NODE_DIR}\\npx.cmd` });
    expect(resolveCommand('NPX.CMD', ctx)).toEqual({ kind: 'batch', path: `${NODE_DIR}\\NPX.CMD` });
    expect(windowsExtension('npx.cmd. ')).toBe('.CMD');
    expect(resolveCommand('npx.cmd.', windows([`${NODE_DIR}\\npx.cmd.`], WIN_ENV)).kind).toBe('batch');
  });

  it('takes absolute and relative paths from their folder, spaces and all', () => {
    expect(resolveCommand('C:\\tools\\My Server\\server.exe', ctx)).toEqual({
      kind: 'executable',
      path: 'C:\\tools\\My Server\\server.exe',
    });
    expect(resolveCommand('C:/tools/My Server/server', ctx)).toEqual({
      kind: 'executable',
      path: 'C:\\tools\\My Server\\server.exe',
    });
    expect(resolveCommand('.\\bin\\serve', ctx)).toEqual({ kind: 'batch', path: 'C:\\work\\bin\\serve.bat' });
    expect(resolveCommand('bin/serve.bat', ctx)).toEqual({ kind: 'batch', path: 'C:\\work\\bin\\serve.bat' });
  });

  it('does not look in the working folder for a bare name', () => {
    expect(resolveCommand('serve', windows(['C:\\work\\serve.cmd'], WIN_ENV))).toEqual({ kind: 'not-found' });
  });

  it('names a file Windows cannot start by itself, and what is not there', () => {
    expect(resolveCommand('start.ps1', ctx)).toEqual({ kind: 'not-found' });
    expect(resolveCommand('.\\start.ps1', ctx)).toEqual({
      kind: 'unsupported',
      path: 'C:\\work\\start.ps1',
      extension: '.ps1',
    });
    expect(resolveCommand('missing', ctx)).toEqual({ kind: 'not-found' });
    expect(resolveCommand('', ctx)).toEqual({ kind: 'not-found' });
  });

  it('follows PATHEXT order, falls back to the default list, and reads variables without regard to case', () => {
    const both = windows(['C:\\bin\\serve.cmd', 'C:\\bin\\serve.exe'], {
      PATH: 'C:\\bin',
      PATHEXT: '.CMD;.EXE',
    });
    expect(resolveCommand('serve', both)).toEqual({ kind: 'batch', path: 'C:\\bin\\serve.cmd' });
    const none = windows(['C:\\bin\\serve.cmd', 'C:\\bin\\serve.exe'], { path: 'C:\\bin' });
    expect(resolveCommand('serve', none)).toEqual({ kind: 'executable', path: 'C:\\bin\\serve.exe' });
    expect(envValue({ Path: 'x' }, 'PATH', 'win32')).toBe('x');
    expect(envValue({ Path: 'x' }, 'PATH', 'linux')).toBeUndefined();
  });
});

describe('resolving a command on Linux and macOS', () => {
  it('looks a bare name up in PATH, in order, and a path from the working folder', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const ctx = posix(platform, ['/opt/homebrew/bin/npx', '/usr/bin/npx', '/work/bin/serve'], {
        PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin',
      });
      expect(resolveCommand('npx', ctx)).toEqual({ kind: 'executable', path: '/opt/homebrew/bin/npx' });
      expect(resolveCommand('./bin/serve', ctx)).toEqual({ kind: 'executable', path: '/work/bin/serve' });
      expect(resolveCommand('npx.cmd', ctx)).toEqual({ kind: 'not-found' });
    }
  });
});

describe('planning a server start', () => {
  it('is the plain spawn of today on Linux and macOS: the command and arguments as given', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const plan = planSpawn('npx', ['-y', 'a&b', '%PATH%', ''], posix(platform, [], { PATH: '/usr/bin' }));
      expect(plan).toEqual({
        file: 'npx',
        args: ['-y', 'a&b', '%PATH%', ''],
        windowsVerbatimArguments: false,
      });
    }
  });

  it('starts a Windows program directly, by its resolved path, leaving the quoting to Node', () => {
    const ctx = windows([`${NODE_DIR}\\node.exe`], WIN_ENV);
    expect(planSpawn('node', ['server.js', 'a b'], ctx)).toEqual({
      file: `${NODE_DIR}\\node.exe`,
      args: ['server.js', 'a b'],
      windowsVerbatimArguments: false,
      resolved: { kind: 'executable', path: `${NODE_DIR}\\node.exe` },
    });
  });

  it('runs a batch file through cmd.exe, verbatim, with every argument intact', () => {
    const ctx = windows(NODE_FILES, WIN_ENV);
    const args = ['-y', '@modelcontextprotocol/server-everything', 'a&b|c', '%USERPROFILE%', '', 'C:\\dir\\'];
    const plan = planSpawn('npx', args, ctx);
    expect(plan.file).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(plan.windowsVerbatimArguments).toBe(true);
    expect(plan.args.slice(0, 5)).toEqual(['/d', '/e:on', '/v:off', '/s', '/c']);
    const run = runThroughShim(plan.args, { USERPROFILE: 'C:\\Users\\Zoë', PATH: 'x' });
    expect(run.command).toBe(`${NODE_DIR}\\npx.cmd`);
    expect(run.operators).toEqual([]);
    expect(run.argv).toEqual(args);
  });

  it('leaves a command it cannot find to Node, which reports ENOENT', () => {
    expect(planSpawn('missing', ['x'], windows([], WIN_ENV))).toMatchObject({
      file: 'missing',
      args: ['x'],
      windowsVerbatimArguments: false,
    });
  });

  it('refuses what cannot be started as written, saying what to do instead', () => {
    const ctx = windows(['C:\\work\\start.ps1', ...NODE_FILES], WIN_ENV);
    expect(() => planSpawn('.\\start.ps1', [], ctx)).toThrow(SpawnPlanError);
    expect(() => planSpawn('.\\start.ps1', [], ctx)).toThrow(/\.ps1 file .* powershell -NoProfile -File/);
    expect(() => planSpawn('npx', ['line\nbreak'], ctx)).toThrow(/line break/);
  });

  it('finds cmd.exe through ComSpec, else SystemRoot', () => {
    expect(commandProcessor({ env: { COMSPEC: 'D:\\cmd.exe' } })).toBe('D:\\cmd.exe');
    expect(commandProcessor({ env: { SystemRoot: 'C:\\WINDOWS\\' } })).toBe('C:\\WINDOWS\\System32\\cmd.exe');
    expect(commandProcessor({ env: {} })).toBe('cmd.exe');
  });
});
