import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { POSIX_ONLY } from './test/platform.js';
import { BROWSER_FILES, E2E_FILES, E2E_FOLDERS } from './test/projects.js';
import { LLM_RUN_ENTRY_ALIAS, REDACT_ENTRY_ALIAS, TRACE_ENTRY_ALIAS } from './viewer/trace-entry.js';

// On Windows the test files that assert POSIX-only behaviour (file modes, signals, sh scripts) are left out, each
// for the reason test/platform.ts gives, and the run says so.
const leftOut = process.platform === 'win32' ? Object.keys(POSIX_ONLY) : [];
if (leftOut.length > 0)
  console.warn(
    `tapedeck: ${leftOut.length} POSIX-only test files left out on Windows:\n` +
      leftOut.map((file) => `  ${file}: ${POSIX_ONLY[file]}`).join('\n'),
  );

const e2e = [...E2E_FOLDERS, ...Object.keys(E2E_FILES)];
const exclude = [...configDefaults.exclude, ...leftOut];

// Three projects (test/projects.ts says which file runs where), run one after the other by `npm test`:
// `unit` first, on every core; then `e2e`, whose real servers two cores do not like many of at once; then the
// browser tests. Projects with different worker counts need a group order of their own.
export default defineConfig({
  // The viewer's modules, tested in node, import the trace module by its public name (every project: unit runs
  // test/viewer/data and source, browser the built viewer's tests, which import the same helpers).
  resolve: { alias: [TRACE_ENTRY_ALIAS, REDACT_ENTRY_ALIAS, LLM_RUN_ENTRY_ALIAS] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...exclude, ...e2e, ...BROWSER_FILES],
          setupFiles: ['test/setup/no-processes.ts'],
          maxWorkers: availableParallelism(),
          // One module graph per worker instead of one per file: most of a unit file's time was spent importing
          // the modules the previous file had already loaded. Tests restore what they change (spies, env, timers).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: e2e.map((pattern) => (pattern.endsWith('/**') ? `${pattern}/*.test.ts` : pattern)),
          exclude,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [...BROWSER_FILES],
          exclude,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
