/**
 * The response headers every page of the web viewer is served with, by `tapedeck view` and by the collector: no
 * other site may frame it (clickjacking), scripts and styles come from the viewer's own files only, nothing is
 * fetched or opened elsewhere (`connect-src 'self'` still lets it reach its own server and live websocket), and
 * the URL — `tapedeck view` puts its token there — is never sent to another site as a Referer. The self-contained
 * `tapedeck report` page carries its own, stricter policy as a meta tag (src/cli/viewer-assets.ts).
 */
export const VIEWER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; media-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};
