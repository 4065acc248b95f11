// Suite-wide head start for the Windows suite: when a run includes test/windows/wine.test.ts, scripts/windows-prepare.sh
// starts here, in the background, as the run begins, so its downloads and cross-builds (about a minute on a fresh
// machine) overlap the files that run before it (test/support/head-start.ts).
import type { TestProject } from 'vitest/node';
import { PREPARE_SCRIPT, WIN_CACHE, missingPackages } from '../windows/wine.js';
import { startHeadStart } from './head-start.js';
import { fileFilters, runIncludes } from './run-files.js';

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const wanted = runIncludes(fileFilters(project), 'test/windows/wine.test.ts');
  if (process.env.XPU_SETUP_WINDOWS_HEAD_START === '0' || !wanted || (await missingPackages())) return undefined;
  return startHeadStart('prepare', PREPARE_SCRIPT, WIN_CACHE, { XPU_SETUP_WINDOWS_CACHE: WIN_CACHE });
}
