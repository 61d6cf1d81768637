import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { LLM_RUN_ENTRY_ALIAS, REDACT_ENTRY_ALIAS, TRACE_ENTRY_ALIAS } from './trace-entry.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web viewer's build: one HTML page, one script and one stylesheet under dist/viewer/, with relative asset URLs
 * so the same files work behind `tapedeck view`'s token prefix, at the collector's root, and inlined into a
 * self-contained report (no code splitting, no module preload helper: `tapedeck report` inlines the one script).
 */
export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  resolve: { alias: [TRACE_ENTRY_ALIAS, REDACT_ENTRY_ALIAS, LLM_RUN_ENTRY_ALIAS] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/viewer/', import.meta.url)),
    emptyOutDir: true,
    modulePreload: false,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rolldownOptions: { output: { codeSplitting: false } },
  },
});
