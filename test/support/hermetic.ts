// Per-file half of hermetic tests (a vitest setup file): every test file runs with its own HOME and XDG directories,
// without the developer's xpu-setup settings, and fails if the real user's xpu-setup directories changed meanwhile.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SANDBOX_ENV, WATCHED_ENV } from './hermetic-global.js';

/** Settings from the developer's shell that would change what a test installs, where, or from which index. */
const SCRUBBED = [
  'XPU_SETUP_PREFIX',
  'XPU_SETUP_CACHE_DIR',
  'XPU_SETUP_MANIFESTS',
  'XPU_SETUP_INDEX_URL',
  'XPU_SETUP_CONDA_CHANNELS',
  'XPU_SETUP_REQUIRE',
  'XPU_SETUP_MAX_UNPACKED',
  'XPU_SETUP_MAX_RATIO',
  'LEVEL_ZERO_V1_SDK_PATH',
  'ZE_PATH',
];

/** path -> size and mtime of everything under `dirs` (symlinks not followed); absent paths are left out. */
function snapshot(dirs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (p: string) => {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) return;
    out.set(p, `${st.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
  };
  for (const d of dirs) walk(d);
  return out;
}

const sandbox = process.env[SANDBOX_ENV] ?? os.tmpdir();
const watched = JSON.parse(process.env[WATCHED_ENV] ?? '[]') as string[];
const home = fs.mkdtempSync(path.join(sandbox, 'home-'));
Object.assign(process.env, {
  HOME: home,
  XDG_DATA_HOME: path.join(home, '.local', 'share'),
  XDG_CACHE_HOME: path.join(home, '.cache'),
  XDG_CONFIG_HOME: path.join(home, '.config'),
  XDG_STATE_HOME: path.join(home, '.local', 'state'),
  // Shared by the run's files (PoCL keys it by content), so a kernel is compiled once per run, not once per file.
  POCL_CACHE_DIR: path.join(sandbox, 'pocl-cache'),
});
for (const name of SCRUBBED) delete process.env[name];

let before: Map<string, string>;
beforeAll(() => {
  before = snapshot(watched);
});
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  const after = snapshot(watched);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
  if (changed.length) {
    throw new Error(
      `the real user's xpu-setup directories changed while this file ran (every test must use its own HOME and prefix):\n  ${changed.slice(0, 20).join('\n  ')}`,
    );
  }
});
