/**
 * One query over a trace's lines: what the viewer's search box and filters ask, what the paged view server answers
 * (`tapedeck view`), and what the collector's line pages are narrowed by. Every field is optional; they combine
 * with AND, and an empty query keeps every line. In links and on the wire a query is a set of URL parameters
 * (`q`, `re`, `tool`, `method`, `dir`, `kind`, `server`, `err`), so a filtered view is a link like any other.
 *
 * Where the lines are held decides how names are matched: the viewer and the paged server match `tool` and
 * `method` as parts of a name (case-insensitive), the collector's store as whole names (its indexed columns).
 */
export interface LineQuery {
  /** Text (case-insensitive), or with `regex` a regular expression, looked for in the message. */
  q?: string | undefined;
  regex?: boolean | undefined;
  /** The tools/call exchanges of this tool, with the messages that belong to them. */
  tool?: string | undefined;
  method?: string | undefined;
  /** `in`: client to server; `out`: server to client. */
  dir?: 'in' | 'out' | undefined;
  /** The kind of line: a JSON-RPC message, or one of the lines recorded beside messages. */
  kind?: LineKind | undefined;
  /** A `server` field value (or, in the viewer, the name of one of the open traces). */
  server?: string | undefined;
  /** `true`: failed calls and error lines only; `false`: none of them. */
  errors?: boolean | undefined;
}

/** The kinds of line a query can keep (DESIGN §3). */
export const LINE_KINDS = ['message', 'text', 'stderr', 'http', 'event'] as const;
export type LineKind = (typeof LINE_KINDS)[number];

/** The URL parameter of each field, in the fixed order links and cache keys use. */
const PARAMS = [
  ['q', 'q'],
  ['regex', 're'],
  ['tool', 'tool'],
  ['method', 'method'],
  ['dir', 'dir'],
  ['kind', 'kind'],
  ['server', 'server'],
  ['errors', 'err'],
] as const satisfies readonly (readonly [keyof LineQuery, string])[];

/**
 * The query a link's (or a request's) parameters name; parameters missing, empty or not understood are no filter.
 * `re=1` and `err=1` turn on; `err=0` asks for lines without errors.
 *
 * @example queryFromParams(new URLSearchParams('tool=echo&err=1')) // → { tool: 'echo', errors: true }
 */
export function queryFromParams(
  params: URLSearchParams | Readonly<Record<string, string | undefined>>,
): LineQuery {
  const get = (name: string) =>
    (params instanceof URLSearchParams ? params.get(name) : params[name])?.trim() || undefined;
  const query: LineQuery = {};
  const text = (field: 'q' | 'tool' | 'method' | 'server', name: string) => {
    const value = get(name);
    if (value !== undefined) query[field] = value;
  };
  text('q', 'q');
  text('tool', 'tool');
  text('method', 'method');
  text('server', 'server');
  if (get('re') === '1') query.regex = true;
  const dir = get('dir');
  if (dir === 'in' || dir === 'out') query.dir = dir;
  const kind = get('kind');
  if ((LINE_KINDS as readonly string[]).includes(kind ?? '')) query.kind = kind as LineKind;
  const err = get('err');
  if (err === '1') query.errors = true;
  else if (err === '0') query.errors = false;
  return query;
}

/**
 * A query as URL parameters, in a fixed order (fields that filter nothing are left out).
 *
 * @example new URLSearchParams(queryParams({ q: 'answer', regex: true })).toString() // → 'q=answer&re=1'
 */
export function queryParams(query: LineQuery): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, name] of PARAMS) {
    const value = typeof query[field] === 'string' ? (query[field] as string).trim() : query[field];
    if (value === undefined || value === '') continue;
    if (field === 'regex') {
      if (value === true && query.q?.trim()) out[name] = '1';
    } else if (field === 'errors') out[name] = value ? '1' : '0';
    else out[name] = String(value);
  }
  return out;
}

/** A query as a cache key: two queries that keep the same lines have the same key. */
export function queryKey(query: LineQuery): string {
  return new URLSearchParams(queryParams(query)).toString();
}

/** True when the query keeps every line. */
export function isEmptyQuery(query: LineQuery): boolean {
  return queryKey(query) === '';
}

/** A text test, or why the query's regular expression does not compile. */
export type TextMatch = { test(text: string): boolean; error?: undefined } | { error: string };

/**
 * The query's text search as a test of a text (case-insensitive); undefined when the query has none.
 *
 * @example (textMatch({ q: 'echo' }) as { test(t: string): boolean }).test('tools/call ECHO') // → true
 */
export function textMatch(query: LineQuery): TextMatch | undefined {
  const q = query.q?.trim() ?? '';
  if (q === '') return undefined;
  try {
    // Plain text is a regular expression of its escaped self: one case-insensitive scan, no lower-cased copy of
    // each line (a paged search reads every line of the file).
    const re = new RegExp(query.regex ? q : q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    return { test: (text) => re.test(text) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Whether a name (a method, a tool) passes a query's part-of-a-name filter (case-insensitive). */
export function nameMatches(filter: string | undefined, name: string | undefined): boolean {
  const wanted = filter?.trim().toLowerCase();
  if (!wanted) return true;
  return name?.toLowerCase().includes(wanted) ?? false;
}

/**
 * The line kind of a row kind (the viewer's and the paged server's rows split messages into requests, responses
 * and so on): whether a row passes a query's `kind`.
 *
 * @example kindMatches('message', 'response') // → true
 */
export function kindMatches(kind: LineKind | undefined, rowKind: string): boolean {
  if (kind === undefined) return true;
  const MESSAGE_ROWS = ['request', 'response', 'notification', 'orphan', 'invalid'];
  return kind === 'message' ? MESSAGE_ROWS.includes(rowKind) : kind === rowKind;
}
