// "One extra pipe hop": the smallest Node process that sits between a client and a stdio server — it pipes
// bytes both ways and records nothing. `node bench/pipe-relay.cjs -- <command…>`. The recording proxy is held to
// costing about this much, and to starting about as soon: CommonJS, which Node loads sooner than an ES module.
const { spawn } = require('node:child_process');

const at = process.argv.indexOf('--');
const [command, ...args] = at === -1 ? [] : process.argv.slice(at + 1);
if (command === undefined) {
  process.stderr.write('usage: node bench/pipe-relay.cjs -- <command> [args…]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.stdin.on('error', () => {});
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  child.stdout.once('end', () => process.exit(code ?? (signal ? 1 : 0)));
  if (child.stdout.readableEnded) process.exit(code ?? 1);
});
