#!/usr/bin/env node
import { run } from './main.js';

// Exit explicitly: a proxy's stdin may still be open, and everything worth writing has been written by now.
run(process.argv.slice(2)).then((code) => process.exit(code));
