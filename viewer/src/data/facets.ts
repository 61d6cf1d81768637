import type { TraceModel } from './model.js';
import { hasTransportLines } from './transport.js';

/** What the filter bar offers to pick from, read from the traces open now. */
export interface Facets {
  /** Tool names called, sorted. */
  tools: string[];
  /** Methods sent either way, sorted. */
  methods: string[];
  /** `server` values of multi-server traces, and each trace's name when several are open. */
  servers: string[];
  /** tools/call requests across the open traces. */
  calls: number;
  /** Whether any open trace holds HTTP envelope lines. */
  transport: boolean;
}

/**
 * The filter bar's choices for the traces open now: a trace closed takes the tools, methods and servers only it
 * had with it.
 *
 * @example facetsOf(model).tools // → ['echo', 'get-sum']
 */
export function facetsOf(model: TraceModel | undefined): Facets {
  const tools = new Set<string>();
  const methods = new Set<string>();
  let calls = 0;
  let transport = false;
  for (const source of model?.sources ?? []) {
    for (const t of source.tools) tools.add(t);
    for (const m of source.methods) methods.add(m);
    calls += source.calls;
    transport ||= hasTransportLines(source);
  }
  const servers = model
    ? [
        ...new Set([
          ...model.servers(),
          ...(model.sources.length > 1 ? model.sources.map((s) => s.info.name) : []),
        ]),
      ]
    : [];
  return { tools: [...tools].sort(), methods: [...methods].sort(), servers, calls, transport };
}
