// Every Windows-specific answer: directories, library naming and search, markers and tags, how drivers and compilers are found.
import * as path from 'node:path';
import { ARCHES, perArch } from './targets.js';
import type { PlatformLayout, SearchVia } from './types.js';

/** C:\Windows\System32, from SystemRoot/windir. */
export function system32Dir(env: Record<string, string | undefined>): string {
  return path.win32.join(env.SystemRoot ?? env.SYSTEMROOT ?? env.windir ?? env.WINDIR ?? 'C:\\Windows', 'System32');
}

/**
 * LoadLibrary's safe search with the application dir unknown: System32, the Windows dir, then PATH; so a
 * ze_loader.dll that the GPU driver put in System32 beats any copy on PATH.
 */
function librarySearch(name: string, env: Record<string, string | undefined>): { path: string; via: SearchVia }[] {
  const sys32 = system32Dir(env);
  const out: { path: string; via: SearchVia }[] = [
    { path: path.win32.join(sys32, name), via: 'System32' },
    { path: path.win32.join(path.win32.dirname(sys32), name), via: 'Windows dir' },
  ];
  for (const d of (env.PATH ?? env.Path ?? '').split(';').filter(Boolean)) out.push({ path: path.win32.join(d, name), via: 'PATH' });
  return out;
}

/** The Windows layout for an arch: the same prefix and runtime, with the arch's wheel tag, subdir and machine name. */
export const win32LayoutFor = perArch(
  (a): PlatformLayout => ({
    ...win32Common,
    arch: a,
    markers: { ...win32Common.markers, platform_machine: a.windowsMachine },
    wheelTagScore: (tag) => (tag === a.windowsWheelTag ? 1 : undefined),
    condaSubdir: a.condaWindows,
    condaVirtualPackages: () => [['__win', {}], ['__archspec', { version: '1', build: a.machine }]],
  }),
);

const win32Common: Omit<PlatformLayout, 'arch' | 'wheelTagScore' | 'condaSubdir' | 'condaVirtualPackages'> = {
  path: path.win32,
  libraryPathVar: 'PATH',
  pathSep: ';',
  sharedLibDir: 'bin',
  fileNames: 'windows',
  zeLoaderRuntime: 'ze_loader.dll',
  urLoaderRuntime: 'ur_loader.dll',
  urAdapters: ['ur_adapter_level_zero.dll', 'ur_adapter_level_zero_v2.dll', 'ur_adapter_opencl.dll'],
  urCompanions: ['umf.dll'],
  libraryPackages: {
    'umf.dll': 'umf (PyPI umf, conda umf)',
    'tcm.dll': 'tcmlib (PyPI)',
    'libhwloc-15.dll': 'hwloc (PyPI tcmlib, conda libhwloc)',
    'ze_loader.dll': 'the Level Zero loader (conda level-zero; the Intel GPU driver puts it in System32)',
    'OpenCL.dll': 'the GPU driver (System32)',
    'VCRUNTIME140.dll': 'the Visual C++ runtime (conda vc14_runtime, or the Microsoft Visual C++ Redistributable)',
    'VCRUNTIME140_1.dll': 'the Visual C++ runtime (conda vc14_runtime, or the Microsoft Visual C++ Redistributable)',
    'MSVCP140.dll': 'the Visual C++ runtime (conda vc14_runtime, or the Microsoft Visual C++ Redistributable)',
  },
  // Windows 10 and later: the Universal CRT (ucrtbase.dll) is part of the system.
  hostLibraries: {
    system: [
      'kernel32.dll', 'kernelbase.dll', 'ntdll.dll', 'user32.dll', 'gdi32.dll', 'advapi32.dll', 'shell32.dll', 'shlwapi.dll',
      'ole32.dll', 'oleaut32.dll', 'combase.dll', 'rpcrt4.dll', 'ws2_32.dll', 'iphlpapi.dll', 'version.dll', 'bcrypt.dll',
      'crypt32.dll', 'secur32.dll', 'userenv.dll', 'psapi.dll', 'dbghelp.dll', 'setupapi.dll', 'cfgmgr32.dll', 'winmm.dll',
      'powrprof.dll', 'dxgi.dll', 'd3d11.dll', 'd3d12.dll', 'msvcrt.dll', 'ucrtbase.dll',
      // Not Windows' own, but what nearly every machine has from the Visual C++ Redistributable: on Windows they are
      // looked for like the rest, so a machine without them is told.
      'vcruntime140.dll', 'vcruntime140_1.dll', 'msvcp140.dll',
    ],
    driver: ['ze_loader.dll', 'opencl.dll'],
  },
  // conda-style Library\bin is searched too: wheels and conda packages keep it when installed elsewhere.
  prefixLibDirs: ['bin', 'Library\\bin'],
  zeDriverLibraries: ['ze_intel_gpu64.dll', 'ze_intel_vpu.dll'],
  // Windows' ICD loader reads the registry, not a directory.
  openclVendorDirs: [],
  openclLibrary: 'OpenCL.dll',
  zstdLibraries: [],
  zeLinkLibrary: 'ze_loader.lib',
  compilerIncludeVars: ['INCLUDE'],
  systemIncludeDirs: [],
  defaultShell: 'pwsh',
  // Node passes long absolute paths to Windows with the \\\\?\\ prefix, so only a component's 255 units bind.
  nameLimits: { name: 255, path: 32767, unit: 'UTF-16 units' },
  kernelFileSystems: {},
  searchPathVars: [
    { name: 'INCLUDE', dir: 'include' },
    { name: 'LIB', dir: 'lib' },
    { name: 'PATH', dir: 'bin', runtime: true },
  ],
  prefixSeparator: (prefix) => (prefix.includes('\\') || /^[A-Za-z]:/.test(prefix) ? '\\' : '/'),
  renderNodes: false,
  systemPackages: false,
  ldconfig: false,
  oneapiLibDirs: ['bin', 'compiler/latest/bin'],
  driverLoaderInSystem32: true,
  caseInsensitivePaths: true,
  caseInsensitiveEnv: true,
  pythonInVenv: ['Scripts/python.exe'],
  pythonInConda: ['python.exe'],
  pythonOnPath: ['python.exe', 'python3.exe'],
  sitePackages: ['Lib/site-packages'],
  librarySearch,
  binaryFormat: 'pe',
  loadLibrary: 'LoadLibraryExW',
  sharedLibSuffix: '.dll',
  exeSuffix: '.exe',
  processGroups: false,
  runpath: false,
  sharedLibFlags: [],
  compilerSearch: 'msvc-first',
  pathExt: true,
  npmShims: true,
  cmdEnvFile: true,
  msysShell: true,
  gpuDriver: 'display-driver',
  refDriver: false,
  decidesRuntimeLibraries: false,
  markers: { os_name: 'nt', sys_platform: 'win32', platform_system: 'Windows', platform_machine: '' },
  remedies: {
    noCompiler: 'install Visual Studio Build Tools with the "Desktop development with C++" workload (or set CC)',
    noZeLoader: (setup) => `install the Intel graphics driver (it puts ze_loader.dll in System32), or run ${setup} with --include-loader-dll to put the package's own copy in the prefix`,
    noGpuDriver: ['install or update the Intel GPU driver (it ships the Level Zero driver)'],
    noSdkPath:
      "the Intel GPU driver's full installer sets LEVEL_ZERO_V1_SDK_PATH, a driver installed from its INF (Windows Update, Device Manager, the DriverStore) does not (Triton #5879), and PyTorch Inductor's Windows build requires it",
  },
};

/** The layout of the Windows this tool runs on (x64: targets.ts). */
export const win32Layout = win32LayoutFor(ARCHES.x64);

export function win32DataDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'prefix');
}

export function win32CacheDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'cache');
}
