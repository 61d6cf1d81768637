/**
 * A URL's query as it was written: where it is and its `&`-separated pairs, untouched, and percent-decoding that
 * never throws. The HAR export lists the pairs; the redaction of URLs (src/redact/har.ts) rewrites them.
 */

/** One `name=value` pair as written; `value` is undefined for a bare `name`. */
export interface QueryPair {
  name: string;
  value: string | undefined;
}

/**
 * Where a URL's query is (after `?`, before `#`) and its `&`-separated pairs, as written.
 *
 * @example splitQuery('/mcp?a=1&b#top') // → { query: { start: 5, end: 10 }, pairs: [{ name: 'a', value: '1' }, { name: 'b', value: undefined }] }
 */
export function splitQuery(url: string): { query?: { start: number; end: number }; pairs: QueryPair[] } {
  const mark = url.indexOf('?');
  if (mark < 0) return { pairs: [] };
  const hash = url.indexOf('#', mark);
  const query = { start: mark + 1, end: hash < 0 ? url.length : hash };
  const pairs = url
    .slice(query.start, query.end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0
        ? { name: pair, value: undefined }
        : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
    });
  return { query, pairs };
}

/**
 * A query part decoded (`+` is a space); text that is not valid percent-encoding comes back as it was sent.
 *
 * @example decodeQuery('a+b%20c') // → 'a b c'
 */
export function decodeQuery(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    // Not valid percent-encoding: the text is what was sent.
    return raw;
  }
}
