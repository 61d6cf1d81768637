/**
 * The documents link to each other and into the repository: every relative link in README.md, ARCHITECTURE.md,
 * CHANGELOG.md and docs/ names a file or folder that exists, inside the repository, and every `#anchor` into a
 * Markdown file names one of its headings as GitHub anchors them. Links to other sites are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingSlug, markdownAnchors, markdownLinks } from './markdown-links.js';

const root = join(import.meta.dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The documents whose links are checked. */
const DOCUMENTS = [
  ...['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md'].map((name) => join(root, name)),
  ...markdownFiles(join(root, 'docs')),
];

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file);
  if (found === undefined) {
    found = markdownAnchors(readFileSync(file, 'utf8'));
    anchorsOf.set(file, found);
  }
  return found;
}

/** What is wrong with one link from `file`, or undefined when it resolves. */
function broken(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // another site, mailto:
  const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURIComponent(pathPart.split('?')[0]!);
  const resolved =
    path === '' ? file : resolve(path.startsWith('/') ? root : dirname(file), `.${sep}${path}`);
  const inRepo = relative(root, resolved);
  if (inRepo.startsWith('..')) return `${target}: points outside the repository`;
  if (!existsSync(resolved)) return `${target}: no such file or folder (${inRepo.split(sep).join('/')})`;
  if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) return undefined;
  if (anchors(resolved).has(decodeURIComponent(anchor).toLowerCase())) return undefined;
  return `${target}: no heading in ${inRepo.split(sep).join('/') || 'this file'} has the anchor #${anchor}`;
}

describe('links between the documents', () => {
  it('are read as GitHub reads them: slugs, repeated headings, code left out', () => {
    expect(headingSlug('Record or replay, by mode: `tapedeck run`')).toBe(
      'record-or-replay-by-mode-tapedeck-run',
    );
    expect(headingSlug('Remote servers (Streamable HTTP and legacy SSE)')).toBe(
      'remote-servers-streamable-http-and-legacy-sse',
    );
    expect(headingSlug('tapedeck as an MCP server')).toBe('tapedeck-as-an-mcp-server');
    expect(headingSlug('See [the viewer](viewer.md) — live')).toBe('see-the-viewer--live');
    expect([...markdownAnchors('# Replay\n## Over HTTP\n```\n# not a heading\n```\n## Over HTTP\n')]).toEqual(
      ['replay', 'over-http', 'over-http-1'],
    );
    const text =
      'A [guide](docs/a.md#x) and ![a picture](p.png "title").\n\n```\n[not](a-link.md)\n```\n`[no](b.md)`\n[ref]: <c d.md>';
    expect(markdownLinks(text)).toEqual([
      { target: 'docs/a.md#x', line: 1 },
      { target: 'p.png', line: 1 },
      { target: 'c d.md', line: 7 },
    ]);
  });

  it('find what a broken link is missing: the file, the anchor, or the repository', () => {
    const readme = join(root, 'README.md');
    expect(broken(readme, 'no-such-file.md')).toMatch(/no such file/);
    expect(broken(readme, '#no-such-heading-anywhere')).toMatch(/no heading in README.md/);
    expect(broken(readme, '../outside.md')).toMatch(/outside the repository/);
    expect(broken(readme, 'https://example.com/x.md#y')).toBeUndefined();
  });

  it('resolve, in README.md, ARCHITECTURE.md, CHANGELOG.md and docs/', () => {
    expect(DOCUMENTS.length).toBeGreaterThan(3);
    const found = DOCUMENTS.flatMap((file) =>
      markdownLinks(readFileSync(file, 'utf8')).flatMap(({ target, line }) => {
        const why = broken(file, target);
        return why === undefined ? [] : [`${relative(root, file).split(sep).join('/')}:${line}: ${why}`];
      }),
    );
    expect(found).toEqual([]);
  });
});
