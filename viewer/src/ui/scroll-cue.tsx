import { useCallback, useRef, useState } from 'preact/hooks';

/**
 * Whether a box scrolled sideways has more to its right (a table wider than a phone): measured as it scrolls, as
 * it is resized and as what it holds grows. `ref` is a callback ref, so a box drawn later (figures that came from
 * the server) is measured too.
 *
 * @example const scroll = useScrollCue(); <div ref={scroll.ref} onScroll={scroll.update}>…<ScrollCue more={scroll.more} /></div>
 */
export function useScrollCue() {
  const box = useRef<HTMLDivElement | null>(null);
  const observer = useRef<ResizeObserver | undefined>(undefined);
  const [more, setMore] = useState(false);
  const update = useCallback(() => {
    const el = box.current;
    if (el) setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
  }, []);
  const ref = useCallback((el: HTMLDivElement | null) => {
    observer.current?.disconnect();
    observer.current = undefined;
    box.current = el;
    if (!el) return;
    update();
    if (typeof ResizeObserver === 'undefined') return;
    observer.current = new ResizeObserver(update);
    observer.current.observe(el);
    if (el.firstElementChild) observer.current.observe(el.firstElementChild);
  }, []);
  return { ref, more, update };
}

/** The word under a table that scrolls sideways: there are more columns to the right. */
export function ScrollCue({ more }: { more: boolean }) {
  if (!more) return null;
  return (
    <span class="scroll-cue" aria-hidden="true">
      more columns →
    </span>
  );
}
