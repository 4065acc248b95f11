import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Every test file gets its own HOME and XDG directories; the run fails if the real ones were touched.
    globalSetup: ['test/support/hermetic-global.ts'],
    setupFiles: ['test/support/hermetic.ts'],
  },
});
