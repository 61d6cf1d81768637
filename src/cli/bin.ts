#!/usr/bin/env node
import { run } from './main.js';

run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
