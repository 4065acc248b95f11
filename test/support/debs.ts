// The real Debian Level Zero packages (bookworm 1.8.12, trixie 1.20.6) the fixtures are built from, unpacked in the test cache.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type DebSuite = 'bookworm' | 'trixie';

/** Debian package versions that .ci/fixtures.sh pins. */
export const DEB_VERSIONS: Readonly<Record<DebSuite, string>> = { bookworm: '1.8.12-1', trixie: '1.20.6-1' };

export interface DebSet {
  suite: DebSuite;
  /** Debian version, e.g. `1.20.6-1`. */
  debVersion: string;
  /** Upstream version, e.g. `1.20.6`. */
  version: string;
  debs: { libze1: string; libzeDev: string };
  /** Both packages unpacked with `dpkg-deb -x`: `<root>/usr/...`. */
  root: string;
  includeDir: string;
  libDir: string;
}

export function repoRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** `XPU_SETUP_TEST_CACHE`, or `.cache/test-fixtures` under the repository (gitignored). */
export function fixtureCacheDir(): string {
  const fromEnv = process.env.XPU_SETUP_TEST_CACHE;
  return fromEnv ? resolve(fromEnv) : join(repoRoot(), '.cache', 'test-fixtures');
}

function debSet(suite: DebSuite): DebSet {
  const dir = join(fixtureCacheDir(), 'debs', suite);
  const debVersion = DEB_VERSIONS[suite];
  const root = join(dir, 'root');
  return {
    suite,
    debVersion,
    version: debVersion.replace(/-[^-]+$/, ''),
    debs: {
      libze1: join(dir, `libze1_${debVersion}_amd64.deb`),
      libzeDev: join(dir, `libze-dev_${debVersion}_amd64.deb`),
    },
    root,
    includeDir: join(root, 'usr', 'include'),
    libDir: join(root, 'usr', 'lib', 'x86_64-linux-gnu'),
  };
}

function ready(set: DebSet): boolean {
  const stamp = join(dirname(set.root), 'version');
  return (
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === set.debVersion &&
    existsSync(join(set.includeDir, 'level_zero', 'ze_api.h')) &&
    existsSync(set.debs.libze1) &&
    existsSync(set.debs.libzeDev)
  );
}

let pending: Promise<Record<DebSuite, DebSet>> | undefined;

/**
 * Makes sure both suites are downloaded and unpacked; only a cold cache runs apt (through .ci/fixtures.sh,
 * which also serialises parallel test processes with a lock).
 */
export function ensureDebs(): Promise<Record<DebSuite, DebSet>> {
  pending ??= (async () => {
    const sets = { bookworm: debSet('bookworm'), trixie: debSet('trixie') };
    if (!ready(sets.bookworm) || !ready(sets.trixie)) {
      const script = join(repoRoot(), '.ci', 'fixtures.sh');
      try {
        await run('bash', [script], {
          env: { ...process.env, XPU_SETUP_TEST_CACHE: fixtureCacheDir() },
          maxBuffer: 16 * 1024 * 1024,
        });
      } catch (err) {
        const e = err as { stderr?: string; message: string };
        throw new Error(`bash ${script} failed: ${e.stderr?.trim() || e.message}`);
      }
      for (const set of Object.values(sets)) {
        if (!ready(set)) throw new Error(`${script} finished but ${set.root} is incomplete`);
      }
    }
    return sets;
  })();
  pending.catch(() => (pending = undefined));
  return pending;
}
