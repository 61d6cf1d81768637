import { cpSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { claudeDesktopPath } from '../../src/install/targets.js';
import { REPO_ROOT } from '../helpers/peers.js';

/**
 * The install fixture — a home and a project folder with every client's config — laid out for the platform the
 * tests run on: Claude Desktop keeps its config in a different folder on each OS, the fixture has it where Linux
 * does (`~/.config/Claude`), so it is moved to where this platform's clients look.
 */

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'install');

/** Every config file of the fixture, relative to its folder. */
export const FIXTURE_FILES = [
  'home/.claude.json',
  'project/.mcp.json',
  'home/.config/Claude/claude_desktop_config.json',
  'home/.cursor/mcp.json',
  'project/.cursor/mcp.json',
  'project/.vscode/mcp.json',
  'home/.codeium/windsurf/mcp_config.json',
  'home/.gemini/settings.json',
  'home/.gemini/antigravity/mcp_config.json',
  'home/.codex/config.toml',
];

const CLAUDE_DESKTOP = 'home/.config/Claude/claude_desktop_config.json';

/** Where a fixture file is in `dir` on this platform (with XDG_CONFIG_HOME and APPDATA at their defaults). */
export function placeOf(file: string, dir: string): string {
  if (file !== CLAUDE_DESKTOP) return join(dir, file);
  return claudeDesktopPath({
    home: join(dir, 'home'),
    cwd: join(dir, 'project'),
    platform: process.platform,
  });
}

/** Copies the fixture into `dir`, every file where this platform's clients look for it. */
export function copyFixture(dir: string): void {
  cpSync(join(FIXTURES, 'home'), join(dir, 'home'), { recursive: true });
  cpSync(join(FIXTURES, 'project'), join(dir, 'project'), { recursive: true });
  const placed = placeOf(CLAUDE_DESKTOP, dir);
  if (placed !== join(dir, CLAUDE_DESKTOP)) {
    mkdirSync(dirname(placed), { recursive: true });
    renameSync(join(dir, CLAUDE_DESKTOP), placed);
  }
}
