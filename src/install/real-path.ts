import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Where `path` really is: links resolved in the part that exists, the rest (a config file or folder not made yet)
 * joined on as written. Two names for one file — `~/.cursor/mcp.json` and `./.cursor/mcp.json` run from the home
 * folder when `$HOME` is a link (a macOS temp folder under `/var`, a home under a linked `/home`), while the working
 * folder is always reported resolved — then come out the same. A path that cannot be looked at stays as it is.
 *
 * @example resolvedPath('/link-to-home/.cursor/mcp.json') // → '/real/home/.cursor/mcp.json'
 */
export function resolvedPath(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const parent = dirname(at);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === at) return path;
      rest.push(basename(at));
      at = parent;
    }
  }
}
