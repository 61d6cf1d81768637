import type { Json } from 'mcp-tapedeck/trace';
import type { ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import { Marked, useFirstMatch } from './highlight.js';

/** Strings longer than this are cut until asked for (a base64 image can be megabytes). */
const LONG_STRING = 400;
/** Strings up to this long open whole when the search matches past the cut. */
const OPEN_FOR_MATCH = 100_000;
/** Arrays and objects show this many members until asked for more. */
const PAGE = 100;

export interface JsonTreeProps {
  value: Json | undefined;
  /** Levels shown open at first. */
  open?: number;
}

/**
 * Pretty JSON as a tree: objects and arrays fold, long strings are cut with a way to see all of it, big arrays
 * show a page at a time. Only open branches are rendered, so a huge result costs nothing until unfolded.
 */
export function JsonTree({ value, open = 2 }: JsonTreeProps) {
  return (
    <div class="json">
      <Node value={value ?? null} depth={0} open={open} name={undefined} last />
    </div>
  );
}

interface NodeProps {
  name: string | number | undefined;
  value: Json;
  depth: number;
  open: number;
  last: boolean;
}

function Node({ name, value, depth, open, last }: NodeProps) {
  const [expanded, setExpanded] = useState(depth < open);
  const [shown, setShown] = useState(PAGE);
  const label =
    name === undefined ? null : (
      <span class={typeof name === 'number' ? 'j-index' : 'j-key'}>
        {typeof name === 'number' ? name : <Marked text={JSON.stringify(name)} />}
        <span class="j-punct">: </span>
      </span>
    );
  const comma = last ? null : <span class="j-punct">,</span>;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="j-line" style={{ paddingLeft: `${depth * 14}px` }}>
        {label}
        <Scalar value={value} />
        {comma}
      </div>
    );
  }
  const entries: [string | number, Json][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  const [openBrace, closeBrace] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div class="j-line" style={{ paddingLeft: `${depth * 14}px` }}>
        {label}
        <span class="j-punct">
          {openBrace}
          {closeBrace}
        </span>
        {comma}
      </div>
    );
  }
  const count = Array.isArray(value) ? `${entries.length} items` : `${entries.length} keys`;
  const toggle = (
    <button
      type="button"
      class="j-toggle"
      aria-expanded={expanded}
      onClick={() => setExpanded(!expanded)}
      title={expanded ? 'fold' : 'unfold'}
    >
      {expanded ? '▾' : '▸'}
    </button>
  );
  if (!expanded) {
    return (
      <div class="j-line" style={{ paddingLeft: `${depth * 14}px` }}>
        {toggle}
        {label}
        <button type="button" class="j-folded" onClick={() => setExpanded(true)}>
          {openBrace} {count} {closeBrace}
        </button>
        {comma}
      </div>
    );
  }
  const children: ComponentChild[] = entries
    .slice(0, shown)
    .map(([k, v], i) => (
      <Node key={k} name={k} value={v} depth={depth + 1} open={open} last={i === entries.length - 1} />
    ));
  return (
    <div>
      <div class="j-line" style={{ paddingLeft: `${depth * 14}px` }}>
        {toggle}
        {label}
        <span class="j-punct">{openBrace}</span>
      </div>
      {children}
      {entries.length > shown ? (
        <div class="j-line" style={{ paddingLeft: `${(depth + 1) * 14}px` }}>
          <button type="button" class="j-more" onClick={() => setShown(shown + PAGE * 10)}>
            … {entries.length - shown} more
          </button>
        </div>
      ) : null}
      <div class="j-line" style={{ paddingLeft: `${depth * 14}px` }}>
        <span class="j-punct">{closeBrace}</span>
        {comma}
      </div>
    </div>
  );
}

function Scalar({ value }: { value: string | number | boolean | null }) {
  const [full, setFull] = useState(false);
  // A search match past the cut: show the whole string, or the match would be hidden (not for megabytes of base64).
  const match = useFirstMatch(
    typeof value === 'string' && value.length > LONG_STRING && value.length <= OPEN_FOR_MATCH ? value : '',
  );
  if (typeof value !== 'string')
    return (
      <span class={`j-${value === null ? 'null' : typeof value}`}>
        <Marked text={String(value)} />
      </span>
    );
  if (value.length <= LONG_STRING || full || match >= LONG_STRING - 20)
    return (
      <span class="j-string">
        <Marked text={JSON.stringify(value)} />
      </span>
    );
  return (
    <span class="j-string">
      <Marked text={JSON.stringify(value.slice(0, LONG_STRING)).slice(0, -1)} />
      <button type="button" class="j-more" onClick={() => setFull(true)}>
        … {value.length - LONG_STRING} more characters
      </button>
      "
    </span>
  );
}
