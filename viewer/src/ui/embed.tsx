import './actions.css';

/**
 * Embed mode (`?embed=1` in the page's address): the view alone, without the title bar, tabs, filter bar and
 * status bar, for a page that frames the viewer (a dashboard, documentation, an editor's panel). Which view and
 * which rows show is the link's hash, as everywhere. Framing itself is the server's to allow: `tapedeck view`
 * sends `frame-ancestors 'none'` unless started with `--embed <origin>` (see src/base/viewer-headers.ts).
 */

/**
 * Whether the page was opened in embed mode.
 *
 * @example isEmbedded('http://127.0.0.1:7431/t0k3n/?embed=1#/waterfall') // → true
 */
export function isEmbedded(href: string): boolean {
  try {
    return new URL(href).searchParams.get('embed') === '1';
  } catch {
    return false;
  }
}

/**
 * The page's address without embed mode: the full viewer, same view and selection.
 *
 * @example fullViewerHref('http://h/t/?embed=1#/calls') // → 'http://h/t/#/calls'
 */
export function fullViewerHref(href: string): string {
  const url = new URL(href);
  url.searchParams.delete('embed');
  return url.href;
}

/** A small link in the corner of an embedded view that opens the full viewer in a tab of its own. */
export function EmbedLink() {
  return (
    <a
      class="embed-link"
      href={fullViewerHref(location.href)}
      target="_blank"
      rel="noopener noreferrer"
      title="Open this view in the full tapedeck viewer"
      // The view may have changed since the link was drawn: it opens what shows now.
      onClick={(event) => {
        (event.currentTarget as HTMLAnchorElement).href = fullViewerHref(location.href);
      }}
    >
      tapedeck ↗
    </a>
  );
}
