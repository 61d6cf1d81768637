/**
 * Every view, selection and filter lives in the URL hash, so any screen is a link:
 *
 *   #/                                  home: open files, or the collector's traces
 *   #/<view>?sel=0.42&q=…               the open files (tapedeck view, a report, dropped files)
 *   #/trace/<id>/<view>?sel=0.42        a trace on the collector (followed live while it is recorded)
 *
 * Views: timeline, calls, tools, diff, raw. Parameters: sel (row key `<source>.<seq>[.<item>]`), q (search), re=1
 * (q is a regular expression), tool, method, dir (in|out), server, err=1 (errors only), sort (calls column,
 * `-` prefix for descending), src (source shown in tools/raw), file and line (raw), a and b (diff sides), pair
 * (a diff row).
 */

export const VIEWS = ['timeline', 'calls', 'tools', 'diff', 'raw'] as const;
export type ViewName = (typeof VIEWS)[number];

export interface Route {
  /** A collector trace id, when the page shows one. */
  trace: string | undefined;
  view: ViewName | 'home';
  params: Readonly<Record<string, string>>;
}

/**
 * Reads a location hash.
 *
 * @example parseHash('#/trace/abc/calls?sel=0.4') // → { trace: 'abc', view: 'calls', params: { sel: '0.4' } }
 */
export function parseHash(hash: string): Route {
  const body = hash.replace(/^#/, '');
  const cut = body.indexOf('?');
  const path = (cut === -1 ? body : body.slice(0, cut)).split('/').filter((p) => p !== '');
  const params: Record<string, string> = {};
  if (cut !== -1) for (const [k, v] of new URLSearchParams(body.slice(cut + 1))) params[k] = v;
  let trace: string | undefined;
  if (path[0] === 'trace' && path[1] !== undefined) {
    trace = decodeURIComponent(path[1]);
    path.splice(0, 2);
  }
  const name = path[0];
  const view = (VIEWS as readonly string[]).includes(name ?? '')
    ? (name as ViewName)
    : trace
      ? 'timeline'
      : 'home';
  return { trace, view, params };
}

/**
 * Writes a route as a hash; empty parameters are left out.
 *
 * @example formatHash({ trace: undefined, view: 'timeline', params: { q: 'echo' } }) // → '#/timeline?q=echo'
 */
export function formatHash(route: Route): string {
  const prefix = route.trace === undefined ? '' : `/trace/${encodeURIComponent(route.trace)}`;
  const view = route.view === 'home' ? (prefix === '' ? '' : '/timeline') : `/${route.view}`;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(route.params)) if (v !== '') query.set(k, v);
  const q = query.toString();
  return `#${prefix}${view || '/'}${q === '' ? '' : `?${q}`}`;
}

/** The route with some parameters changed (`undefined` or '' removes one). */
export function withParams(route: Route, changes: Record<string, string | undefined>): Route {
  const params: Record<string, string> = { ...route.params };
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') delete params[k];
    else params[k] = v;
  }
  return { ...route, params };
}
