import { basename, dirname, join } from 'node:path';

/** Programs that run another program; the label comes from what they run. */
const RUNNERS = new Set([
  'node',
  'nodejs',
  'npx',
  'npm',
  'pnpm',
  'pnpx',
  'yarn',
  'bun',
  'bunx',
  'deno',
  'tsx',
  'ts-node',
  'python',
  'python3',
  'uv',
  'uvx',
  'pipx',
  'docker',
  'env',
  'sh',
  'bash',
]);
/** Subcommands of runners that are not the program's name (`npm exec`, `uv run`, `docker run`). */
const RUNNER_VERBS = new Set(['exec', 'run', 'x', 'dlx', 'tool', '-m', 'stdio']);
/** Runner options whose value is the next word (`docker run -e TOKEN image`), so that word is not the program. */
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  docker: new Set([
    '-e',
    '--env',
    '--env-file',
    '-v',
    '--volume',
    '--mount',
    '--name',
    '--network',
    '-p',
    '--publish',
    '-w',
    '--workdir',
    '-u',
    '--user',
    '--entrypoint',
    '--platform',
    '-l',
    '--label',
  ]),
  npx: new Set(['-p', '--package']),
  uvx: new Set(['--from', '--with', '--python']),
  uv: new Set(['--from', '--with', '--python']),
};
/** Options that make a runner execute the next word as code. */
const INLINE_CODE = new Set(['-e', '--eval', '-p', '--print', '-c']);
/** File and folder names that say nothing about which server it is. */
const GENERIC = new Set([
  'index',
  'main',
  'server',
  'cli',
  'bin',
  'dist',
  'build',
  'lib',
  'src',
  'out',
  '__main__',
]);

/**
 * Derives a short label from a server command, using only characters safe in a file name.
 *
 * @example deriveLabel(['npx', '-y', '@modelcontextprotocol/server-everything']) === 'server-everything'
 * @example deriveLabel(['node', 'node_modules/@modelcontextprotocol/server-memory/dist/index.js']) === 'server-memory'
 */
export function deriveLabel(argv: readonly string[]): string {
  let i = 0;
  let runner = '';
  while (i < argv.length) {
    const word = argv[i]!;
    const name = basename(word).replace(/\.(exe|cmd|bat)$/i, '');
    if (VALUE_OPTIONS[runner]?.has(word)) {
      i += 2;
      continue;
    }
    if (RUNNERS.has(name)) runner = name;
    // `node -e '…'`, `python -c '…'`: the next word is code, not a name worth a file name.
    if (runner !== '' && INLINE_CODE.has(word)) return safeLabel(`${runner}-inline`);
    if (RUNNERS.has(name) || word.startsWith('-') || RUNNER_VERBS.has(word) || /^\w+=/.test(word)) {
      i += 1;
      continue;
    }
    return safeLabel(nameFromPath(word));
  }
  return safeLabel(argv[0] !== undefined ? basename(argv[0]) : '');
}

function nameFromPath(word: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(word.replace(/\\/g, '/'));
  if (pkg?.[1]) return pkg[1].replace(/^@[^/]+\//, '');
  if (word.startsWith('@') && word.includes('/')) return word.split('/')[1]!.replace(/@[^@]*$/, '');
  let current = word.replace(/[\\/]+$/, '');
  while (current !== '' && current !== '.' && current !== '/') {
    const stem = basename(current).replace(/\.(m?[jt]s|c[jt]s|py|sh)$/i, '');
    // Drop a version (`pkg@1.2`) or an image tag (`mcp/github:latest`).
    if (!GENERIC.has(stem.toLowerCase())) return stem.replace(/@[^@]*$/, '').replace(/(.):[^:]*$/, '$1');
    current = dirname(current);
  }
  return basename(word);
}

/** Keeps `[A-Za-z0-9._-]`, squeezes the rest to `-`, and caps the length; never empty. */
export function safeLabel(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 48);
  return cleaned === '' ? 'session' : cleaned;
}

/**
 * The label of a recording of a remote server: host, port and path of its URL.
 *
 * @example labelFromUrl('http://127.0.0.1:3001/mcp') // → '127.0.0.1-3001-mcp'
 */
export function labelFromUrl(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  const path = pathname.replace(/^\/+|\/+$/g, '');
  return safeLabel([hostname, port, path].filter((part) => part !== '').join('-'));
}

/**
 * The default trace file for a new recording: `<dir>/<UTC timestamp>-<label>.jsonl`. Two recordings started in
 * the same millisecond with the same label get the same name: open it with `existing: 'unique'` (FileSink).
 *
 * @example traceFileName('/t', 'memory', new Date('2026-11-29T21:33:15.123Z')) === '/t/20261129T213315.123Z-memory.jsonl'
 */
export function traceFileName(dir: string, label: string, at: Date = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '');
  // A name ending in `.<n>` is the shape of a rotated segment (`name.1.jsonl`): another trace's rotation would
  // rename over it, so a label such as `v1.2` gives `v1-2`.
  const name = safeLabel(label).replace(/\.(\d+)$/, '-$1');
  return join(dir, `${stamp}-${name}.jsonl`);
}
