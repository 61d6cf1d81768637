import {
  type LineQuery,
  type PagedBarsPage,
  type PagedDensity,
  type PagedErrors,
  type PagedFound,
  type PagedInfo,
  type PagedRowsPage,
  type PagedStats,
  queryParams,
} from 'mcp-tapedeck/trace';
import type { PagedApi } from '../data/paged-api.js';
import type { BootPage } from './boot.js';

/**
 * The paged API of `tapedeck view` (src/view/paged/routes.ts) over fetch, relative to the page (every URL under
 * the server's token, which the page's address carries).
 *
 * @example const api = pagedApi(new URL('api/', location.href)); await api.info();
 */
export function pagedApi(base: URL): PagedApi {
  const url = (path: string, query: LineQuery = {}, extra: Record<string, string | number> = {}) => {
    const target = new URL(`paged/${path}`, base);
    for (const [k, v] of Object.entries({ ...queryParams(query), ...extra }))
      target.searchParams.set(k, String(v));
    return target;
  };
  const get = async <T>(target: URL): Promise<T> => {
    const response = await fetch(target, { headers: { accept: 'application/json' } });
    if (!response.ok)
      throw new Error(`${target.pathname.split('/').slice(-1)[0]} answered ${response.status}`);
    return (await response.json()) as T;
  };
  return {
    info: () => get<PagedInfo>(url('info')),
    rows: (query, from, count, early) =>
      get<PagedRowsPage>(url('rows', query, early ? { from, count, early: 1 } : { from, count })),
    find: async (query, key) => {
      const response = await fetch(url('find', query, { key }), { headers: { accept: 'application/json' } });
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`find answered ${response.status}`);
      return (await response.json()) as PagedFound;
    },
    bars: (query, from, to, start, count) =>
      get<PagedBarsPage>(url('bars', query, { from, to, start, count })),
    density: async (query, buckets) => (await get<PagedDensity>(url('density', query, { buckets }))).counts,
    errors: (query, key, step) =>
      get<PagedErrors>(url('errors', query, key === undefined ? { step } : { key, step })),
    stats: () => get<PagedStats>(url('stats')),
    exportUrl: (query) => url('export', query).href,
  };
}

/**
 * The paged API this page was made for, when `tapedeck view` serves a trace a page at a time (its config element
 * says `{"mode":"paged","api":"api/"}`); undefined otherwise.
 *
 * @example render(<App page={page} paged={pagedSource(document, location.href)} />, root);
 */
export function pagedSource(page: BootPage, href: string): PagedApi | undefined {
  const config = page.getElementById('tapedeck-config');
  if (!config?.textContent) return undefined;
  try {
    const parsed = JSON.parse(config.textContent) as { mode?: unknown; api?: unknown };
    if (parsed.mode !== 'paged') return undefined;
    return pagedApi(new URL(typeof parsed.api === 'string' ? parsed.api : 'api/', href));
  } catch {
    return undefined;
  }
}
