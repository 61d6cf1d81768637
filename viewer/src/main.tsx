import { render } from 'preact';
import { readBoot } from './data/boot.js';
import { App } from './ui/app.js';
import './styles.css';

render(<App boot={readBoot(document)} />, document.getElementById('app')!);
