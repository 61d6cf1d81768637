#!/usr/bin/env node
import { discardEarly, startEarly } from './early-spawn.js';

// Built as CommonJS (dist/cli/tapedeck.cjs, what npm links as `tapedeck`): Node starts and loads CommonJS sooner
// than ES modules, which a server started per session, or a mock started per test, waits for.
const argv = process.argv.slice(2);
// Before anything else is loaded: `record -- <server>` starts the server now, so it boots while tapedeck loads.
startEarly(argv);
// Loaded only now (a static import would be loaded before the line above runs), and after one turn of the event
// loop: loading blocks the loop, and the early server's relay first passes on what the client has already sent.
setImmediate(() => {
  void import('./main.js').then(async ({ run }) => {
    const code = await run(argv);
    discardEarly();
    // Exit explicitly: a proxy's stdin may still be open, and everything worth writing has been written by now.
    process.exit(code);
  });
});
