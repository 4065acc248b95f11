// Test helpers: a temp prefix made of symlinks to the system's real Level Zero headers and loader (Debian libze-dev 1.8.12).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureGpuDriverDebs, repoRoot, type GpuDriverDebs } from '../support/debs.js';

export const SYSTEM_LOADER_DIR = '/usr/lib/x86_64-linux-gnu';

export function systemPrefix(): string {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-probe-'));
  fs.mkdirSync(path.join(prefix, 'include'), { recursive: true });
  fs.mkdirSync(path.join(prefix, 'lib'), { recursive: true });
  fs.symlinkSync('/usr/include/level_zero', path.join(prefix, 'include', 'level_zero'));
  for (const f of fs.readdirSync(SYSTEM_LOADER_DIR).filter((n) => n.startsWith('libze_loader.so'))) {
    fs.symlinkSync(path.join(SYSTEM_LOADER_DIR, f), path.join(prefix, 'lib', f));
  }
  return prefix;
}

/**
 * The opening of a file that runs the CLI with Debian 12's GPU driver (22.43) on the library path: a system prefix
 * removed after the file, the CLI's path, the driver's debs (fetched before the file's tests), and `env()`, the
 * environment of a user with the driver's directory on the library path (a fresh HOME, no alternative driver list).
 */
export function withGpuDriver(): { prefix: string; cli: string; readonly driver: GpuDriverDebs; env(extra?: Record<string, string>): NodeJS.ProcessEnv } {
  const prefix = systemPrefix();
  let driver: GpuDriverDebs | undefined;
  beforeAll(async () => {
    driver = await ensureGpuDriverDebs();
  }, 300_000);
  afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));
  const debs = (): GpuDriverDebs => {
    if (!driver) throw new Error('withGpuDriver(): the driver is fetched in beforeAll; read it from a hook or a test');
    return driver;
  };
  return {
    prefix,
    cli: path.join(repoRoot(), 'bin', 'xpu-setup.js'),
    get driver() {
      return debs();
    },
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: fs.mkdtempSync(path.join(prefix, 'home-')), LD_LIBRARY_PATH: debs().libDir, ...extra };
      delete env.ZE_ENABLE_ALT_DRIVERS;
      return env;
    },
  };
}
