// Stryker settings for one module group (XPU_MUTATION_GROUP); scripts/mutation.mjs runs the groups one by one.
import { GROUPS, resolveGroup } from './stryker/groups.mjs';

const name = process.env.XPU_MUTATION_GROUP ?? '';
if (!GROUPS[name]) throw new Error(`XPU_MUTATION_GROUP must be one of: ${Object.keys(GROUPS).join(', ')} (got "${name}")`);
const group = resolveGroup(name);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The group's test files are chosen by this vitest config, not by Stryker's `testFiles`: with `testFiles`,
  // Stryker 9.6.1 activates module-level (static) mutants after the module loaded, so they all "survive".
  vitest: { configFile: 'stryker/vitest.config.mjs' },
  // Every mutant runs all of its group's tests (bailing at the first failure). With 'perTest', Stryker 9.6.1 on
  // vitest 4.1 left some killing tests out of a mutant's coverage, and reported mutants they kill as survivors;
  // a group with slow tests may still choose it, and its survivors need checking by hand.
  coverageAnalysis: group.coverageAnalysis ?? 'all',
  mutate: group.mutate,
  // Two cores, shared: one worker keeps a run from starving everything else.
  concurrency: 1,
  timeoutMS: group.timeoutMS ?? 60_000,
  // One sandbox folder per group, so two groups can run at once.
  tempDirName: `.stryker-tmp/${name}`,
  // Not into the sandbox: other groups' sandboxes, reports, build output, the Wine prefix the Windows tests make.
  ignorePatterns: ['/.stryker-tmp', '/reports', '/dist', '/bench/results', '/.cache/windows'],
  cleanTempDir: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
};
