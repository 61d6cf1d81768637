import { useState } from 'preact/hooks';
import { STACKED_QUERY, useMedia } from './narrow.js';

/**
 * The handle between a list and the detail pane: drag it, or focus it and use the arrow keys, to give the detail
 * more or less room. Beside the list (wide screens) it sets the pane's width, below it (narrow ones) its height;
 * the size is kept for the next visit. Double-click (or Home) goes back to the default.
 */

const KEY = 'tapedeck.detail-size';
const STEP = 32;
/** Neither side gets smaller than this. */
const MIN = 160;

/** The detail pane's size in pixels, as last chosen (undefined: the stylesheet's default). */
export function useDetailSize(): [number | undefined, (size: number | undefined) => void] {
  const [size, setSize] = useState<number | undefined>(() => {
    const saved = Number(safeStorage()?.getItem(KEY));
    return Number.isFinite(saved) && saved > 0 ? saved : undefined;
  });
  const save = (next: number | undefined) => {
    setSize(next);
    const storage = safeStorage();
    if (next === undefined) storage?.removeItem(KEY);
    else storage?.setItem(KEY, String(Math.round(next)));
  };
  return [size, save];
}

/** localStorage, or undefined where the page may not use it (a report opened from disk with storage blocked). */
function safeStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export interface SplitterProps {
  size: number | undefined;
  setSize: (size: number | undefined) => void;
}

export function Splitter({ size, setSize }: SplitterProps) {
  const stacked = useMedia(STACKED_QUERY);
  // The element the list and the pane share; its direction says which way the handle moves.
  const layout = (el: Element) => {
    const parent = el.parentElement!;
    const column = getComputedStyle(parent).flexDirection === 'column';
    const rect = parent.getBoundingClientRect();
    const pane = el.nextElementSibling?.getBoundingClientRect();
    const current = pane ? (column ? pane.height : pane.width) : (size ?? 0);
    return { column, rect, current };
  };
  const clamp = (value: number, total: number) => Math.max(MIN, Math.min(total - MIN, value));
  const onPointerDown = (event: PointerEvent) => {
    const handle = event.currentTarget as HTMLElement;
    const { column, rect } = layout(handle);
    handle.setPointerCapture(event.pointerId);
    event.preventDefault();
    const move = (e: PointerEvent) =>
      setSize(
        column ? clamp(rect.bottom - e.clientY, rect.height) : clamp(rect.right - e.clientX, rect.width),
      );
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const { column, rect, current } = layout(event.currentTarget as HTMLElement);
    const total = column ? rect.height : rect.width;
    // Towards the list (left, up) gives the pane more room.
    const delta = { ArrowLeft: STEP, ArrowUp: STEP, ArrowRight: -STEP, ArrowDown: -STEP }[event.key];
    if (delta !== undefined) {
      event.preventDefault();
      setSize(clamp(current + delta, total));
    } else if (event.key === 'Home') {
      event.preventDefault();
      setSize(undefined);
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable separator is the ARIA pattern for a resize handle; <hr> cannot take focus or keys
    <div
      class="splitter"
      role="separator"
      aria-label="resize the detail pane"
      aria-orientation={stacked ? 'horizontal' : 'vertical'}
      aria-valuenow={size === undefined ? undefined : Math.round(size)}
      tabIndex={0}
      title="Drag, or use the arrow keys, to resize (double-click: default size)"
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDblClick={() => setSize(undefined)}
    />
  );
}
