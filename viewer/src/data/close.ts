import { facetsOf } from './facets.js';
import type { TraceModel } from './model.js';

/** Link parameters that name one trace by its index: the Tools/Raw trace, the diff's two sides. */
const TRACE_PARAMS = ['src', 'a', 'b'] as const;

/**
 * What the link must lose once a trace is closed (call it after TraceModel.removeSource): the selection when the
 * selected row was that trace's (a row of a trace that stays stays selected), the trace the Tools, Raw and Diff
 * views were showing when it was that one (with the Raw view's file and line), the diff's picked pair (its
 * alignment changed), and a tool, method or server filter nothing open matches any more, which would otherwise
 * hide every row behind a choice the filter bar no longer offers. Each key maps to undefined: remove it.
 *
 * @example paramsAfterClose(model, 1, { sel: '1.4', tool: 'echo' }) // → { sel: undefined, pair: undefined } when another trace calls echo
 */
export function paramsAfterClose(
  model: TraceModel,
  closed: number,
  params: Readonly<Record<string, string>>,
): Record<string, undefined> {
  const gone: Record<string, undefined> = { pair: undefined };
  if (params.sel !== undefined && Number.parseInt(params.sel, 10) === closed) gone.sel = undefined;
  for (const name of TRACE_PARAMS) {
    const value = params[name];
    if (value !== undefined && Number(value) === closed) gone[name] = undefined;
  }
  if ('src' in gone) {
    gone.file = undefined;
    gone.line = undefined;
  }
  const facets = facetsOf(model);
  // Tool and method filters match a part of the name, as the filter does (filter.ts).
  const matches = (names: readonly string[], value: string) => {
    const part = value.trim().toLowerCase();
    return names.some((name) => name.toLowerCase().includes(part));
  };
  if (params.tool && !matches(facets.tools, params.tool)) gone.tool = undefined;
  if (params.method && !matches(facets.methods, params.method)) gone.method = undefined;
  // The server picker shows only when there are several to pick from.
  if (params.server && (facets.servers.length < 2 || !facets.servers.includes(params.server)))
    gone.server = undefined;
  return gone;
}
