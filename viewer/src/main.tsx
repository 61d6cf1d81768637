import { render } from 'preact';
import { chooseSource } from './source/boot.js';
import { pagedSource } from './source/paged-api.js';
import { App } from './ui/app.js';
import { EmbedLink, isEmbedded } from './ui/embed.js';
import { PagedApp } from './ui/paged-app.js';
import './styles.css';
import './styles/marks.css';
import './styles/page.css';
import './styles/narrow.css';

// Embed mode hides the page's chrome with one class on the root (actions.css), so the views need not know.
const embedded = isEmbedded(location.href);
if (embedded) document.documentElement.classList.add('embed');
// A trace `tapedeck view` serves a page at a time has a viewer of its own; every other page reads whole traces.
const paged = pagedSource(document, location.href);
render(
  <>
    {paged ? <PagedApp api={paged} /> : <App page={chooseSource(document, location.href)} />}
    {embedded ? <EmbedLink /> : null}
  </>,
  document.getElementById('app')!,
);
