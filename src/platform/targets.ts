// The platforms a prefix is made for, as (OS, arch) data: one table of what each CPU architecture is called and
// looks like in every format read or written here (conda, wheels, Debian, ELF, PE, the dynamic linker).

/** A CPU architecture by xpu-setup's name for it. */
export type Arch = 'x64' | 'aarch64';

export interface ArchFacts {
  name: Arch;
  /** Node's `process.arch` on it. */
  node: string;
  /** The machine as Linux, Python (`platform.machine()` on Linux), manylinux tags, conda's `arch` and archspec name it. */
  machine: string;
  /** The machine as Windows and Python on Windows name it (`platform.machine()`, PROCESSOR_ARCHITECTURE). */
  windowsMachine: string;
  /** conda's subdir suffix on Linux (`linux-64`, `linux-aarch64`) and on Windows (`win-64`, `win-arm64`). */
  condaLinux: string;
  condaWindows: string;
  /** The wheel platform tag of Windows builds (`win_amd64`); Linux wheels end with `_<machine>` (`manylinux_2_28_x86_64`). */
  windowsWheelTag: string;
  /** Debian's name for it (`.deb` file names, `dpkg --print-architecture`) and its multiarch directory under /usr/lib. */
  debArch: string;
  multiarch: string;
  /** ELF `e_machine` of its programs and libraries, and the name `file`/readelf print for it. */
  elfMachine: number;
  elfMachineName: string;
  /** glibc's dynamic linker, at the path the psABI fixes (programs name it as their interpreter). */
  dynamicLinker: string;
  /** PE/COFF `Machine` of its Windows binaries. */
  peMachine: number;
}

export const ARCHES: Readonly<Record<Arch, ArchFacts>> = {
  x64: {
    name: 'x64',
    node: 'x64',
    machine: 'x86_64',
    windowsMachine: 'AMD64',
    condaLinux: 'linux-64',
    condaWindows: 'win-64',
    windowsWheelTag: 'win_amd64',
    debArch: 'amd64',
    multiarch: 'x86_64-linux-gnu',
    elfMachine: 62, // EM_X86_64
    elfMachineName: 'x86-64',
    dynamicLinker: '/lib64/ld-linux-x86-64.so.2',
    peMachine: 0x8664,
  },
  aarch64: {
    name: 'aarch64',
    node: 'arm64',
    machine: 'aarch64',
    windowsMachine: 'ARM64',
    condaLinux: 'linux-aarch64',
    condaWindows: 'win-arm64',
    windowsWheelTag: 'win_arm64',
    debArch: 'arm64',
    multiarch: 'aarch64-linux-gnu',
    elfMachine: 183, // EM_AARCH64
    elfMachineName: 'AArch64',
    dynamicLinker: '/lib/ld-linux-aarch64.so.1',
    peMachine: 0xaa64,
  },
};

/** `build` made once per arch: what it returns may be compared by identity (one layout object per platform). */
export function perArch<T>(build: (a: ArchFacts) => T): (a: ArchFacts) => T {
  const made = new Map<ArchFacts, T>();
  return (a) => {
    if (!made.has(a)) made.set(a, build(a));
    return made.get(a)!;
  };
}

/** The OSes a prefix is laid out for, by Node's name. */
export type TargetOs = 'linux' | 'win32';

/**
 * Every platform a prefix can be made for: its OS, its arch, and whether this tool runs there itself (a platform it
 * does not run on is planned and installed for from another machine, nothing executed, as `--platform` does).
 */
export const PLATFORMS = {
  'linux-x64': { os: 'linux', arch: 'x64', runsHere: true },
  'win-x64': { os: 'win32', arch: 'x64', runsHere: true },
  // Planned for from an x64 machine (a login node's prefix for its Arm compute nodes); this tool does not run there yet.
  'linux-aarch64': { os: 'linux', arch: 'aarch64', runsHere: false },
} as const satisfies Record<string, { os: TargetOs; arch: Arch; runsHere: boolean }>;

export type TargetPlatform = keyof typeof PLATFORMS;
export const TARGET_PLATFORMS = Object.keys(PLATFORMS) as readonly TargetPlatform[];

/** A platform's OS and the facts of its arch. */
export function platformOf(platform: TargetPlatform): { os: TargetOs; arch: ArchFacts; runsHere: boolean } {
  const p = PLATFORMS[platform];
  return { os: p.os, arch: ARCHES[p.arch], runsHere: p.runsHere };
}

/** The platform this tool runs as on a Node platform and arch (`linux`, `x64`), if it runs there. */
export function platformRunning(os: string, nodeArch: string): TargetPlatform | undefined {
  return TARGET_PLATFORMS.find((t) => PLATFORMS[t].runsHere && PLATFORMS[t].os === os && ARCHES[PLATFORMS[t].arch].node === nodeArch);
}
