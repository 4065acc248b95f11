import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // At least two files at a time: most of a file's time is spent waiting on the processes and servers it starts,
    // so on two cores (where vitest would run one) two side by side finish the suite sooner. Files that share a
    // resource say so (the Wine prefix is held by one file at a time, test/windows/wine.ts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Every test file gets its own HOME and XDG directories; the run fails if the real ones were touched. A run that
    // includes the Windows suite starts preparing Wine at once, in the background; a run of the whole suite builds
    // the fixture packages once, before the files start.
    globalSetup: ['test/support/hermetic-global.ts', 'test/support/windows-global.ts', 'test/support/sid-global.ts', 'test/support/fixtures-global.ts'],
    setupFiles: ['test/support/hermetic.ts'],
  },
});
