// conda packages shaped as conda-forge's intel-compute-runtime feedstock builds them, from Debian sid's real driver files
// (intel-opencl-icd, intel-ocloc 26.27.39122.14, libigc2/libigdfcl2 2.40.14, libigdgmm12 22.10.2, fetched by
// .ci/fixtures.sh). The files are Debian's (they need glibc 2.38, IGC 2.43: they load in the sid root, not on Debian 12);
// what is conda-forge's is the shape:
//
// - the recipe's host requirements are intel-gmmlib and intel-graphics-compiler only (no level-zero-devel), so
//   compute-runtime's CMake skips Level Zero: the package holds the OpenCL ICD (lib/intel-opencl/libigdrcl.so and
//   etc/OpenCL/vendors/intel.icd, its build prefix a text placeholder), the offline compiler as compute-runtime installs it
//   by default (bin/ocloc-<major>.<minor>.1, lib/libocloc.so), and NO lib/libze_intel_gpu.so.1;
// - info/index.json's depends as conda-build renders the recipe: intel-gmmlib (run_exports max_pin x), intel-graphics-
//   compiler (upper_bound x: any IGC 2.x, though the driver works only with the IGC of its own major.minor), GCC 14's
//   runtime and the 2.17 sysroot.
//
// Channels of index-server.ts: `gpu-driver-cf` (this set), and `gpu-driver-cf-igc` (the same with a newer IGC record,
// 2.42.6, which the driver was not built for; it is metadata only, with no payload, for plans: it is never installed).
import { readdir } from 'node:fs/promises';
import { ensureSidDebs, type SidDebs } from './debs.js';
import { buildCondaSet, entry, fixtureKey, GCC14, GLIBC, paddedPrefix } from './gpu-driver-conda.js';
import { FIXTURE_MTIME_MS, type CondaSpec, type FixtureArtifact } from './packages.js';

const LIB = 'usr/lib/x86_64-linux-gnu';

/** The packages as the tests name them. */
export const CONDA_FORGE_DRIVER = {
  runtime: { name: 'intel-compute-runtime', version: '26.27.39122.14', build: 'h5888daf_0' },
  igc: { name: 'intel-graphics-compiler', version: '2.40.14', build: 'h5888daf_0' },
  gmmlib: { name: 'intel-gmmlib', version: '22.10.2', build: 'h5888daf_0' },
  /** An IGC the driver was not built for (major.minor 2.42): listed in `gpu-driver-cf-igc` only, never installed. */
  newerIgc: { name: 'intel-graphics-compiler', version: '2.42.6', build: 'h5888daf_0' },
  /** What the package installs for the offline compiler: no plain `ocloc`. */
  ocloc: 'bin/ocloc-26.27.1',
  icdPlaceholder: paddedPrefix('intel-compute-runtime', 1781049600000),
} as const;

/** Whether a channel of index-server.ts lists an artifact of this set. */
export function inCondaForgeChannel(a: FixtureArtifact, channel: 'gpu-driver-cf' | 'gpu-driver-cf-igc'): boolean {
  const { runtime, igc, gmmlib, newerIgc } = CONDA_FORGE_DRIVER;
  const of = (p: { name: string; version: string }) => a.name === p.name && a.version === p.version;
  return !!a.conda && (of(runtime) || of(igc) || of(gmmlib) || (channel === 'gpu-driver-cf-igc' && of(newerIgc)));
}

async function specs(sid: SidDebs): Promise<CondaSpec[]> {
  const { runtime, igc, gmmlib, newerIgc, ocloc, icdPlaceholder } = CONDA_FORGE_DRIVER;
  const names = (await readdir(sid.libDir)).sort();
  const libs = (stems: string[]) => Promise.all(names.filter((n) => stems.some((s) => n.startsWith(s))).map((n) => entry(sid, `${LIB}/${n}`, `lib/${n}`)));
  const base = { subdir: 'linux-64' as const, license: 'MIT', timestamp: FIXTURE_MTIME_MS, buildNumber: 0 };
  const igcDepends = [GLIBC, ...GCC14];
  return [
    {
      ...base, ...runtime,
      depends: [GLIBC, `${gmmlib.name} >=${gmmlib.version},<23.0a0`, `${igc.name} >=${igc.version},<3.0a0`, ...GCC14],
      payload: [
        await entry(sid, `usr/bin/${ocloc.slice('bin/'.length)}`, ocloc),
        { path: 'etc/OpenCL/vendors/intel.icd', type: 'file', data: Buffer.from(`${icdPlaceholder}/lib/intel-opencl/libigdrcl.so\n`) },
        await entry(sid, `${LIB}/intel-opencl/libigdrcl.so`, 'lib/intel-opencl/libigdrcl.so'),
        await entry(sid, `${LIB}/libocloc.so`, 'lib/libocloc.so'),
      ],
      placeholders: { 'etc/OpenCL/vendors/intel.icd': { placeholder: icdPlaceholder, mode: 'text' } },
    },
    { ...base, ...igc, depends: igcDepends, payload: await libs(['libigc.so', 'libigdfcl.so', 'libiga64.so', 'libopencl-clang.so']) },
    { ...base, ...newerIgc, depends: igcDepends, payload: [] },
    { ...base, ...gmmlib, depends: [GLIBC, ...GCC14], payload: await libs(['libigdgmm.so']) },
  ];
}

let memo: Promise<FixtureArtifact[]> | undefined;

/** Builds (or finds in the test cache) the conda-forge-shaped driver set from sid's files. */
export function buildCondaForgeDriver(): Promise<FixtureArtifact[]> {
  memo ??= (async () => {
    const sid = await ensureSidDebs();
    const key = await fixtureKey(import.meta.url, Object.entries(sid.versions).map(([p, v]) => `${p}=${v}`));
    return buildCondaSet('gpu-driver-conda-forge', key, () => specs(sid));
  })();
  memo.catch(() => (memo = undefined));
  return memo;
}
