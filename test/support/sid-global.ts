// Suite-wide head start for the sid suite: when a run includes test/sid/sid.test.ts, scripts/sid-prepare.sh (the sid
// root, about a minute and a half on a fresh machine, and node) starts here, in the background, as the run begins
// (test/support/head-start.ts).
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import { SID_PREPARE, SID_ROOT } from '../sid/sid.js';
import { startHeadStart } from './head-start.js';
import { fileFilters, runIncludes } from './run-files.js';

export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  const wanted = runIncludes(fileFilters(project), 'test/sid/sid.test.ts');
  if (process.env.XPU_SETUP_SID_HEAD_START === '0' || !wanted) return undefined;
  return startHeadStart('sid-prepare', SID_PREPARE, path.dirname(SID_ROOT), { XPU_SETUP_SID_ROOT: SID_ROOT });
}
