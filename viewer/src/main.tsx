import { render } from 'preact';
import { chooseSource } from './source/boot.js';
import { App } from './ui/app.js';
import './styles.css';
import './styles/marks.css';
import './styles/page.css';
import './styles/narrow.css';

render(<App page={chooseSource(document, location.href)} />, document.getElementById('app')!);
