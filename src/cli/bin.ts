#!/usr/bin/env node
import { discardEarly, startEarly } from './early-spawn.js';

const argv = process.argv.slice(2);
// Before anything else is loaded: `record -- <server>` starts the server now, so it boots while tapedeck loads.
startEarly(argv);
// Loaded only now (a static import would be loaded before the line above runs).
const { run } = await import('./main.js');
const code = await run(argv);
discardEarly();
// Exit explicitly: a proxy's stdin may still be open, and everything worth writing has been written by now.
process.exit(code);
