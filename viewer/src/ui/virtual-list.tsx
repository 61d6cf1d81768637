import type { ComponentChild } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface VirtualListProps {
  count: number;
  /** Every row has this height in pixels; that is what makes 100k rows cheap. */
  rowHeight: number;
  render: (index: number) => ComponentChild;
  /** Bring this row into view when it changes (a selection from a link, or from the keyboard). */
  scrollToIndex?: number | undefined;
  class?: string;
  /** Extra rows rendered above and below the window, so fast scrolling shows no gaps. */
  overscan?: number;
  onKeyDown?: (event: KeyboardEvent) => void;
  label?: string;
  /** A list of options to pick (the default), or a grid of rows with cells (`role="row"`, `role="gridcell"`). */
  role?: 'listbox' | 'grid' | undefined;
  /** Keep the last row in view as rows are added (a followed trace, at its end). */
  pinned?: boolean | undefined;
  /** Told whether the last row is in view after each scroll. */
  onAtBottom?: ((atBottom: boolean) => void) | undefined;
  /** Something laid over the bottom of the list as it scrolls (the "N new ↓" marker). */
  overlay?: ComponentChild | undefined;
  /** The id of the selected row's element, for assistive technology (`aria-activedescendant`). */
  activeId?: string | undefined;
  /** Told which rows are in view (first, and one past the last; overscan left out) whenever that changes. */
  onWindow?: ((first: number, end: number) => void) | undefined;
}

/**
 * A scrolling list that renders only the rows in view: a spacer as tall as every row together, and the visible
 * slice moved into place. Rows must all be `rowHeight` tall.
 */
export function VirtualList(props: VirtualListProps) {
  const { count, rowHeight, overscan = 12 } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(800);
  const frame = useRef(0);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setHeight(el.clientHeight || 800);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 800));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // Once per index: a row named before the rows up to it have arrived (a file still loading) is scrolled to when
  // it arrives, and the user's scrolling afterwards is left alone.
  const scrolledTo = useRef<number | undefined>(undefined);
  useEffect(() => {
    const el = ref.current;
    const index = props.scrollToIndex;
    if (!el || index === undefined || index < 0 || index >= count) return;
    if (scrolledTo.current === index) return;
    scrolledTo.current = index;
    const rowTop = index * rowHeight;
    if (rowTop < el.scrollTop || rowTop + rowHeight > el.scrollTop + el.clientHeight) {
      el.scrollTop = Math.max(0, rowTop - el.clientHeight / 3);
      setTop(el.scrollTop);
    }
  }, [props.scrollToIndex, rowHeight, count]);

  // Pinned: rows added below are scrolled into view in the same frame they are drawn.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !props.pinned) return;
    const end = Math.max(0, count * rowHeight - el.clientHeight);
    if (el.scrollTop < end) {
      el.scrollTop = end;
      setTop(el.scrollTop);
    }
  }, [count, props.pinned, rowHeight]);

  const bottom = useRef(true);
  const onScroll = () => {
    const el = ref.current;
    if (el && props.onAtBottom) {
      const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight / 2;
      if (atBottom !== bottom.current) {
        bottom.current = atBottom;
        props.onAtBottom(atBottom);
      }
    }
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      if (ref.current) setTop(ref.current.scrollTop);
    });
  };

  const seenFirst = Math.min(count, Math.floor(top / rowHeight));
  const seenEnd = Math.min(count, Math.ceil((top + height) / rowHeight));
  const onWindow = props.onWindow;
  useEffect(() => onWindow?.(seenFirst, seenEnd), [seenFirst, seenEnd, onWindow]);

  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((top + height) / rowHeight) + overscan);
  const rows: ComponentChild[] = [];
  for (let i = first; i < last; i++) rows.push(props.render(i));
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the role is a listbox or a grid, both interactive
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: a listbox and a grid both take a label
    <div
      class={`vlist ${props.class ?? ''}`}
      ref={ref}
      onScroll={onScroll}
      tabIndex={0}
      onKeyDown={props.onKeyDown}
      role={props.role ?? 'listbox'}
      aria-label={props.label}
      aria-activedescendant={props.activeId}
      data-count={count}
    >
      <div class="vlist-spacer" style={{ height: `${count * rowHeight}px` }}>
        <div class="vlist-window" style={{ transform: `translateY(${first * rowHeight}px)` }}>
          {rows}
        </div>
      </div>
      {props.overlay ? <div class="vlist-overlay">{props.overlay}</div> : null}
    </div>
  );
}

/**
 * Arrow keys, Page Up/Down, Home and End over a list: the index to select next, or undefined for other keys.
 *
 * @example const next = keyStep(event, current, rows.length, 20); if (next !== undefined) select(next);
 */
export function keyStep(
  event: KeyboardEvent,
  current: number,
  count: number,
  page: number,
): number | undefined {
  const at = current < 0 ? -1 : current;
  let next: number;
  switch (event.key) {
    case 'ArrowDown':
    case 'j':
      next = at + 1;
      break;
    case 'ArrowUp':
    case 'k':
      next = at - 1;
      break;
    case 'PageDown':
      next = at + page;
      break;
    case 'PageUp':
      next = at - page;
      break;
    case 'Home':
      next = 0;
      break;
    case 'End':
      next = count - 1;
      break;
    default:
      return undefined;
  }
  event.preventDefault();
  return Math.max(0, Math.min(count - 1, next));
}
