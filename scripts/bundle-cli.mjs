// Bundles the command line (src/cli and the library code it uses) into dist/cli as CommonJS: tapedeck.cjs (the
// executable npm links as `tapedeck`), one chunk per command and the chunks they share. A command then loads a
// handful of files instead of a hundred modules, and Node loads CommonJS with less ceremony than ES modules: most
// of what start-up costs (see the start-up part of `npm run bench`). Dependencies stay external, so the library
// (built by tsc into the rest of dist/) and the command line share them. Source maps point at src/, which the
// package ships. Chunks sit directly in dist/cli, as deep as every other dist/ folder, so paths that modules
// compute from their own location (the viewer's files, the executable `tapedeck install` writes into configs)
// hold in both builds. dist/cli/bin.js is the same program for `node dist/cli/bin.js`.
import { rmSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { rolldown } from 'rolldown';

const out = 'dist/cli';
rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { tapedeck: 'src/cli/bin.ts' },
  platform: 'node',
  logLevel: 'warn',
  // Sources import each other as `./x.js` (NodeNext style); the files are `./x.ts`.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  external: (id) => !id.startsWith('.') && !isAbsolute(id),
});
await bundle.write({
  dir: out,
  format: 'cjs',
  sourcemap: true,
  // The package ships src/, which the maps name; no need to copy every source into them.
  sourcemapExcludeSources: true,
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
});
await bundle.close();
writeFileSync(
  `${out}/bin.js`,
  "#!/usr/bin/env node\n// `node dist/cli/bin.js`: the same program as the installed executable.\nimport './tapedeck.cjs';\n",
);
