import { render } from 'preact';
import { chooseSource } from './source/boot.js';
import { App } from './ui/app.js';
import { EmbedLink, isEmbedded } from './ui/embed.js';
import './styles.css';

// Embed mode hides the page's chrome with one class on the root (actions.css), so the views need not know.
const embedded = isEmbedded(location.href);
if (embedded) document.documentElement.classList.add('embed');
render(
  <>
    <App page={chooseSource(document, location.href)} />
    {embedded ? <EmbedLink /> : null}
  </>,
  document.getElementById('app')!,
);
