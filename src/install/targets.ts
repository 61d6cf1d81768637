import { posix, win32 } from 'node:path';

/**
 * The MCP clients `tapedeck install` knows, as data: where each keeps its config files, in which format, and under
 * which keys its servers sit. Paths come from the home folder, the working folder (project files) and the OS.
 */

export type TargetId =
  | 'claude-code'
  | 'claude-desktop'
  | 'cursor'
  | 'vscode'
  | 'windsurf'
  | 'gemini'
  | 'antigravity'
  | 'codex';

export const TARGET_IDS: readonly TargetId[] = [
  'claude-code',
  'claude-desktop',
  'cursor',
  'vscode',
  'windsurf',
  'gemini',
  'antigravity',
  'codex',
];

/** Where the paths come from (tests give a temporary home and any platform). */
export interface InstallEnv {
  /** The home folder: `~` on Linux and macOS, `%USERPROFILE%` on Windows. */
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  /** `%APPDATA%` on Windows (default: `<home>\AppData\Roaming`). */
  appData?: string | undefined;
  /** `%LOCALAPPDATA%` on Windows (default: `<home>\AppData\Local`). */
  localAppData?: string | undefined;
  /** Variables that move a client's files: CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME. */
  vars?: Readonly<Record<string, string | undefined>> | undefined;
}

/** A key path to a map of servers; `*` stands for every key at that level (Claude Code's projects). */
export type MapPath = readonly string[];

/** How a client names a remote server's URL and tells SSE from Streamable HTTP. */
export type RemoteStyle = 'type' | 'gemini';

export interface ConfigLocation {
  target: TargetId;
  path: string;
  format: 'json' | 'toml';
  scope: 'user' | 'project';
  maps: readonly MapPath[];
}

export interface Target {
  id: TargetId;
  title: string;
  remote: RemoteStyle;
  locations(env: InstallEnv): ConfigLocation[];
}

const json = (
  target: TargetId,
  path: string,
  scope: 'user' | 'project',
  maps: MapPath[] = [['mcpServers']],
) => ({ target, path, format: 'json', scope, maps }) as const;

/** Paths are joined the way the target platform writes them, whatever machine works them out. */
const pathsOf = (env: InstallEnv) => (env.platform === 'win32' ? win32 : posix);

/** A variable that is set to something. */
const varOf = (env: InstallEnv, name: string) => {
  const value = env.vars?.[name];
  return value === undefined || value === '' ? undefined : value;
};

/**
 * Where desktop applications keep their settings: `~/Library/Application Support` on macOS, `%APPDATA%` on
 * Windows, `$XDG_CONFIG_HOME` (default `~/.config`) elsewhere — Electron's `appData`, which VS Code and Claude
 * Desktop use.
 *
 * @example appConfigHome({ home: '/Users/me', cwd: '/', platform: 'darwin' }) // → '/Users/me/Library/Application Support'
 */
export function appConfigHome(env: InstallEnv): string {
  const { join } = pathsOf(env);
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support');
  if (env.platform === 'win32') return env.appData ?? join(env.home, 'AppData', 'Roaming');
  return varOf(env, 'XDG_CONFIG_HOME') ?? join(env.home, '.config');
}

/**
 * Claude Desktop's config: `~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows,
 * `~/.config/Claude` elsewhere.
 *
 * @example claudeDesktopPath({ home: '/Users/me', cwd: '/', platform: 'darwin' })
 * // → '/Users/me/Library/Application Support/Claude/claude_desktop_config.json'
 */
export function claudeDesktopPath(env: InstallEnv): string {
  return pathsOf(env).join(appConfigHome(env), 'Claude', 'claude_desktop_config.json');
}

/**
 * The package of Claude Desktop's Windows installer (MSIX, the default since early 2026): Windows redirects the
 * app's `%APPDATA%` into the package's own folder, so that is where the config it reads lives.
 */
export const CLAUDE_DESKTOP_PACKAGE = 'Claude_pzs8sxrjxfjjc';

/**
 * Every place Claude Desktop's config may be: on Windows the classic `%APPDATA%\Claude` and the packaged app's
 * `%LOCALAPPDATA%\Packages\Claude_…\LocalCache\Roaming\Claude`; elsewhere the one path.
 *
 * @example claudeDesktopPaths({ home: 'C:\\Users\\me', cwd: 'C:\\', platform: 'win32' })[1]
 * // → 'C:\\Users\\me\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json'
 */
export function claudeDesktopPaths(env: InstallEnv): string[] {
  if (env.platform !== 'win32') return [claudeDesktopPath(env)];
  const { join } = win32;
  const local = env.localAppData ?? join(env.home, 'AppData', 'Local');
  const packaged = join(local, 'Packages', CLAUDE_DESKTOP_PACKAGE, 'LocalCache', 'Roaming', 'Claude');
  return [claudeDesktopPath(env), join(packaged, 'claude_desktop_config.json')];
}

export const TARGETS: Readonly<Record<TargetId, Target>> = {
  'claude-code': {
    id: 'claude-code',
    title: 'Claude Code',
    remote: 'type',
    locations: (env) => {
      const { join } = pathsOf(env);
      // CLAUDE_CONFIG_DIR moves Claude Code's whole user state, .claude.json included.
      const dir = varOf(env, 'CLAUDE_CONFIG_DIR') ?? env.home;
      return [
        json('claude-code', join(dir, '.claude.json'), 'user', [
          ['mcpServers'],
          ['projects', '*', 'mcpServers'],
        ]),
        json('claude-code', join(env.cwd, '.mcp.json'), 'project'),
      ];
    },
  },
  'claude-desktop': {
    id: 'claude-desktop',
    title: 'Claude Desktop',
    remote: 'type',
    locations: (env) => claudeDesktopPaths(env).map((path) => json('claude-desktop', path, 'user')),
  },
  cursor: {
    id: 'cursor',
    title: 'Cursor',
    remote: 'type',
    locations: (env) => [
      json('cursor', pathsOf(env).join(env.home, '.cursor', 'mcp.json'), 'user'),
      json('cursor', pathsOf(env).join(env.cwd, '.cursor', 'mcp.json'), 'project'),
    ],
  },
  vscode: {
    id: 'vscode',
    title: 'VS Code',
    remote: 'type',
    locations: (env) => [
      json('vscode', pathsOf(env).join(appConfigHome(env), 'Code', 'User', 'mcp.json'), 'user', [
        ['servers'],
      ]),
      json('vscode', pathsOf(env).join(env.cwd, '.vscode', 'mcp.json'), 'project', [['servers']]),
    ],
  },
  windsurf: {
    id: 'windsurf',
    title: 'Windsurf',
    remote: 'type',
    locations: (env) => [
      json('windsurf', pathsOf(env).join(env.home, '.codeium', 'windsurf', 'mcp_config.json'), 'user'),
    ],
  },
  gemini: {
    id: 'gemini',
    title: 'Gemini CLI',
    remote: 'gemini',
    locations: (env) => [
      json('gemini', pathsOf(env).join(env.home, '.gemini', 'settings.json'), 'user'),
      json('gemini', pathsOf(env).join(env.cwd, '.gemini', 'settings.json'), 'project'),
    ],
  },
  antigravity: {
    id: 'antigravity',
    title: 'Antigravity',
    remote: 'type',
    locations: (env) => [
      json('antigravity', pathsOf(env).join(env.home, '.gemini', 'antigravity', 'mcp_config.json'), 'user'),
    ],
  },
  codex: {
    id: 'codex',
    title: 'Codex',
    remote: 'type',
    locations: (env) => [
      {
        target: 'codex',
        // CODEX_HOME moves Codex's folder (default ~/.codex).
        path: pathsOf(env).join(
          varOf(env, 'CODEX_HOME') ?? pathsOf(env).join(env.home, '.codex'),
          'config.toml',
        ),
        format: 'toml',
        scope: 'user',
        maps: [['mcp_servers']],
      },
    ],
  },
};

/**
 * Every config location of the targets, each file once (a project folder that is the home folder holds one
 * `.cursor/mcp.json`, not two). `resolve` says where a path really is (links followed), so two names for one file
 * count once too; the first name is kept (the user's file, shown as `~/…`). Without it paths compare as written.
 *
 * @example uniqueLocations(['cursor'], { home: '/h', cwd: '/h', platform: 'linux' }).length // → 1
 */
export function uniqueLocations(
  targets: readonly TargetId[],
  env: InstallEnv,
  resolve: (path: string) => string = (path) => path,
): ConfigLocation[] {
  const seen = new Set<string>();
  const out: ConfigLocation[] = [];
  for (const id of targets) {
    for (const location of TARGETS[id].locations(env)) {
      const real = resolve(location.path);
      const key = env.platform === 'win32' || env.platform === 'darwin' ? real.toLowerCase() : real;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(location);
    }
  }
  return out;
}

/**
 * A path as the user knows it: under the home folder as `~/…` (Linux, macOS) or `%USERPROFILE%\…` (Windows).
 *
 * @example displayPath('/home/me/.cursor/mcp.json', { home: '/home/me', cwd: '/', platform: 'linux' }) // → '~/.cursor/mcp.json'
 */
export function displayPath(path: string, env: InstallEnv): string {
  const windows = env.platform === 'win32';
  const sep = windows ? '\\' : '/';
  const home = env.home.endsWith(sep) ? env.home.slice(0, -1) : env.home;
  const within = windows
    ? path.toLowerCase().startsWith(`${home.toLowerCase()}${sep}`)
    : path.startsWith(`${home}${sep}`);
  if (!within) return path;
  return `${windows ? '%USERPROFILE%' : '~'}${path.slice(home.length)}`;
}

/**
 * The targets named by `--target a,b` (all when none are given). Throws an Error naming the unknown ones.
 *
 * @example parseTargets('cursor,codex') // → ['cursor', 'codex']
 */
export function parseTargets(value: string | undefined): TargetId[] {
  if (value === undefined || value.trim() === '') return [...TARGET_IDS];
  const wanted = value
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  const unknown = wanted.filter((id) => !(TARGET_IDS as readonly string[]).includes(id));
  if (unknown.length > 0)
    throw new Error(
      `unknown target${unknown.length === 1 ? '' : 's'} ${unknown.map((u) => `'${u}'`).join(', ')}; expected some of ${TARGET_IDS.join(', ')}`,
    );
  return [...new Set(wanted)] as TargetId[];
}
