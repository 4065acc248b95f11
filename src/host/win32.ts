// Every Windows-specific answer: directories and library naming.
import * as path from 'node:path';
import type { PlatformLayout } from './types.js';

export const win32Layout: PlatformLayout = {
  path: path.win32,
  libraryPathVar: 'PATH',
  pathSep: ';',
  sharedLibDir: 'bin',
  fileNames: 'windows',
  zeLoaderRuntime: 'ze_loader.dll',
  urLoaderRuntime: 'ur_loader.dll',
  urAdapters: ['ur_adapter_level_zero.dll', 'ur_adapter_level_zero_v2.dll', 'ur_adapter_opencl.dll'],
  urCompanions: ['umf.dll'],
  libraryPackages: { 'umf.dll': 'umf (PyPI umf, conda umf)', 'tcm.dll': 'tcmlib (PyPI)', 'libhwloc-15.dll': 'hwloc (PyPI tcmlib, conda libhwloc)' },
  // conda-style Library\bin is searched too: wheels and conda packages keep it when installed elsewhere.
  prefixLibDirs: ['bin', 'Library\\bin'],
  zeDriverLibraries: ['ze_intel_gpu64.dll', 'ze_intel_vpu.dll'],
  openclLibrary: 'OpenCL.dll',
  zeLinkLibrary: 'ze_loader.lib',
  compilerIncludeVars: ['INCLUDE'],
  systemIncludeDirs: [],
  defaultShell: 'pwsh',
  // Node passes long absolute paths to Windows with the \\\\?\\ prefix, so only a component's 255 units bind.
  nameLimits: { name: 255, path: 32767, unit: 'UTF-16 units' },
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
  pythonInVenv: ['Scripts/python.exe'],
  pythonInConda: ['python.exe'],
  pythonOnPath: ['python.exe', 'python3.exe'],
  sitePackages: ['Lib/site-packages'],
  remedies: {
    noCompiler: 'install Visual Studio Build Tools with the "Desktop development with C++" workload (or set CC)',
    noZeLoader: (setup) => `install the Intel graphics driver (it puts ze_loader.dll in System32), or run ${setup}`,
    noGpuDriver: ['install or update the Intel GPU driver (it ships the Level Zero driver)'],
  },
};

export function win32DataDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'prefix');
}

export function win32CacheDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'cache');
}
