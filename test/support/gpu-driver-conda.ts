// conda packages in the shape of conda-forge's GPU user-mode driver (intel-compute-runtime, intel-graphics-compiler,
// intel-gmmlib), repacked from Debian 12's real driver files (intel-opencl-icd 22.43, libigc1, libigdfcl1, libigdgmm12,
// libopencl-clang14) at test time. They are not conda-forge's builds: the files are Debian's, built against Debian 12's
// glibc (they need GLIBC_2.34), libstdc++ (up to GLIBCXX_3.4.30) and LLVM 14. What is conda-forge's is the shape:
//
// - the names, the split into three packages and the file layout of the feedstocks' build scripts (CMAKE_INSTALL_LIBDIR=lib,
//   OCL_ICD_VENDORDIR=$PREFIX/etc/OpenCL/vendors: lib/intel-opencl/libigdrcl.so, etc/OpenCL/vendors/intel.icd; ocloc only
//   under its versioned name, bin/ocloc-22.43.1, as compute-runtime's CMake installs it by default);
// - info/index.json's depends as conda-build renders those recipes: compute-runtime's host packages intel-gmmlib
//   (run_exports max_pin x) and intel-graphics-compiler (upper_bound x), `{{ compiler('cxx') }}` with GCC 14 (libgcc >=14,
//   libstdcxx >=14) and `{{ stdlib('c') }}` on the 2.17 sysroot (__glibc >=2.17,<3.0.a0). conda-forge's IGC also depends
//   on its LLVM, SPIRV translator and zlib packages; this IGC links the machine's LLVM 14 and zlib, which the channel does
//   not carry, so those depends are left out;
// - the ICD file written by compute-runtime's CMake with the build prefix in it: conda-build's host prefix, padded to 255
//   bytes, recorded in info/paths.json as a text-mode prefix_placeholder.
//
// A second build of intel-graphics-compiler (GPU_DRIVER_CONDA.shortPrefix) is what conda-build makes in a host prefix that
// is not padded: libigc's compiled-in LLVM header paths (`/usr/lib/llvm-14/include/...`, Debian's LLVM prefix) hold it,
// and paths.json records libigc in binary mode with that 16-byte placeholder, which fits only an install prefix as short.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureGpuDriverDebs, fixtureCacheDir, type GpuDriverDebs } from './debs.js';
import { buildCondaPackage, FIXTURE_MTIME_MS, type ArchiveEntry, type CondaSpec, type FixtureArtifact } from './packages.js';

/** conda-build's host prefix on conda-forge's Linux builders: the build root, then `_h_env` padded to 255 bytes. */
export const paddedPrefix = (pkg: string, stamp: number): string =>
  `/home/conda/feedstock_root/build_artifacts/${pkg}_${stamp}/_h_env${'_placehold'.repeat(30)}`.slice(0, 255);

/** The packages as the tests name them. */
export const GPU_DRIVER_CONDA = {
  runtime: { name: 'intel-compute-runtime', version: '22.43.24595.41', build: 'h59595ed_0' },
  igc: { name: 'intel-graphics-compiler', version: '1.0.12504.6', build: 'h59595ed_0' },
  gmmlib: { name: 'intel-gmmlib', version: '22.3.3', build: 'h59595ed_0' },
  /** The ICD file's build prefix (text mode). */
  icdPlaceholder: paddedPrefix('intel-compute-runtime', 1668089600000),
  /** The IGC built in an unpadded prefix: its libigc in binary mode with Debian's LLVM prefix as the placeholder. */
  shortPrefix: { build: 'h59595ed_1', buildNumber: 1, placeholder: '/usr/lib/llvm-14', file: 'lib/libigc.so.1.0.1' },
  /** The one name the package ships ocloc under (compute-runtime's `ocloc-<major>.<minor>.1`; Debian 12 renamed it `ocloc`). */
  ocloc: 'bin/ocloc-22.43.1',
} as const;

export const GPU_DRIVER_CONDA_NAMES: ReadonlySet<string> = new Set([GPU_DRIVER_CONDA.runtime.name, GPU_DRIVER_CONDA.igc.name, GPU_DRIVER_CONDA.gmmlib.name]);

export const GLIBC = '__glibc >=2.17,<3.0.a0';
export const GCC14 = ['libgcc >=14', 'libstdcxx >=14'];

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

/** A file or symlink of Debian's tree, at `to` in the package. */
export async function entry(debs: { root: string }, from: string, to: string): Promise<ArchiveEntry> {
  const abs = join(debs.root, from);
  const st = await lstat(abs);
  if (st.isSymbolicLink()) return { path: to, type: 'symlink', target: await readlink(abs) };
  return { path: to, type: 'file', data: await readFile(abs), mode: st.mode & 0o111 ? 0o755 : 0o644 };
}

async function specs(debs: GpuDriverDebs): Promise<CondaSpec[]> {
  const { runtime, igc, gmmlib, icdPlaceholder, shortPrefix, ocloc } = GPU_DRIVER_CONDA;
  const lib = (name: string, to = `lib/${name}`) => entry(debs, `usr/lib/x86_64-linux-gnu/${name}`, to);
  const libs = async (names: string[]) => Promise.all(names.map((n) => lib(n)));
  const soLinks = (await readdir(debs.libDir)).sort();
  const withLinks = (stems: string[]) => soLinks.filter((n) => stems.some((s) => n.startsWith(s)));
  const icd = Buffer.from(`${icdPlaceholder}/lib/intel-opencl/libigdrcl.so\n`);
  const igcPayload = await libs(withLinks(['libigc.so', 'libigdfcl.so', 'libiga64.so', 'libopencl-clang.so']));
  const base = { subdir: 'linux-64' as const, license: 'MIT', timestamp: FIXTURE_MTIME_MS };
  const igcSpec: CondaSpec = { ...base, ...igc, buildNumber: 0, depends: [GLIBC, ...GCC14], payload: igcPayload };
  return [
    {
      ...base, ...runtime, buildNumber: 0,
      depends: [GLIBC, `${gmmlib.name} >=${gmmlib.version},<23.0a0`, `${igc.name} >=${igc.version},<2.0a0`, ...GCC14],
      payload: [
        await entry(debs, 'usr/bin/ocloc', ocloc),
        { path: 'etc/OpenCL/vendors/intel.icd', type: 'file', data: icd },
        await entry(debs, 'usr/include/ocloc_api.h', 'include/ocloc_api.h'),
        await lib('intel-opencl/libigdrcl.so'),
        await lib('libocloc.so'),
        ...(await libs(withLinks(['libze_intel_gpu.so']))),
      ],
      placeholders: { 'etc/OpenCL/vendors/intel.icd': { placeholder: icdPlaceholder, mode: 'text' } },
    },
    igcSpec,
    { ...igcSpec, build: shortPrefix.build, buildNumber: shortPrefix.buildNumber, placeholders: { [shortPrefix.file]: { placeholder: shortPrefix.placeholder, mode: 'binary' } } },
    { ...base, ...gmmlib, buildNumber: 0, depends: [GLIBC, ...GCC14], payload: await libs(withLinks(['libigdgmm.so'])) },
  ];
}

/**
 * Whether a channel of index-server.ts lists an artifact of this set: `gpu-driver` the padded builds, `gpu-driver-short`
 * the same with the IGC built unpadded in place of the padded one.
 */
export function inGpuDriverChannel(a: FixtureArtifact, channel: 'gpu-driver' | 'gpu-driver-short'): boolean {
  if (!a.conda || !GPU_DRIVER_CONDA_NAMES.has(a.name)) return false;
  // Other sets of these names (gpu-driver-conda-forge.ts) are other versions.
  if (![GPU_DRIVER_CONDA.runtime, GPU_DRIVER_CONDA.igc, GPU_DRIVER_CONDA.gmmlib].some((p) => p.name === a.name && p.version === a.version)) return false;
  if (a.name !== GPU_DRIVER_CONDA.igc.name) return true;
  return (a.conda.build === GPU_DRIVER_CONDA.shortPrefix.build) === (channel === 'gpu-driver-short');
}

/** The key of a set's build: this file, the package writer, and what the set is built from (`inputs`). */
export async function fixtureKey(module: string, inputs: string[]): Promise<string> {
  const h = createHash('sha256');
  h.update(await readFile(fileURLToPath(module)));
  h.update(await readFile(fileURLToPath(import.meta.url)));
  // The package writer's source (packages.js where scripts/fixture-index.sh compiled these files).
  const writer = ['./packages.ts', './packages.js'].map((f) => fileURLToPath(new URL(f, import.meta.url))).find((f) => existsSync(f))!;
  h.update(await readFile(writer));
  for (const i of inputs) h.update(`${i}\n`);
  return h.digest('hex').slice(0, 16);
}

async function inputKey(debs: GpuDriverDebs): Promise<string> {
  const names = (await readdir(dirname(debs.root))).filter((f) => f.endsWith('.deb')).sort();
  return fixtureKey(import.meta.url, [debs.version, ...names]);
}

async function load(dir: string): Promise<FixtureArtifact[] | undefined> {
  const file = join(dir, 'artifacts.json');
  if (!existsSync(file)) return undefined;
  const artifacts = JSON.parse(await readFile(file, 'utf8')) as FixtureArtifact[];
  for (const a of artifacts) {
    a.path = join(dir, a.filename);
    if ((await stat(a.path).catch(() => undefined))?.size !== a.size) return undefined;
  }
  return artifacts;
}

/**
 * Builds (or finds in the test cache, under `<set>/<key>`) the conda packages of `specs`; parallel test processes build
 * side by side and the first rename wins.
 */
export async function buildCondaSet(set: string, key: string, specs: () => Promise<CondaSpec[]>): Promise<FixtureArtifact[]> {
  const root = join(fixtureCacheDir(), set);
  const dir = join(root, key);
  const cached = await load(dir);
  if (cached) return cached;
  if (existsSync(dir)) await rm(dir, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const tmp = join(root, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(tmp);
  try {
    const artifacts: FixtureArtifact[] = [];
    for (const spec of await specs()) {
      const built = await buildCondaPackage(spec, 'conda');
      await writeFile(join(tmp, built.filename), built.bytes);
      artifacts.push({
        format: 'conda', name: spec.name, version: spec.version, platform: 'linux-x64', filename: built.filename, path: '',
        sha256: sha256(built.bytes), md5: md5(built.bytes), size: built.bytes.length, members: built.members, conda: built.index,
      });
    }
    await writeFile(join(tmp, 'artifacts.json'), JSON.stringify(artifacts, null, 1));
    await rename(tmp, dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const result = await load(dir);
  if (!result) throw new Error(`the conda fixtures in ${dir} are incomplete`);
  return result;
}

let memo: Promise<FixtureArtifact[]> | undefined;

/** Builds (or finds in the test cache) the driver's conda packages from Debian's files. */
export function buildGpuDriverConda(): Promise<FixtureArtifact[]> {
  memo ??= (async () => {
    const debs = await ensureGpuDriverDebs();
    return buildCondaSet('gpu-driver-conda', await inputKey(debs), () => specs(debs));
  })();
  memo.catch(() => (memo = undefined));
  return memo;
}
