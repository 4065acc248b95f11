// conda-forge's `level-zero` 1.29 as its feedstock builds it since 2026-05: the loader compiled with
// `-DZE_LOADER_EXTRA_DRIVER_DIR=${PREFIX}/lib`, so libze_loader.so holds conda-build's padded host prefix as a C string
// where it looks for drivers (searched right after LD_LIBRARY_PATH), and info/paths.json marks the file `binary` with that
// prefix as its placeholder. An installer must rewrite it as conda does (the prefix, then NULs to the string's old end).
//
// The loader is a TEST DOUBLE compiled here, not the real loader: the trixie 1.20.6 loader needs libstdc++ 13 and sid's
// 1.32 glibc 2.38, neither of which loads on Debian 12, and the real loader built with the patch needs the same. The
// double keeps what matters of it: the compiled-in directory string, and a zeInit that dlopens
// `<that directory>/libze_intel_gpu.so.1` and calls the driver's zeInit (0x78000001, ZE_RESULT_ERROR_UNINITIALIZED, when
// none loads there). `driverDouble` is a driver double that answers zeInit with 0 and names itself.
// The channel `level-zero-baked` of index-server.ts lists these with the GCC 14 runtime their depends name.
import { join } from 'node:path';
import { ensureSidDebs } from './debs.js';
import { buildCondaSet, fixtureKey, GCC14, GLIBC, paddedPrefix } from './gpu-driver-conda.js';
import { compileElf, FIXTURE_MTIME_MS, type ArchiveEntry, type CondaSpec, type ElfSpec, type FixtureArtifact } from './packages.js';
import { tmpdir } from 'node:os';
import { readdir, readFile, lstat, readlink } from 'node:fs/promises';

export const BAKED_LOADER = {
  version: '1.29.0',
  build: 'hb9d3cd8_1',
  buildNumber: 1,
  file: 'lib/libze_loader.so.1.29.0',
  placeholder: paddedPrefix('level-zero', 1780012800000),
} as const;

/** The double's C source: the directory is one string, as the loader's `#define` makes it. */
const loaderSource = (placeholder: string): string => `#include <dlfcn.h>
#include <stdio.h>
__attribute__((visibility("default"))) const char xpu_setup_fixture_extra_driver_dir[] = "${placeholder}/lib";
__attribute__((visibility("default"))) int zeInit(int flags) {
  char path[4096];
  snprintf(path, sizeof path, "%s/libze_intel_gpu.so.1", xpu_setup_fixture_extra_driver_dir);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return 0x78000001;
  int (*init)(int) = (int (*)(int))dlsym(h, "zeInit");
  return init ? init(flags) : 0x78000001;
}
`;

/** A Level Zero driver double: zeInit answers 0. Never one the real loader would take. */
export const driverDouble: ElfSpec = {
  soname: 'libze_intel_gpu.so.1',
  source: '__attribute__((visibility("default"))) int zeInit(int flags) { (void)flags; return 0; }\n',
};

export function inBakedChannel(a: FixtureArtifact): boolean {
  return !!a.conda && (a.name === 'level-zero' || a.name === 'level-zero-devel') && a.version === BAKED_LOADER.version && a.conda.build_number === BAKED_LOADER.buildNumber;
}

async function tree(root: string, rel: string, to: string): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = [];
  for (const name of (await readdir(join(root, rel))).sort()) {
    const abs = join(root, rel, name);
    const st = await lstat(abs);
    if (st.isDirectory()) out.push(...(await tree(root, join(rel, name), join(to, name))));
    else if (st.isSymbolicLink()) out.push({ path: join(to, name), type: 'symlink', target: await readlink(abs) });
    else out.push({ path: join(to, name), type: 'file', data: await readFile(abs), mode: 0o644 });
  }
  return out;
}

let memo: Promise<FixtureArtifact[]> | undefined;

/** Builds (or finds in the test cache) level-zero and level-zero-devel 1.29.0 with the loader's build prefix compiled in. */
export function buildBakedLevelZero(): Promise<FixtureArtifact[]> {
  memo ??= (async () => {
    const sid = await ensureSidDebs();
    const { version, build, buildNumber, file, placeholder } = BAKED_LOADER;
    const key = await fixtureKey(import.meta.url, [`libze-dev=${sid.versions['libze-dev']}`, loaderSource(placeholder)]);
    return buildCondaSet('level-zero-baked', key, async (): Promise<CondaSpec[]> => {
      const loader = await compileElf({ soname: 'libze_loader.so.1', source: loaderSource(placeholder) }, join(tmpdir(), `xpu-baked-loader-${process.pid}`));
      const base = { subdir: 'linux-64' as const, license: 'MIT', timestamp: FIXTURE_MTIME_MS, buildNumber, version };
      return [
        {
          ...base, name: 'level-zero', build,
          depends: [GLIBC, ...GCC14],
          payload: [{ path: file, type: 'file', data: loader, mode: 0o755 }, { path: 'lib/libze_loader.so.1', type: 'symlink', target: 'libze_loader.so.1.29.0' }],
          placeholders: { [file]: { placeholder, mode: 'binary' } },
        },
        {
          ...base, name: 'level-zero-devel', build,
          depends: [`level-zero ==${version} ${build}`],
          payload: [...(await tree(sid.includeDir, 'level_zero', 'include/level_zero')), { path: 'lib/libze_loader.so', type: 'symlink', target: 'libze_loader.so.1' }],
        },
      ];
    });
  })();
  memo.catch(() => (memo = undefined));
  return memo;
}
