import { join } from 'node:path';

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

/** Where the paths come from (tests give a temporary home). */
export interface InstallEnv {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  /** `%APPDATA%` on Windows. */
  appData?: string | undefined;
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

/**
 * Claude Desktop's config: `~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows,
 * `~/.config/Claude` elsewhere.
 *
 * @example claudeDesktopPath({ home: '/Users/me', cwd: '/', platform: 'darwin' })
 * // → '/Users/me/Library/Application Support/Claude/claude_desktop_config.json'
 */
export function claudeDesktopPath(env: InstallEnv): string {
  const file = 'claude_desktop_config.json';
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support', 'Claude', file);
  if (env.platform === 'win32')
    return join(env.appData ?? join(env.home, 'AppData', 'Roaming'), 'Claude', file);
  return join(env.home, '.config', 'Claude', file);
}

export const TARGETS: Readonly<Record<TargetId, Target>> = {
  'claude-code': {
    id: 'claude-code',
    title: 'Claude Code',
    remote: 'type',
    locations: (env) => [
      json('claude-code', join(env.home, '.claude.json'), 'user', [
        ['mcpServers'],
        ['projects', '*', 'mcpServers'],
      ]),
      json('claude-code', join(env.cwd, '.mcp.json'), 'project'),
    ],
  },
  'claude-desktop': {
    id: 'claude-desktop',
    title: 'Claude Desktop',
    remote: 'type',
    locations: (env) => [json('claude-desktop', claudeDesktopPath(env), 'user')],
  },
  cursor: {
    id: 'cursor',
    title: 'Cursor',
    remote: 'type',
    locations: (env) => [
      json('cursor', join(env.home, '.cursor', 'mcp.json'), 'user'),
      json('cursor', join(env.cwd, '.cursor', 'mcp.json'), 'project'),
    ],
  },
  vscode: {
    id: 'vscode',
    title: 'VS Code',
    remote: 'type',
    locations: (env) => [json('vscode', join(env.cwd, '.vscode', 'mcp.json'), 'project', [['servers']])],
  },
  windsurf: {
    id: 'windsurf',
    title: 'Windsurf',
    remote: 'type',
    locations: (env) => [json('windsurf', join(env.home, '.codeium', 'windsurf', 'mcp_config.json'), 'user')],
  },
  gemini: {
    id: 'gemini',
    title: 'Gemini CLI',
    remote: 'gemini',
    locations: (env) => [json('gemini', join(env.home, '.gemini', 'settings.json'), 'user')],
  },
  antigravity: {
    id: 'antigravity',
    title: 'Antigravity',
    remote: 'type',
    locations: (env) => [
      json('antigravity', join(env.home, '.gemini', 'antigravity', 'mcp_config.json'), 'user'),
    ],
  },
  codex: {
    id: 'codex',
    title: 'Codex',
    remote: 'type',
    locations: (env) => [
      {
        target: 'codex',
        path: join(env.home, '.codex', 'config.toml'),
        format: 'toml',
        scope: 'user',
        maps: [['mcp_servers']],
      },
    ],
  },
};

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
