// Bundles the command line (src/cli and the library code it uses) into dist/cli: bin.js, one chunk per command
// and the chunks they share. A command then loads a handful of files instead of a hundred modules, which is most
// of what tapedeck's start-up costs (see the start-up part of `npm run bench`). Dependencies stay external, so the
// library (built by tsc into the rest of dist/) and the command line share them. Source maps point at src/, which
// the package ships. Chunks sit directly in dist/cli, as deep as every other dist/ folder, so paths that modules
// compute from their own location (the viewer's files, the wrapped command of `tapedeck install`) still hold.
import { rmSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { rolldown } from 'rolldown';

const out = 'dist/cli';
rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { bin: 'src/cli/bin.ts' },
  platform: 'node',
  logLevel: 'warn',
  // Sources import each other as `./x.js` (NodeNext style); the files are `./x.ts`.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  external: (id) => !id.startsWith('.') && !isAbsolute(id),
});
await bundle.write({
  dir: out,
  format: 'esm',
  sourcemap: true,
  // The package ships src/, which the maps name; no need to copy every source into them.
  sourcemapExcludeSources: true,
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
});
await bundle.close();

// The installed executable: launch.ts as one CommonJS file, which Node starts without setting up its ES module
// loader, so `record -- <server>` starts the server sooner; it then imports bin.js, the program.
const launcher = await rolldown({
  input: 'src/cli/launch.ts',
  platform: 'node',
  logLevel: 'warn',
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  external: (id) => id === './bin.js' || (!id.startsWith('.') && !isAbsolute(id)),
});
await launcher.write({
  file: `${out}/tapedeck.cjs`,
  format: 'cjs',
  sourcemap: true,
  sourcemapExcludeSources: true,
  banner: '#!/usr/bin/env node',
});
await launcher.close();
