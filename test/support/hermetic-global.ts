// Suite-wide half of hermetic tests: one sandbox directory for the run, and the list of the real user's xpu-setup
// directories (the default prefix and cache, which a developer who has used the tool may have) that no test may touch.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where this run's sandbox is, for test/support/hermetic.ts in each test worker. */
export const SANDBOX_ENV = 'XPU_SETUP_TEST_SANDBOX';
/** The real user's xpu-setup directories, as a JSON array, for the same. */
export const WATCHED_ENV = 'XPU_SETUP_TEST_WATCHED';

/** The directories of the real user that xpu-setup itself reads or writes by default (Linux layout). */
function realToolDirs(): string[] {
  const home = os.homedir();
  const dirs = new Set<string>();
  const parents = [process.env.XDG_DATA_HOME, process.env.XDG_CACHE_HOME, path.join(home, '.local', 'share'), path.join(home, '.cache')];
  for (const parent of parents.filter((p): p is string => !!p)) {
    for (const name of fs.existsSync(parent) ? fs.readdirSync(parent) : []) if (name.startsWith('xpu-setup')) dirs.add(path.join(parent, name));
    // Absent ones too: a test that creates one is caught as well.
    dirs.add(path.join(parent, 'xpu-setup'));
  }
  return [...dirs].sort();
}

export default function setup(): () => void {
  const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-setup-tests-'));
  // Test workers inherit this process's environment.
  process.env[SANDBOX_ENV] = sandbox;
  process.env[WATCHED_ENV] = JSON.stringify(realToolDirs());
  return () => fs.rmSync(sandbox, { recursive: true, force: true });
}
