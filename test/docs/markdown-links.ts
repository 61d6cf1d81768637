/**
 * What the link check reads of a Markdown file: its links (inline, images, reference definitions, HTML `href` and
 * `src`) with their line numbers, and the anchors its headings get on GitHub. Code — fenced blocks and code spans —
 * holds examples, not links, and is left out.
 */

/** A link as written, and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The file's lines with code blanked out: fenced blocks become empty lines and code spans spaces, so what is left
 * can be searched for links and headings without meeting examples (line numbers stay as they were).
 */
export function proseLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let fence: string | undefined;
  return lines.map((line) => {
    const opening = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length)
        fence = undefined;
      return '';
    }
    if (opening !== undefined) {
      fence = opening;
      return '';
    }
    return line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length));
  });
}

/**
 * Every link of a Markdown text: `[text](target)`, `![alt](target)`, `[id]: target` and HTML `href="…"` / `src="…"`.
 *
 * @example markdownLinks('See [the guide](docs/replay.md#over-http).') // → [{ target: 'docs/replay.md#over-http', line: 1 }]
 */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(text).forEach((line, index) => {
    const add = (target: string | undefined) => {
      if (target !== undefined && target !== '') links.push({ target, line: index + 1 });
    };
    // The destination: <anything but >> or a run without spaces; a "title" may follow.
    for (const match of line.matchAll(/\]\(\s*(?:<([^>]*)>|([^\s)]+))(?:\s+"[^"]*")?\s*\)/g))
      add(match[1] ?? match[2]);
    const definition = /^ {0,3}\[[^\]]+\]:\s*(?:<([^>]*)>|(\S+))/.exec(line);
    if (definition) add(definition[1] ?? definition[2]);
    for (const match of line.matchAll(/\b(?:href|src)="([^"]*)"/g)) add(match[1]);
  });
  return links;
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation dropped (letters, digits, `_`, `-` and spaces stay),
 * each space a hyphen. Markup is read as the text it shows: `code`, [a link](…), *emphasis*.
 *
 * @example headingSlug('Record or replay, by mode: `tapedeck run`') // → 'record-or-replay-by-mode-tapedeck-run'
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * Every anchor a Markdown text offers: its headings' slugs (a repeated one numbered `-1`, `-2` … as GitHub numbers
 * them) and the `id` / `name` of its HTML anchors.
 *
 * @example markdownAnchors('# Replay\n## Over HTTP\n## Over HTTP') // → Set { 'replay', 'over-http', 'over-http-1' }
 */
export function markdownAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const prose = proseLines(text);
  prose.forEach((line, index) => {
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    // The heading's own text, code spans included: proseLines blanked them, the original line has them.
    if (!/^ {0,3}#{1,6}\s/.test(line)) return;
    const heading = lines[index]!.replace(/^ {0,3}#{1,6}\s+/, '').replace(/\s+#+\s*$/, '');
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
}
