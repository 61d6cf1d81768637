import { configDefaults, defineConfig } from 'vitest/config';
import { POSIX_ONLY } from './test/platform.js';
import { TRACE_ENTRY_ALIAS } from './viewer/trace-entry.js';

// On Windows the test files that assert POSIX-only behaviour (file modes, signals, sh scripts) are left out, each
// for the reason test/platform.ts gives, and the run says so.
const leftOut = process.platform === 'win32' ? Object.keys(POSIX_ONLY) : [];
if (leftOut.length > 0)
  console.warn(
    `tapedeck: ${leftOut.length} POSIX-only test files left out on Windows:\n` +
      leftOut.map((file) => `  ${file}: ${POSIX_ONLY[file]}`).join('\n'),
  );

export default defineConfig({
  // The viewer's modules, tested in node, import the trace module by its public name.
  resolve: { alias: [TRACE_ENTRY_ALIAS] },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...leftOut],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real servers; two cores do not like many at once.
    maxWorkers: 2,
  },
});
