import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Every test file gets its own HOME and XDG directories; the run fails if the real ones were touched. A run that
    // includes the Windows suite starts preparing Wine at once, in the background.
    globalSetup: ['test/support/hermetic-global.ts', 'test/support/windows-global.ts'],
    setupFiles: ['test/support/hermetic.ts'],
  },
});
