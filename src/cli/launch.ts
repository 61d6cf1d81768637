import { startEarly } from './early-spawn.js';

// The installed `tapedeck` executable, built as CommonJS: Node starts a CommonJS file without setting up its ES
// module loader first, so `record -- <server>` starts the server a few milliseconds sooner. The program itself is
// the ES module bin.js, loaded next; it adopts the server started here.
startEarly(process.argv.slice(2));
void import('./bin.js');
