/**
 * Every view, selection and filter lives in the URL hash, so any screen is a link:
 *
 *   #/                                  home: open files, or the collector's traces
 *   #/<view>?sel=0.42&q=…               the open files (tapedeck view, a report, dropped files)
 *   #/trace/<id>/<view>?sel=0.42        a trace on the collector (followed live while it is recorded)
 *   #/share/<id>/<view>                 a trace a share link opens
 *   #trace=<id>, #share=<id>            the collector's own links, read as the two above
 *
 * Views: timeline, waterfall, calls, tools, diff, raw, agent (an LLM trace open beside MCP traces). Parameters: sel (row key `<source>.<seq>[.<item>]`), q (search), re=1
 * (q is a regular expression), tool, method, dir (in|out), server, err=1 (errors only), sort (calls column,
 * `-` prefix for descending), src (source shown in tools/raw), file and line (raw), a and b (diff sides), pair
 * (a diff row), span (the waterfall's zoom, `<from>-<to>` in ms from the start).
 */

export const VIEWS = ['timeline', 'waterfall', 'calls', 'tools', 'diff', 'raw', 'agent'] as const;
export type ViewName = (typeof VIEWS)[number];

/** A trace the collector serves: by its id, or through a share link. */
export interface Remote {
  kind: 'trace' | 'share';
  id: string;
}

export interface Route {
  /** The collector trace the page shows, if any. */
  remote: Remote | undefined;
  view: ViewName | 'home';
  params: Readonly<Record<string, string>>;
}

/**
 * Reads a location hash.
 *
 * @example parseHash('#/trace/abc/calls?sel=0.4') // → { remote: { kind: 'trace', id: 'abc' }, view: 'calls', params: { sel: '0.4' } }
 */
export function parseHash(hash: string): Route {
  const body = hash.replace(/^#/, '');
  // The collector's links: `#trace=<id>` and `#share=<id>`.
  const link = /^(trace|share)=([A-Za-z0-9_-]+)$/.exec(body);
  if (link)
    return { remote: { kind: link[1] as Remote['kind'], id: link[2]! }, view: 'timeline', params: {} };
  const cut = body.indexOf('?');
  const path = (cut === -1 ? body : body.slice(0, cut)).split('/').filter((p) => p !== '');
  const params: Record<string, string> = {};
  if (cut !== -1) for (const [k, v] of new URLSearchParams(body.slice(cut + 1))) params[k] = v;
  let remote: Remote | undefined;
  if ((path[0] === 'trace' || path[0] === 'share') && path[1] !== undefined) {
    remote = { kind: path[0], id: decodeURIComponent(path[1]) };
    path.splice(0, 2);
  }
  const name = path[0];
  const view = (VIEWS as readonly string[]).includes(name ?? '')
    ? (name as ViewName)
    : remote
      ? 'timeline'
      : 'home';
  return { remote, view, params };
}

/**
 * Writes a route as a hash; empty parameters are left out.
 *
 * @example formatHash({ remote: undefined, view: 'timeline', params: { q: 'echo' } }) // → '#/timeline?q=echo'
 */
export function formatHash(route: Route): string {
  const prefix =
    route.remote === undefined ? '' : `/${route.remote.kind}/${encodeURIComponent(route.remote.id)}`;
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
