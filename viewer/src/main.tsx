import { render } from 'preact';
import { chooseSource } from './source/boot.js';
import { pagedSource } from './source/paged-api.js';
import { App } from './ui/app.js';
import { EmbedLink, isEmbedded } from './ui/embed.js';
import './styles.css';
import './styles/marks.css';
import './styles/page.css';
import './styles/narrow.css';

// Embed mode hides the page's chrome with one class on the root (actions.css), so the views need not know.
const embedded = isEmbedded(location.href);
if (embedded) document.documentElement.classList.add('embed');
// A trace `tapedeck view` serves a page at a time is paged through its API; every other page reads whole traces.
const paged = pagedSource(document, location.href);
render(
  <>
    <App page={chooseSource(document, location.href)} paged={paged} />
    {embedded ? <EmbedLink /> : null}
  </>,
  document.getElementById('app')!,
);
