/**
 * The README is a front page: a two-command quick start first (the commands package.json runs), links to the
 * documentation and the source map on its first screen, a guide table that reaches every guide in docs/, and no
 * more than a page or two. Each guide opens with a list of its sections, so any feature is two clicks from the
 * README: the guide table, then the guide's list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingSlug, markdownLinks, proseLines } from './markdown-links.js';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\r\n/g, '\n');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** The README's longest allowed length, in lines: a front page, not a manual. */
const MAX_LINES = 400;
/** How many lines a first screen shows. */
const FIRST_SCREEN = 40;

const guides = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .sort();

describe('the README', () => {
  it(`is a front page of at most ${MAX_LINES} lines`, () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(MAX_LINES);
  });

  it('starts with a quick start of exactly two commands, both scripts package.json runs', () => {
    const sections = readme.match(/^## .*$/gm) ?? [];
    expect(sections[0]).toBe('## Quick start');
    const block = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== '');
    expect(commands).toEqual(['npm install && npm start', 'npm test']);
    expect(pkg.scripts.start).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
  });

  it('links the guides and ARCHITECTURE.md on its first screen', () => {
    const targets = markdownLinks(readme.split('\n').slice(0, FIRST_SCREEN).join('\n')).map(
      (link) => link.target,
    );
    expect(targets).toContain('ARCHITECTURE.md');
    expect(targets).toContain('docs/README.md');
  });

  it('reaches every guide in docs/ and every reference page', () => {
    const targets = new Set(markdownLinks(readme).map((link) => link.target.split('#')[0]));
    const reference = readdirSync(join(root, 'docs', 'reference')).filter((name) => name.endsWith('.md'));
    expect(guides.length).toBeGreaterThan(5);
    for (const guide of guides) expect(targets, guide).toContain(`docs/${guide}`);
    for (const page of reference) expect(targets, page).toContain(`docs/reference/${page}`);
  });
});

describe('each guide', () => {
  it.each(guides)('%s opens with a list that links every one of its sections', (guide) => {
    const text = readFileSync(join(root, 'docs', guide), 'utf8');
    const sections = proseLines(text)
      .map((line, index) => (/^## /.test(line) ? text.split(/\r?\n/)[index]!.slice(3) : undefined))
      .filter((heading) => heading !== undefined);
    const firstSection = text.search(/^## /m);
    const opening = new Set(
      markdownLinks(firstSection === -1 ? text : text.slice(0, firstSection)).map((link) => link.target),
    );
    expect(sections.length).toBeGreaterThan(1);
    for (const heading of sections) expect(opening, heading).toContain(`#${headingSlug(heading)}`);
  });
});
