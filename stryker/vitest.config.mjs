// The vitest settings a mutation run uses: the project's, with only the test files of the group under test.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { GROUPS } from './groups.mjs';

const group = GROUPS[process.env.XPU_MUTATION_GROUP ?? ''];
if (!group) throw new Error('XPU_MUTATION_GROUP names no mutation group');

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: group.testFiles,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
