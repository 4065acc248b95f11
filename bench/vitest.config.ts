import { defineConfig } from 'vitest/config';

// Benchmarks run as one vitest file each so they can use the test fixtures; they assert nothing about time.
export default defineConfig({
  test: {
    include: ['bench/**/*.run.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
