// The real Debian Level Zero packages (bookworm 1.8.12, trixie 1.20.6, sid's headers and driver) the fixtures are built from, unpacked in the test cache.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
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

/** Debian 12's own GPU user-mode driver (22.43, from intel-opencl-icd) with IGC and gmmlib, unpacked. */
export interface GpuDriverDebs {
  version: string;
  root: string;
  /** Holds libze_intel_gpu.so.1, libigc.so.1, libigdfcl.so.1, libigdgmm.so.12, libocloc.so. */
  libDir: string;
  ocloc: string;
  /** The unpacked `/etc/OpenCL/vendors/intel.icd`, which names `/usr/lib/...`. */
  icd: string;
}

export const GPU_DRIVER_DEB_VERSION = '22.43.24595.41-1';

function gpuDriverDebs(): GpuDriverDebs {
  const root = join(fixtureCacheDir(), 'debs', 'bookworm-gpu', 'root');
  return {
    version: GPU_DRIVER_DEB_VERSION,
    root,
    libDir: join(root, 'usr', 'lib', 'x86_64-linux-gnu'),
    ocloc: join(root, 'usr', 'bin', 'ocloc'),
    icd: join(root, 'etc', 'OpenCL', 'vendors', 'intel.icd'),
  };
}

function gpuDriverReady(set: GpuDriverDebs): boolean {
  const stamp = join(dirname(set.root), 'version');
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === set.version && existsSync(set.ocloc) && existsSync(join(set.libDir, 'libze_intel_gpu.so.1'));
}

let pendingGpu: Promise<GpuDriverDebs> | undefined;

/** Makes sure the GPU driver packages are downloaded and unpacked (with the Level Zero ones: one script fetches both). */
export function ensureGpuDriverDebs(): Promise<GpuDriverDebs> {
  pendingGpu ??= (async () => {
    const set = gpuDriverDebs();
    if (!gpuDriverReady(set)) {
      await runFixtures();
      if (!gpuDriverReady(set)) throw new Error(`.ci/fixtures.sh finished but ${set.root} is incomplete`);
    }
    return set;
  })();
  pendingGpu.catch(() => (pendingGpu = undefined));
  return pendingGpu;
}

async function runFixtures(): Promise<void> {
  const script = join(repoRoot(), '.ci', 'fixtures.sh');
  try {
    await run('bash', [script], { env: { ...process.env, XPU_SETUP_TEST_CACHE: fixtureCacheDir() }, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`bash ${script} failed: ${e.stderr?.trim() || e.message}`);
  }
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
      await runFixtures();
      for (const set of Object.values(sets)) {
        if (!ready(set)) throw new Error(`.ci/fixtures.sh finished but ${set.root} is incomplete`);
      }
    }
    return sets;
  })();
  pending.catch(() => (pending = undefined));
  return pending;
}

/** Debian unstable's Level Zero headers, loader and GPU driver as the cache got them (`sid/versions`), unpacked. */
export interface SidDebs {
  /** Debian versions by package: `libze-dev` -> `1.32.0-1`. */
  versions: Record<string, string>;
  /** The loader's upstream version (`1.32.0`): that of its headers. */
  l0Version: string;
  debs: Record<string, string>;
  root: string;
  includeDir: string;
  libDir: string;
}

function sidDebs(): SidDebs | undefined {
  const dir = join(fixtureCacheDir(), 'debs', 'sid');
  const stamp = join(dir, 'versions');
  if (!existsSync(stamp) || !existsSync(join(dir, 'root', 'usr', 'include', 'level_zero', 'ze_api.h'))) return undefined;
  const versions = Object.fromEntries(readFileSync(stamp, 'utf8').trim().split('\n').map((l) => l.split('=') as [string, string]));
  const debs = Object.fromEntries(Object.entries(versions).map(([p, v]) => [p, join(dir, `${p}_${v.replace(/^\d+:/, '')}_amd64.deb`)]));
  if (Object.values(debs).some((f) => !existsSync(f))) return undefined;
  const root = join(dir, 'root');
  return {
    versions,
    l0Version: versions['libze-dev']!.replace(/-[^-]+$/, ''),
    debs,
    root,
    includeDir: join(root, 'usr', 'include'),
    libDir: join(root, 'usr', 'lib', 'x86_64-linux-gnu'),
  };
}

/** `read()`'s set of the cache, once per process; only a cold cache runs .ci/fixtures.sh (which fetches every set). */
function fetchedOnce<T>(read: () => T | undefined, suite: string): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= (async () => {
      let set = read();
      if (!set) {
        await runFixtures();
        set = read();
        if (!set) throw new Error(`.ci/fixtures.sh finished but ${join(fixtureCacheDir(), 'debs', suite)} is incomplete`);
      }
      return set;
    })();
    pending.catch(() => (pending = undefined));
    return pending;
  };
}

/** Makes sure sid's packages are downloaded and unpacked. */
export const ensureSidDebs = fetchedOnce(sidDebs, 'sid');

/**
 * Builds a directory of the test cache once: `build` fills a fresh directory beside `out`, which is stamped and renamed
 * into place; another process's copy, put there first, is the same build.
 */
export async function buildCacheDirOnce(out: string, stamp: string, build: (work: string) => Promise<void>): Promise<void> {
  if (existsSync(join(out, 'done'))) return;
  const work = `${out}.tmp-${process.pid}`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  await build(work);
  await writeFile(join(work, 'done'), stamp);
  await rm(out, { recursive: true, force: true });
  await rename(work, out).catch(async () => rm(work, { recursive: true, force: true }));
}

/** Debian trixie's AArch64 C runtime (libc6, libgcc-s1, libstdc++6 for arm64) and lld to link for it, unpacked. */
export interface Arm64Debs {
  /** Debian versions by package: `libstdc++6` -> `14.2.0-19`. */
  versions: Record<string, string>;
  root: string;
  /** The arm64 libraries: libc.so.6, libgcc_s.so.1, libstdc++.so.6.0.*. */
  libDir: string;
  /** lld (amd64), run with its own library beside it. */
  lld: { bin: string; libDir: string };
}

function arm64Debs(): Arm64Debs | undefined {
  const dir = join(fixtureCacheDir(), 'debs', 'trixie-arm64');
  const stamp = join(dir, 'versions');
  const root = join(dir, 'root');
  const lld = { bin: join(root, 'usr', 'lib', 'llvm-15', 'bin', 'ld.lld'), libDir: join(root, 'usr', 'lib', 'x86_64-linux-gnu') };
  if (!existsSync(stamp) || !existsSync(lld.bin)) return undefined;
  const versions = Object.fromEntries(readFileSync(stamp, 'utf8').trim().split('\n').map((l) => l.split('=') as [string, string]));
  return { versions, root, libDir: join(root, 'usr', 'lib', 'aarch64-linux-gnu'), lld };
}

/** Makes sure trixie's arm64 runtime and lld are downloaded and unpacked. */
export const ensureArm64Debs = fetchedOnce(arm64Debs, 'trixie-arm64');
