// What the rest of the code may know about the machine: plain data, produced by detectHost().

import type { Arch, ArchFacts, TargetOs, TargetPlatform } from './targets.js';

export { ARCHES, PLATFORMS, TARGET_PLATFORMS, type Arch, type ArchFacts, type TargetOs, type TargetPlatform } from './targets.js';

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
  os: TargetOs;
  arch: Arch;
  /** True when the plan targets the machine it runs on, so things may be executed. */
  native: boolean;
  distro?: Distro;
  /** glibc version such as "2.36", for manylinux wheel tags. */
  glibc?: string;
}

/** One entry of the dynamic linker's cache (`ldconfig -p`): a library's name, where it is, its flags (`libc6,x86-64`). */
export interface CachedLibrary {
  name: string;
  path: string;
  flags: string;
}

/** How a library search found a place to look: the variable, cache or directory the dynamic linker takes it from. */
export type SearchVia = 'LD_LIBRARY_PATH' | 'ld.so.cache' | 'default dirs' | 'System32' | 'Windows dir' | 'PATH';

/** Everything that differs between the platforms' prefixes and runtimes. */
export interface PlatformLayout {
  /** The CPU architecture this layout is for (conda subdir, wheel tags, ELF/PE machine, multiarch dir). */
  arch: ArchFacts;
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
  /** The driver libraries a Level Zero loader tries when no driver choice replaces them. */
  zeDriverLibraries: string[];
  /** The OpenCL ICD loader. */
  openclLibrary: string;
  /** Where the machine's OpenCL ICD loader reads its .icd files when OCL_ICD_VENDORS is not set. */
  openclVendorDirs: readonly string[];
  /**
   * The system's zstd library, opened by name to decompress a full repodata.json.zst in this process; none where no
   * system copy is found by name safely (Windows would search the current directory and PATH for a bare DLL name).
   */
  zstdLibraries: string[];
  /** The L0 link library under <sdk>/lib that `-lze_loader` (or the MSVC linker) picks up. */
  zeLinkLibrary: 'libze_loader.so' | 'ze_loader.lib';
  /** Variables the C compiler searches for headers, and its built-in include dirs. */
  compilerIncludeVars: ('CPATH' | 'C_INCLUDE_PATH' | 'CPLUS_INCLUDE_PATH' | 'INCLUDE')[];
  systemIncludeDirs: string[];
  /** The shell whose env file `xpu-setup env` prints when none is named. */
  defaultShell: 'sh' | 'pwsh';
  /** The longest name of one path component and of a whole path the file systems take, and how they count. */
  nameLimits: { name: number; path: number; unit: 'bytes' | 'UTF-16 units' };
  /**
   * File systems the kernel makes up (`statfs` type -> name), where no directory can be made whatever the permissions
   * say (root's access() answers yes for /proc); none on Windows.
   */
  kernelFileSystems: Readonly<Record<number, string>>;
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
  /** Environment variable names compare without case (`Path` is `PATH`), so a child's environment must not hold both. */
  caseInsensitiveEnv: boolean;
  /** A Python environment's interpreter, relative to a venv (VIRTUAL_ENV) and to a conda env (CONDA_PREFIX). */
  pythonInVenv: string[];
  pythonInConda: string[];
  /** Interpreter names looked up on PATH, in order. */
  pythonOnPath: string[];
  /** Where a venv or conda env keeps installed distributions; a `*` segment matches one directory (`python3.11`). */
  sitePackages: string[];
  /** Remedies that errors and doctor checks say, in this platform's words. */
  remedies: PlatformRemedies;
  /**
   * The places the dynamic linker looks for `name`, in order, for a program without RPATH (Linux: LD_LIBRARY_PATH,
   * ld.so.cache, the default dirs; Windows, safe search, application dir unknown: System32, the Windows dir, PATH).
   */
  librarySearch(name: string, env: Record<string, string | undefined>, ldcache?: CachedLibrary[]): { path: string; via: SearchVia }[];
  /** The binary format of libraries and programs: what is read to learn what a library needs. */
  binaryFormat: 'elf' | 'pe';
  /** How a library is opened by its full path: dlopen, or LoadLibraryExW with the safe DLL search first (Windows). */
  loadLibrary: 'dlopen' | 'LoadLibraryExW';
  /** What a shared library's and a program's file names end with. */
  sharedLibSuffix: '.so' | '.dll';
  exeSuffix: '' | '.exe';
  /**
   * A child process is started in a process group of its own and stopped as a group (POSIX), so a program that forked
   * (a python whose script starts a sleeper) cannot keep running, or keep its output pipe open, past its time.
   */
  processGroups: boolean;
  /** Shared libraries are found at run time through RPATH/RUNPATH (ELF), so a build records the prefix's lib dir. */
  runpath: boolean;
  /** GCC-style flags a shared library needs here (Windows code is position-independent already). */
  sharedLibFlags: string[];
  /** Where compilers are looked for: GNU names on PATH, or MSVC first (PATH, vswhere, clang-cl), then MinGW. */
  compilerSearch: 'gnu' | 'msvc-first';
  /** PATHEXT names the extensions a program name may leave out (Windows). */
  pathExt: boolean;
  /** The variable that names the user's login shell ($SHELL on Unix); undefined where `defaultShell` is the answer. */
  userShellVar?: 'SHELL';
  /** npm puts a package's programs on PATH as .cmd/.exe/.ps1 shims that name the package, not as links to it (Windows). */
  npmShims: boolean;
  /** cmd.exe reads env.bat, so the closing line names it besides the user's shell's file (Windows). */
  cmdEnvFile: boolean;
  /** POSIX sh here is Git Bash (MSYS), which holds PATH as ':'-joined POSIX paths and converts it for programs. */
  msysShell: boolean;
  /**
   * How the GPU driver is installed and found: a kernel module bound to the PCI device with a user-mode library the
   * loader finds on the library path (sysfs lists devices), or a display driver in the DriverStore (CIM lists adapters).
   */
  gpuDriver: 'kernel-module' | 'display-driver';
  /** The CPU reference driver (PoCL behind the Level Zero API) builds and runs here, with its distribution packages. */
  refDriver: boolean;
  /**
   * Runtime libraries (libstdc++, libgcc) a conda package depends on may be left to this machine's own copies when
   * those meet every need (ELF symbol versions can be read and compared).
   */
  decidesRuntimeLibraries: boolean;
  /** PEP 508 marker values of this platform (Python's own names: sys.platform, platform.system(), ...). */
  markers: { os_name: string; sys_platform: string; platform_system: string; platform_machine: string };
  /** How well a wheel's platform tag fits (higher is better), undefined when it cannot be installed; `any` is 0. */
  wheelTagScore(tag: string, glibc: string | undefined): number | undefined;
  /** The conda channel subdirectory of this platform's packages. */
  condaSubdir: string;
  /** The conda virtual packages this platform provides (`__glibc` at the machine's glibc, `__unix`, `__win`, `__archspec`). */
  condaVirtualPackages(glibc: string | undefined): [string, { version?: string; build?: string }][];
}

export interface PlatformRemedies {
  /** No C compiler: how to get one. */
  noCompiler: string;
  /** No Level Zero loader anywhere. */
  noZeLoader(setupCommand: string): string;
  /** zeInit found no driver: what to install or check, in order. */
  noGpuDriver: string[];
  /** LEVEL_ZERO_V1_SDK_PATH is not set: who sets it on this platform, and who does not (none where nobody does). */
  noSdkPath?: string;
}
