// Suite-wide head start for the Windows suite: when a run includes test/windows/wine.test.ts, scripts/windows-prepare.sh
// starts here, in the background, as the run begins, so its downloads and cross-builds (about a minute on a fresh
// machine) overlap the files that run before it. The suite's own call of the script waits on the script's lock and
// then finds everything in place; if this one failed, that call does the work again and reports the error.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PREPARE_SCRIPT, WIN_CACHE, missingPackages } from '../windows/wine.js';
import { SANDBOX_ENV } from './hermetic-global.js';
import { fileFilters, runIncludes } from './run-files.js';

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const wanted = runIncludes(fileFilters(project), 'test/windows/wine.test.ts');
  if (process.env.XPU_SETUP_WINDOWS_HEAD_START === '0' || !wanted || (await missingPackages())) return undefined;
  fs.mkdirSync(WIN_CACHE, { recursive: true });
  const log = fs.openSync(path.join(WIN_CACHE, 'prepare-head-start.log'), 'w');
  // A HOME of the run's own, as the test files have (npm keeps its cache there).
  const home = path.join(process.env[SANDBOX_ENV] ?? WIN_CACHE, 'windows-prepare-home');
  fs.mkdirSync(home, { recursive: true });
  const child: ChildProcess = spawn('bash', [PREPARE_SCRIPT], {
    env: { ...process.env, HOME: home, XPU_SETUP_WINDOWS_CACHE: WIN_CACHE },
    stdio: ['ignore', log, log],
    detached: true,
  });
  fs.closeSync(log);
  const done = new Promise<void>((resolve) => {
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  return async () => {
    // A run that ends first (a failure elsewhere, or interrupted) stops it: the script keeps only finished steps.
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await done;
  };
}
