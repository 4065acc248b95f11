// Every Linux-specific answer: directories, library naming and search, markers and tags, os-release and glibc parsing.
import * as path from 'node:path';
import { ARCHES, perArch, type ArchFacts } from './targets.js';
import type { CachedLibrary, Distro, PlatformLayout, SearchVia } from './types.js';

/** glibc's trusted directories (Debian's multiarch dir of the arch, and the lib64 distros). */
const defaultLibDirs = (a: ArchFacts): string[] => [`/lib/${a.multiarch}`, `/usr/lib/${a.multiarch}`, '/lib64', '/usr/lib64'];

/** LD_LIBRARY_PATH, then ld.so.cache, then the default dirs. */
const librarySearch = (a: ArchFacts) =>
  function librarySearch(name: string, env: Record<string, string | undefined>, ldcache: CachedLibrary[] = []): { path: string; via: SearchVia }[] {
    const out: { path: string; via: SearchVia }[] = [];
    for (const d of (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)) out.push({ path: path.posix.join(d, name), via: 'LD_LIBRARY_PATH' });
    // A row's flags name its arch as ldconfig -p prints them (`libc6,x86-64`, `libc6,AArch64`).
    for (const e of ldcache) if (e.name === name && e.flags.split(',').includes(a.elfMachineName)) out.push({ path: e.path, via: 'ld.so.cache' });
    for (const d of defaultLibDirs(a)) out.push({ path: path.posix.join(d, name), via: 'default dirs' });
    return out;
  };

const LEGACY_MANYLINUX: Record<string, [number, number]> = { manylinux1: [2, 5], manylinux2010: [2, 12], manylinux2014: [2, 17] };

/** A manylinux tag of the arch fits when this glibc is at least the tag's; a newer baseline scores higher. */
const wheelTagScore = (a: ArchFacts) => (tag: string, glibc: string | undefined): number | undefined => {
  if (!tag.endsWith(`_${a.machine}`)) return undefined;
  const m = /^(manylinux1|manylinux2010|manylinux2014|manylinux_(\d+)_(\d+))$/.exec(tag.slice(0, -a.machine.length - 1));
  if (!m) return undefined;
  const [maj, min] = m[2] ? [Number(m[2]), Number(m[3])] : LEGACY_MANYLINUX[m[1]!]!;
  // Planning for another machine with no glibc to read: assume the manylinux_2_28 baseline.
  const [gMaj, gMin] = (glibc ?? '2.28').split('.').map(Number) as [number, number];
  if (maj > gMaj || (maj === gMaj && min > gMin)) return undefined;
  return 1 + maj * 1000 + min;
};

/** The Linux layout for an arch: the same prefix and runtime, with the arch's tags, subdir, directories and linker. */
export const linuxLayoutFor = perArch(
  (a): PlatformLayout => ({
    ...linuxCommon,
    arch: a,
    librarySearch: librarySearch(a),
    // The psABI fixes this path for each arch.
    dynamicLinker: a.dynamicLinker,
    markers: { ...linuxCommon.markers, platform_machine: a.machine },
    wheelTagScore: wheelTagScore(a),
    condaSubdir: a.condaLinux,
    condaVirtualPackages: (glibc) => [['__glibc', { version: glibc }], ['__linux', {}], ['__unix', {}], ['__archspec', { version: '1', build: a.machine }]],
  }),
);

const linuxCommon: Omit<PlatformLayout, 'arch' | 'librarySearch' | 'dynamicLinker' | 'wheelTagScore' | 'condaSubdir' | 'condaVirtualPackages'> = {
  path: path.posix,
  libraryPathVar: 'LD_LIBRARY_PATH',
  pathSep: ':',
  sharedLibDir: 'lib',
  fileNames: 'posix',
  zeLoaderRuntime: 'libze_loader.so.1',
  urLoaderRuntime: 'libur_loader.so.0',
  urAdapters: ['libur_adapter_level_zero.so.0', 'libur_adapter_level_zero_v2.so.0', 'libur_adapter_opencl.so.0'],
  urCompanions: ['libumf.so.1'],
  libraryPackages: {
    'libumf.so.1': 'umf 1.x (PyPI umf, conda umf)',
    'libumf.so.0': 'umf 0.x (PyPI umf, conda umf)',
    'libtcm.so.1': 'tcmlib (PyPI)',
    'libhwloc.so.15': 'hwloc (PyPI tcmlib, conda libhwloc, apt libhwloc15)',
    'libze_loader.so.1': 'the Level Zero loader (conda level-zero, apt libze1)',
    'libOpenCL.so.1': 'the OpenCL ICD loader (apt ocl-icd-libopencl1, conda ocl-icd)',
    'libstdc++.so.6': 'libstdc++ (conda libstdcxx; a newer distribution)',
    'libgcc_s.so.1': 'libgcc (conda libgcc)',
    'libgomp.so.1': 'libgomp (conda libgomp)',
    'libc.so.6': 'glibc (a newer distribution)',
  },
  prefixLibDirs: ['lib', 'lib64'],
  zeDriverLibraries: ['libze_intel_gpu.so.1', 'libze_intel_vpu.so.1'],
  openclLibrary: 'libOpenCL.so.1',
  openclVendorDirs: ['/etc/OpenCL/vendors'],
  // Debian's dpkg links it (so does rpm), so it is there even where the zstd program is not.
  zstdLibraries: ['libzstd.so.1'],
  zeLinkLibrary: 'libze_loader.so',
  compilerIncludeVars: ['CPATH', 'C_INCLUDE_PATH', 'CPLUS_INCLUDE_PATH'],
  systemIncludeDirs: ['/usr/local/include', '/usr/include'],
  defaultShell: 'sh',
  nameLimits: { name: 255, path: 4096, unit: 'bytes' },
  // The magic numbers of linux/magic.h.
  kernelFileSystems: {
    0x9fa0: 'proc', 0x62656572: 'sysfs', 0x1cd1: 'devpts', 0x27e0eb: 'cgroup', 0x63677270: 'cgroup2', 0x64626720: 'debugfs',
    0x74726163: 'tracefs', 0x73636673: 'securityfs', 0x6165676c: 'pstore', 0xcafe4a11: 'bpf', 0x62656570: 'configfs',
    0xde5e81e4: 'efivarfs', 0xf97cff8c: 'selinuxfs', 0x42494e4d: 'binfmt_misc',
  },
  searchPathVars: [
    { name: 'CPATH', dir: 'include' },
    { name: 'LIBRARY_PATH', dir: 'lib' },
    { name: 'LD_LIBRARY_PATH', dir: 'lib', runtime: true },
  ],
  prefixSeparator: () => '/',
  renderNodes: true,
  systemPackages: true,
  ldconfig: true,
  oneapiLibDirs: ['lib', 'compiler/latest/lib'],
  driverLoaderInSystem32: false,
  caseInsensitivePaths: false,
  caseInsensitiveEnv: false,
  pythonInVenv: ['bin/python3', 'bin/python'],
  pythonInConda: ['bin/python3', 'bin/python'],
  pythonOnPath: ['python3', 'python'],
  sitePackages: ['lib/python3.*/site-packages'],
  binaryFormat: 'elf',
  loadLibrary: 'dlopen',
  sharedLibSuffix: '.so',
  exeSuffix: '',
  processGroups: true,
  runpath: true,
  sharedLibFlags: ['-fPIC'],
  compilerSearch: 'gnu',
  pathExt: false,
  userShellVar: 'SHELL',
  npmShims: false,
  cmdEnvFile: false,
  msysShell: false,
  gpuDriver: 'kernel-module',
  refDriver: true,
  decidesRuntimeLibraries: true,
  markers: { os_name: 'posix', sys_platform: 'linux', platform_system: 'Linux', platform_machine: '' },
  remedies: {
    noCompiler: 'install one (sudo apt install gcc, sudo dnf install gcc) or set CC',
    noZeLoader: (setup) => `run ${setup} to install a loader into the prefix (or install the distro package, e.g. sudo apt install libze1)`,
    noGpuDriver: [
      'install the Intel GPU user-mode driver (Debian/Ubuntu: libze-intel-gpu1 or intel-level-zero-gpu; it provides libze_intel_gpu.so.1)',
      'if the driver is installed: check that you can open /dev/dri/renderD* (add yourself to the `render` group)',
    ],
  },
};

/** The layout of the Linux this tool runs on (x64: targets.ts). */
export const linuxLayout = linuxLayoutFor(ARCHES.x64);

export function linuxDataDir(env: Record<string, string | undefined>, home: string): string {
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'xpu-setup');
}

export function linuxCacheDir(env: Record<string, string | undefined>, home: string): string {
  return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), 'xpu-setup');
}

/** Parses /etc/os-release (KEY=value, values optionally quoted). */
export function parseOsRelease(text: string): Distro | undefined {
  const kv: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2]!;
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    kv[m[1]!] = v.replace(/\\(.)/g, '$1');
  }
  if (!kv.ID) return undefined;
  return {
    id: kv.ID,
    versionId: kv.VERSION_ID,
    versionCodename: kv.VERSION_CODENAME,
    idLike: (kv.ID_LIKE ?? '').split(/\s+/).filter(Boolean),
    prettyName: kv.PRETTY_NAME,
  };
}

/** glibc version from `ldd --version` (first line ends with the version) or `getconf GNU_LIBC_VERSION`. */
export function parseGlibcVersion(text: string): string | undefined {
  const first = text.split('\n')[0] ?? '';
  const m = /(?:glibc|GLIBC|libc)[^\n]*?(\d+\.\d+)\s*$/.exec(first.trim()) ?? /^glibc (\d+\.\d+)/.exec(first.trim());
  return m?.[1];
}

/** The C library this process runs on, from /proc/self/maps (glibc's is libc.so.6; musl's is not). */
export function libcPathFromMaps(maps: string): string | undefined {
  return /\s(\/\S*\/libc\.so\.6)\s*$/m.exec(maps)?.[1];
}

/** glibc's version from the banner compiled into libc.so.6 ("GNU C Library (...) stable release version 2.36."). */
export function parseLibcBanner(bytes: Uint8Array): string | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buf.indexOf('GNU C Library ');
  if (at < 0) return undefined;
  return /^GNU C Library [^\n]{0,200}?release version (\d+\.\d+)/.exec(buf.toString('latin1', at, at + 300))?.[1];
}

export function isDebianLike(d: Distro | undefined): boolean {
  return !!d && (d.id === 'debian' || d.id === 'ubuntu' || d.idLike.includes('debian') || d.idLike.includes('ubuntu'));
}
