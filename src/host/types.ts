// What the rest of the code may know about the machine: plain data, produced by detectHost().

export type TargetPlatform = 'linux-x64' | 'win-x64';
export const TARGET_PLATFORMS: readonly TargetPlatform[] = ['linux-x64', 'win-x64'];

export interface Distro {
  id: string;
  versionId?: string;
  versionCodename?: string;
  idLike: string[];
  prettyName?: string;
}

export interface Host {
  /** The platform the plan is made for (may differ from the running one with --platform). */
  platform: TargetPlatform;
  os: 'linux' | 'win32';
  arch: 'x64';
  /** True when the plan targets the machine it runs on, so things may be executed. */
  native: boolean;
  distro?: Distro;
  /** glibc version such as "2.36", for manylinux wheel tags. */
  glibc?: string;
}

/** Everything that differs between the two platforms' prefixes and runtimes. */
export interface PlatformLayout {
  /** Path functions for this platform's paths (win32 paths keep working on a Linux host). */
  path: typeof import('node:path').posix;
  /** Env var the dynamic loader searches. */
  libraryPathVar: 'LD_LIBRARY_PATH' | 'PATH';
  /** Path separator inside env var values. */
  pathSep: ':' | ';';
  /** Where shared libraries live inside the prefix. */
  sharedLibDir: 'lib' | 'bin';
  /** File name of the L0 loader the app loads at run time. */
  zeLoaderRuntime: string;
  /** File name of the UR loader. */
  urLoaderRuntime: string;
  /** UR adapters, and what the Level Zero adapters need besides the L0 loader. */
  urAdapters: string[];
  urCompanions: string[];
  /** Which package brings a shared library, for messages about one that is missing (`libumf.so.1` -> the umf package). */
  libraryPackages: Record<string, string>;
  /** Directories inside a prefix that hold shared libraries, most likely first. */
  prefixLibDirs: string[];
  /**
   * Libraries every installation has (Windows: its own DLLs in System32, and what the GPU driver puts there), taken as
   * present when a tree for this platform is checked on another system.
   */
  hostLibraries?: { system: string[]; driver: string[] };
  /** The driver libraries a Level Zero loader tries when ZE_ENABLE_ALT_DRIVERS is not set. */
  zeDriverLibraries: string[];
  /** The OpenCL ICD loader. */
  openclLibrary: string;
  /** The L0 link library under <sdk>/lib that `-lze_loader` (or the MSVC linker) picks up. */
  zeLinkLibrary: 'libze_loader.so' | 'ze_loader.lib';
  /** Variables the C compiler searches for headers, and its built-in include dirs. */
  compilerIncludeVars: ('CPATH' | 'C_INCLUDE_PATH' | 'CPLUS_INCLUDE_PATH' | 'INCLUDE')[];
  systemIncludeDirs: string[];
  /** The shell whose env file `xpu-setup env` prints when none is named. */
  defaultShell: 'sh' | 'pwsh';
  /** The longest name of one path component and of a whole path the file systems take, and how they count. */
  nameLimits: { name: number; path: number; unit: 'bytes' | 'UTF-16 units' };
  /** Search-path variables the env files prepend, each with its directory inside the prefix (runtime: only the dynamic loader reads it). */
  searchPathVars: { name: string; dir: string; runtime?: boolean }[];
  /** The separator for paths under `prefix`: a Windows prefix written with `/` keeps `/`. */
  prefixSeparator(prefix: string): '/' | '\\';
  /** How the target's file systems treat names: Windows reserves device names and ignores case. */
  fileNames: 'posix' | 'windows';
  /** The platform's /dev/dri render nodes and `render` group exist (Linux). */
  renderNodes: boolean;
  /** Files may belong to a system package manager (dpkg, rpm) that knows their version. */
  systemPackages: boolean;
  /** The dynamic loader has an ld.so.cache that `ldconfig -p` lists (Linux). */
  ldconfig: boolean;
  /**
   * The dynamic linker that can be run as a program to link a library without running any of its code (glibc's
   * ld.so with LD_TRACE_LOADED_OBJECTS); undefined where libraries are tried by loading them in a node child.
   */
  dynamicLinker?: string;
  /** Where a oneAPI install under ONEAPI_ROOT keeps its runtime libraries, relative to that root. */
  oneapiLibDirs: string[];
  /**
   * The GPU driver puts its own Level Zero loader in System32, which the DLL search tries before PATH (Windows): a
   * prefix holding only the SDK (headers, link library) runs on that copy, and which copy a program gets is worth saying.
   */
  driverLoaderInSystem32: boolean;
  /** Paths compare without case, and either slash separates (Windows). */
  caseInsensitivePaths: boolean;
  /** A Python environment's interpreter, relative to a venv (VIRTUAL_ENV) and to a conda env (CONDA_PREFIX). */
  pythonInVenv: string[];
  pythonInConda: string[];
  /** Interpreter names looked up on PATH, in order. */
  pythonOnPath: string[];
  /** Where a venv or conda env keeps installed distributions; a `*` segment matches one directory (`python3.11`). */
  sitePackages: string[];
  /** Remedies that errors and doctor checks say, in this platform's words. */
  remedies: PlatformRemedies;
}

export interface PlatformRemedies {
  /** No C compiler: how to get one. */
  noCompiler: string;
  /** No Level Zero loader anywhere. */
  noZeLoader(setupCommand: string): string;
  /** zeInit found no driver: what to install or check, in order. */
  noGpuDriver: string[];
}
