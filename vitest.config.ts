import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn real servers; two cores do not like many at once.
    maxWorkers: 2,
  },
});
