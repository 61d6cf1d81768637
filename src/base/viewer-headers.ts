/**
 * The response headers every page of the web viewer is served with, by `tapedeck view` and by the collector: no
 * other site may frame it (clickjacking), scripts and styles come from the viewer's own files only, nothing is
 * fetched or opened elsewhere (`connect-src 'self'` still lets it reach its own server and live websocket), and
 * the URL — `tapedeck view` puts its token there — is never sent to another site as a Referer. The self-contained
 * `tapedeck report` page carries its own, stricter policy as a meta tag (src/view/viewer-assets.ts).
 */
export const VIEWER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; media-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/**
 * The same headers for a server that was asked to let some pages frame the viewer (`tapedeck view --embed
 * <origin>`, for the viewer's embed mode, `?embed=1`): `frame-ancestors` names exactly those origins and
 * X-Frame-Options, which can only say DENY or SAMEORIGIN, is left out. No origins: the default, no framing.
 *
 * @example viewerSecurityHeaders(['https://dash.example.com'])['content-security-policy'] // → "… frame-ancestors https://dash.example.com; …"
 */
export function viewerSecurityHeaders(frameAncestors: readonly string[] = []): Record<string, string> {
  if (frameAncestors.length === 0) return { ...VIEWER_SECURITY_HEADERS };
  const { 'x-frame-options': _deny, ...rest } = VIEWER_SECURITY_HEADERS;
  return {
    ...rest,
    'content-security-policy': VIEWER_SECURITY_HEADERS['content-security-policy']!.replace(
      "frame-ancestors 'none'",
      `frame-ancestors ${frameAncestors.join(' ')}`,
    ),
  };
}

/** `https://host`, `http://host:port`, `http://localhost:*`, `https://*.example.com`: an origin, no path. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(\*\.)?[a-z0-9.-]+(:(\d{1,5}|\*))?$/i;
/** A whole scheme: `vscode-webview:`, `https:`. */
const SCHEME = /^[a-z][a-z0-9+.-]*:$/i;

/**
 * One `--embed` value as a frame-ancestors source, or undefined when it is not one: an origin (`https://host`,
 * a port or `:*`, a `*.` subdomain wildcard), a scheme (`vscode-webview:`), `self` for the viewer's own origin,
 * or `*` for any page at all. A trailing slash is dropped; paths, quotes, spaces and `;` are refused, so a value
 * can never add a directive of its own.
 *
 * @example frameAncestor('https://dash.example.com/') // → 'https://dash.example.com'
 * @example frameAncestor("x; script-src *") // → undefined
 */
export function frameAncestor(value: string): string | undefined {
  const text = value.trim().replace(/\/$/, '');
  if (text === '*') return '*';
  if (text === 'self' || text === "'self'") return "'self'";
  if (ORIGIN.test(text) || SCHEME.test(text)) return text.toLowerCase();
  return undefined;
}
