import type { Json } from 'mcp-tapedeck/trace';
import { diffExcerpts, type Excerpt } from '../data/excerpt.js';

/** Characters of each side shown; the window sits on the first difference (data/excerpt.ts). */
const WIDTH = 160;

/**
 * One changed location of a diff, both sides as JSON, each cut to a window around where they first differ with the
 * differing part marked; a side without the value says so.
 */
export function ExcerptCells({ a, b }: { a: Json | undefined; b: Json | undefined }) {
  const left = a === undefined ? undefined : JSON.stringify(a);
  const right = b === undefined ? undefined : JSON.stringify(b);
  const [x, y] =
    left !== undefined && right !== undefined ? diffExcerpts(left, right, WIDTH) : [undefined, undefined];
  return (
    <>
      <td class="was">{cell(left, x)}</td>
      <td class="now">{cell(right, y)}</td>
    </>
  );
}

function cell(text: string | undefined, excerpt: Excerpt | undefined) {
  if (text === undefined) return <span class="muted">(absent)</span>;
  // Only one side: nothing to line up, show its start.
  const e = excerpt ?? {
    before: '',
    changed: text.slice(0, WIDTH),
    after: '',
    cutStart: false,
    cutEnd: text.length > WIDTH,
  };
  return (
    <code class="excerpt" title={text.length > WIDTH ? `${text.length} characters` : undefined}>
      {e.cutStart ? <span class="cut">…</span> : null}
      {e.before}
      {e.changed ? <mark class="changed">{e.changed}</mark> : null}
      {e.after}
      {e.cutEnd ? <span class="cut">…</span> : null}
    </code>
  );
}
