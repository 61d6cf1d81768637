import type { ComponentChild } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { wrapLayout } from '../data/wrap-layout.js';

export interface WrappedListProps {
  count: number;
  /** Characters of item `i` (0-based), as far as the layout needs to know. */
  length: (i: number) => number;
  /** Characters of an item shown at most (longer ones are cut, with a note). */
  maxChars: number;
  /** Pixels of one visual line. */
  lineHeight: number;
  /** Characters each row spends before its text (a line number and the gap after it). */
  gutterChars: number;
  /** Pixels each row spends besides characters (padding, the scroll bar). */
  gutterPx: number;
  /** Item `i`, drawn `height` pixels tall. */
  render: (index: number, height: number) => ComponentChild;
  scrollToIndex?: number | undefined;
  onKeyDown?: (event: KeyboardEvent) => void;
  label?: string;
  class?: string;
  /** Changes when the items' text changes (a file still growing), to lay them out again. */
  version?: number;
}

/**
 * A scrolling list of monospace text whose items wrap: each item is as tall as the lines it wraps onto, worked out
 * from its length and the list's width in characters (data/wrap-layout.ts), so only the items in view are drawn,
 * however many there are. The list is measured once, and again when it is resized.
 */
export function WrappedList(props: WrappedListProps) {
  const { count, lineHeight, gutterChars, gutterPx } = props;
  const ref = useRef<HTMLDivElement>(null);
  const probe = useRef<HTMLSpanElement>(null);
  const [top, setTop] = useState(0);
  const [box, setBox] = useState({ height: 800, columns: 80 });

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const char = (probe.current?.getBoundingClientRect().width ?? 70) / 10 || 7;
      setBox({
        height: el.clientHeight || 800,
        columns: Math.max(8, Math.floor((el.clientWidth - gutterPx) / char) - gutterChars),
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [gutterChars, gutterPx]);

  const layout = useMemo(
    () =>
      wrapLayout(count, props.length, {
        columns: box.columns,
        rowHeight: lineHeight,
        maxChars: props.maxChars,
      }),
    [count, box.columns, lineHeight, props.maxChars, props.version],
  );

  // Once per index and width (a row named before it arrived is scrolled to when it does).
  const scrolledTo = useRef<string | undefined>(undefined);
  useEffect(() => {
    const el = ref.current;
    const index = props.scrollToIndex;
    if (!el || index === undefined || index < 0 || index >= count) return;
    const at = `${index}/${box.columns}`;
    if (scrolledTo.current === at) return;
    scrolledTo.current = at;
    const itemTop = layout.top(index);
    if (itemTop < el.scrollTop || itemTop + layout.heightOf(index) > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, itemTop - el.clientHeight / 3);
      setTop(el.scrollTop);
    }
  }, [props.scrollToIndex, layout]);

  const first = count === 0 ? 0 : Math.max(0, layout.indexAt(top) - 4);
  const last = count === 0 ? 0 : Math.min(count, layout.indexAt(top + box.height) + 5);
  const items: ComponentChild[] = [];
  for (let i = first; i < last; i++) items.push(props.render(i, layout.heightOf(i)));
  return (
    <div
      class={`vlist wrapped ${props.class ?? ''}`}
      ref={ref}
      onScroll={() => setTop(ref.current?.scrollTop ?? 0)}
      tabIndex={0}
      onKeyDown={props.onKeyDown}
      role="listbox"
      aria-label={props.label}
      data-count={count}
    >
      <span class="wrap-probe" ref={probe} aria-hidden="true">
        0000000000
      </span>
      <div class="vlist-spacer" style={{ height: `${layout.height}px` }}>
        <div class="vlist-window" style={{ transform: `translateY(${layout.top(first)}px)` }}>
          {items}
        </div>
      </div>
    </div>
  );
}
