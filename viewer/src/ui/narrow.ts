import { useEffect, useState } from 'preact/hooks';

/**
 * Phones and narrow windows: below this width rows take two lines (what a row says would not fit on one), the filter
 * bar folds its filters behind one button, and tables scroll sideways. narrow.css uses the same width.
 */
export const NARROW_QUERY = '(max-width: 640px)';
/** Below this width the detail pane sits under the list instead of beside it (styles.css). */
export const STACKED_QUERY = '(max-width: 900px)';

/** Row heights of the lists: one line, or two on a narrow screen. */
export const ROW_HEIGHTS = { wide: 26, narrow: 44 } as const;

/**
 * Whether a media query matches now, following the window as it is resized or turned.
 *
 * @example const narrow = useMedia(NARROW_QUERY);
 */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const changed = () => setMatches(list.matches);
    list.addEventListener('change', changed);
    changed();
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}

/** Whether the page is narrow (two-line rows). */
export function useNarrow(): boolean {
  return useMedia(NARROW_QUERY);
}
