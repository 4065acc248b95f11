// A prepare script started in the background as a vitest run begins, so its downloads and builds overlap the files
// that run before the suite that needs it; that suite's own call of the script waits on the script's lock and then
// finds everything in place (or, if this one failed, does the work again and reports the error).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SANDBOX_ENV } from './hermetic-global.js';

/** Starts `bash script` with its output in `logDir/<name>-head-start.log`; the returned teardown stops it if still running. */
export function startHeadStart(name: string, script: string, logDir: string, env: Record<string, string>): () => Promise<void> {
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.openSync(path.join(logDir, `${name}-head-start.log`), 'w');
  // A HOME of the run's own, as the test files have (npm keeps its cache there).
  const home = path.join(process.env[SANDBOX_ENV] ?? logDir, `${name}-home`);
  fs.mkdirSync(home, { recursive: true });
  const child: ChildProcess = spawn('bash', [script], { env: { ...process.env, HOME: home, ...env }, stdio: ['ignore', log, log], detached: true });
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
