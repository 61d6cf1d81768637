/** Query parameter names that carry credentials often enough that a trace never keeps their values. */
const SECRET_QUERY = /key|token|secret|auth|pass|pwd|sig|credential|code|session_?key/i;

/** The marker a hidden URL part is replaced with (the same shape as the redaction engine's markers). */
const USERINFO_MARKER = '[REDACTED:url-userinfo]';
const QUERY_MARKER = '[REDACTED:url-query]';

/**
 * A URL fit for a trace or a terminal: user name and password dropped, values of credential-like query
 * parameters (`api_key`, `token`, `sig`, `code` …) replaced by a marker. Relative URLs (`/mcp?x=1`) work too.
 *
 * @example shownUrl('https://me:pw@mcp.example.com/mcp?api_key=abc&v=2') === 'https://[REDACTED:url-userinfo]@mcp.example.com/mcp?api_key=[REDACTED:url-query]&v=2'
 */
export function shownUrl(url: string): string {
  let out = url;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(out);
  if (scheme) {
    const rest = out.slice(scheme[0].length);
    const end = rest.search(/[/?#]/);
    const authority = end < 0 ? rest : rest.slice(0, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      out = `${scheme[0]}${USERINFO_MARKER}@${authority.slice(at + 1)}${end < 0 ? '' : rest.slice(end)}`;
    }
  }
  const query = out.indexOf('?');
  if (query < 0) return out;
  const hash = out.indexOf('#', query);
  const search = out.slice(query + 1, hash < 0 ? undefined : hash);
  const hidden = search
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = safeDecode(pair.slice(0, eq));
      return SECRET_QUERY.test(name) && pair.length > eq + 1 ? `${pair.slice(0, eq)}=${QUERY_MARKER}` : pair;
    })
    .join('&');
  return `${out.slice(0, query + 1)}${hidden}${hash < 0 ? '' : out.slice(hash)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * A label for a recording of `upstream`: its host, with the port when one is given.
 *
 * @example upstreamLabel(new URL('http://127.0.0.1:3001/mcp')) === '127.0.0.1-3001'
 */
export function upstreamLabel(upstream: URL): string {
  const host = upstream.hostname.replace(/^\[|\]$/g, '').replace(/:/g, '-');
  return upstream.port === '' ? host : `${host}-${upstream.port}`;
}

/**
 * The path and query to ask the upstream for, given what the client asked the proxy for. Paths map one to one
 * (the client talks to `http://127.0.0.1:PORT/mcp` for an upstream `http://host/mcp`). Query parameters given in
 * the upstream URL (an API key, say) are added to requests for the upstream's own path, unless the client sent
 * them itself — so a key can stay out of the client's configuration.
 *
 * @example upstreamPath('/mcp', new URL('https://h/mcp?key=k')) === '/mcp?key=k'
 */
export function upstreamPath(requestPath: string, upstream: URL): string {
  if (upstream.search === '') return requestPath;
  const query = requestPath.indexOf('?');
  const path = query < 0 ? requestPath : requestPath.slice(0, query);
  if (path !== upstream.pathname) return requestPath;
  const params = new URLSearchParams(query < 0 ? '' : requestPath.slice(query + 1));
  for (const [name, value] of upstream.searchParams) if (!params.has(name)) params.append(name, value);
  return `${path}?${params.toString()}`;
}
