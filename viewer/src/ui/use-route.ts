import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatHash, parseHash, type Route, withParams } from '../route.js';

export interface RouteApi {
  route: Route;
  /** Go somewhere: `push` adds a history entry (views), `replace` does not (selection, filters). */
  go: (next: Route, how?: 'push' | 'replace') => void;
  /** Change some parameters of the current route. */
  set: (changes: Record<string, string | undefined>, how?: 'push' | 'replace') => void;
}

/** The route in the URL hash as state: changes write the hash, the back button reads it. */
export function useRoute(): RouteApi {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const read = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', read);
    addEventListener('popstate', read);
    return () => {
      removeEventListener('hashchange', read);
      removeEventListener('popstate', read);
    };
  }, []);
  const go = useCallback((next: Route, how: 'push' | 'replace' = 'push') => {
    const hash = formatHash(next);
    if (hash !== location.hash) history[how === 'push' ? 'pushState' : 'replaceState'](null, '', hash);
    setRoute(parseHash(hash));
  }, []);
  const set = useCallback(
    (changes: Record<string, string | undefined>, how: 'push' | 'replace' = 'replace') =>
      go(withParams(parseHash(location.hash), changes), how),
    [go],
  );
  return { route, go, set };
}

/** Re-renders when the model says something changed; returns its version. */
export function useVersion(
  model: { version: number; subscribe(fn: () => void): () => void } | undefined,
): number {
  const [, setTick] = useState(0);
  const version = model?.version ?? 0;
  useEffect(() => {
    if (!model) return;
    const unsubscribe = model.subscribe(() => setTick((n) => n + 1));
    // Changes between the render and this subscription (a small file reads that fast) would be missed otherwise.
    if (model.version !== version) setTick((n) => n + 1);
    return unsubscribe;
  }, [model]);
  return version;
}
