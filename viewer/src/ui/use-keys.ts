import { useEffect, useRef } from 'preact/hooks';

/** What the page's own keys do; each is optional (a view without a list has no errors to step through). */
export interface PageKeys {
  /** `/`: to the search box. */
  search: () => void;
  /** Escape: close the detail pane. */
  close: () => void;
  /** `e` / `Shift+E`: the next / previous failed row. */
  stepError?: ((direction: 1 | -1) => void) | undefined;
  /** `?`: the sheet of shortcuts, shown or put away. */
  help?: (() => void) | undefined;
}

/** Keys for the whole page, ignored while typing in a field (and with Ctrl, Alt or Meta held). */
export function usePageKeys(keys: PageKeys): void {
  // The latest handlers, read when a key is pressed: one listener for the page's life.
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const keys = current.current;
      const target = event.target as HTMLElement | null;
      const typing =
        target?.tagName === 'INPUT' || target?.tagName === 'TEXTAREA' || target?.tagName === 'SELECT';
      if (typing || event.ctrlKey || event.altKey || event.metaKey) return;
      if (event.key === '/') {
        event.preventDefault();
        keys.search();
      } else if (event.key === '?' && keys.help) {
        event.preventDefault();
        keys.help();
      } else if (event.key === 'Escape') keys.close();
      else if ((event.key === 'e' || event.key === 'E') && keys.stepError) {
        event.preventDefault();
        keys.stepError(event.shiftKey ? -1 : 1);
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}
