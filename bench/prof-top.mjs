// Summarizes .cpuprofile files (from BENCH_PROF_DIR=<dir> npm run bench): self time per function, top N,
// across every profile in the folder whose name contains the optional filter.
// `node bench/prof-top.mjs <dir|file> [top=25] [filter]`
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [target, topText = '25', filter = ''] = process.argv.slice(2);
if (target === undefined) {
  process.stderr.write('usage: node bench/prof-top.mjs <dir|file.cpuprofile> [top] [filter]\n');
  process.exit(2);
}
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile') && f.includes(filter))
      .map((f) => join(target, f))
  : [target];

const self = new Map();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = nodes.get(profile.samples[i]);
    const dt = deltas[i] ?? 0;
    const frame = node.callFrame;
    const where = frame.url
      ? `${frame.url.replace(/^.*\/(dist|node_modules|bench)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
}
const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topText));
process.stdout.write(`${files.length} profile(s), ${(total / 1000).toFixed(0)} ms sampled\n`);
for (const [key, us] of top) {
  process.stdout.write(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(1).padStart(8)} ms  ${key}\n`,
  );
}
