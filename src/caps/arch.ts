// Maps a GPU IP version (GMDID) to an architecture name, with aliases, the stepping and SYCL's enum; data, not branches.

export interface IpVersion {
  major: number;
  minor: number;
  revision: number;
}

export interface ArchRow {
  /** SYCL's name without the `intel_gpu_` prefix (device_architecture.def). */
  sycl: string;
  /** The name Triton's arch_parser returns and TRITON_INTEL_DEVICE_ARCH takes; null where Triton has none. */
  triton: string | null;
  /** Other names for the same (major, minor): SYCL aliases, compute-runtime and Linux platform names. */
  aliases: string[];
  major: number;
  minor: number;
  /** The revision SYCL's enum encodes (a stepping); other revisions still match the row by (major, minor). */
  revision: number;
  family: string;
}

/**
 * Keyed by (major, minor): the revision is the stepping, so a B0 part of a known design still gets its name.
 * Versions and names from intel/llvm `device_architecture.def` (the enum value is the GMDID << 8) and compute-runtime
 * `third_party/aot_config_headers/platforms.h`. Triton's names from its `arch_parser.c`; DG2-G11/G12, for which
 * Triton returns an empty name, are given `dg2` because they are the same design as G10 (which Triton calls dg2).
 * Parts before Xe-HPG report a synthetic GMDID through OpenCL (SYCL lists them as 8.0.0 ... 12.10.0).
 */
export const ARCH_TABLE: readonly ArchRow[] = [
  { sycl: 'bdw', triton: null, aliases: ['bdw', 'gen8'], major: 8, minor: 0, revision: 0, family: 'Gen8 (Broadwell)' },
  { sycl: 'skl', triton: null, aliases: ['skl'], major: 9, minor: 0, revision: 9, family: 'Gen9 (Skylake)' },
  { sycl: 'kbl', triton: null, aliases: ['kbl'], major: 9, minor: 1, revision: 9, family: 'Gen9.5 (Kaby Lake)' },
  { sycl: 'cfl', triton: null, aliases: ['cfl'], major: 9, minor: 2, revision: 9, family: 'Gen9.5 (Coffee Lake)' },
  { sycl: 'apl', triton: null, aliases: ['apl', 'bxt'], major: 9, minor: 3, revision: 0, family: 'Gen9 (Apollo Lake / Broxton)' },
  { sycl: 'glk', triton: null, aliases: ['glk'], major: 9, minor: 4, revision: 0, family: 'Gen9.5 (Gemini Lake)' },
  { sycl: 'whl', triton: null, aliases: ['whl'], major: 9, minor: 5, revision: 0, family: 'Gen9.5 (Whiskey Lake)' },
  { sycl: 'aml', triton: null, aliases: ['aml'], major: 9, minor: 6, revision: 0, family: 'Gen9.5 (Amber Lake)' },
  { sycl: 'cml', triton: null, aliases: ['cml'], major: 9, minor: 7, revision: 0, family: 'Gen9.5 (Comet Lake)' },
  { sycl: 'icllp', triton: null, aliases: ['icllp', 'icl'], major: 11, minor: 0, revision: 0, family: 'Gen11 (Ice Lake)' },
  { sycl: 'ehl', triton: null, aliases: ['ehl', 'jsl'], major: 11, minor: 2, revision: 0, family: 'Gen11 (Elkhart Lake / Jasper Lake)' },
  { sycl: 'tgllp', triton: null, aliases: ['tgllp', 'tgl'], major: 12, minor: 0, revision: 0, family: 'Xe-LP (Tiger Lake)' },
  { sycl: 'rkl', triton: null, aliases: ['rkl'], major: 12, minor: 1, revision: 0, family: 'Xe-LP (Rocket Lake)' },
  { sycl: 'adl_s', triton: null, aliases: ['adl_s', 'rpl_s'], major: 12, minor: 2, revision: 0, family: 'Xe-LP (Alder Lake-S / Raptor Lake-S)' },
  { sycl: 'adl_p', triton: null, aliases: ['adl_p'], major: 12, minor: 3, revision: 0, family: 'Xe-LP (Alder Lake-P)' },
  { sycl: 'adl_n', triton: null, aliases: ['adl_n'], major: 12, minor: 4, revision: 0, family: 'Xe-LP (Alder Lake-N)' },
  { sycl: 'dg1', triton: null, aliases: ['dg1'], major: 12, minor: 10, revision: 0, family: 'Xe-LP (DG1)' },
  { sycl: 'acm_g10', triton: 'dg2', aliases: ['acm_g10', 'dg2_g10'], major: 12, minor: 55, revision: 8, family: 'Xe-HPG (Alchemist)' },
  { sycl: 'acm_g11', triton: 'dg2', aliases: ['acm_g11', 'dg2_g11'], major: 12, minor: 56, revision: 5, family: 'Xe-HPG (Alchemist)' },
  { sycl: 'acm_g12', triton: 'dg2', aliases: ['acm_g12', 'dg2_g12'], major: 12, minor: 57, revision: 0, family: 'Xe-HPG (Alchemist)' },
  { sycl: 'pvc', triton: 'pvc', aliases: ['pvc'], major: 12, minor: 60, revision: 7, family: 'Xe-HPC (Ponte Vecchio)' },
  { sycl: 'pvc_vg', triton: null, aliases: ['pvc_vg'], major: 12, minor: 61, revision: 7, family: 'Xe-HPC (Ponte Vecchio VG)' },
  { sycl: 'mtl_u', triton: 'arl_s', aliases: ['mtl_u', 'mtl_s', 'arl_s', 'arl_u'], major: 12, minor: 70, revision: 4, family: 'Xe-LPG (Meteor Lake-U / Arrow Lake-S)' },
  { sycl: 'mtl_h', triton: 'mtl', aliases: ['mtl_h'], major: 12, minor: 71, revision: 4, family: 'Xe-LPG (Meteor Lake-H)' },
  { sycl: 'arl_h', triton: 'arl_h', aliases: ['arl_h'], major: 12, minor: 74, revision: 4, family: 'Xe-LPG+ (Arrow Lake-H)' },
  { sycl: 'bmg_g21', triton: 'bmg', aliases: ['bmg_g21'], major: 20, minor: 1, revision: 4, family: 'Xe2-HPG (Battlemage)' },
  { sycl: 'bmg_g31', triton: 'bmg', aliases: ['bmg_g31'], major: 20, minor: 2, revision: 0, family: 'Xe2-HPG (Battlemage)' },
  { sycl: 'lnl_m', triton: 'lnl', aliases: ['lnl_m'], major: 20, minor: 4, revision: 4, family: 'Xe2-LPG (Lunar Lake)' },
  { sycl: 'ptl_h', triton: 'ptl_h', aliases: ['ptl_h'], major: 30, minor: 0, revision: 4, family: 'Xe3-LPG (Panther Lake-H)' },
  { sycl: 'ptl_u', triton: 'ptl_u', aliases: ['ptl_u'], major: 30, minor: 1, revision: 1, family: 'Xe3-LPG (Panther Lake-U)' },
  { sycl: 'wcl', triton: null, aliases: ['wcl'], major: 30, minor: 3, revision: 0, family: 'Xe3-LPG (Wildcat Lake)' },
  { sycl: 'nvl_s', triton: 'nvl_s', aliases: ['nvl_s', 'nvl_hx', 'nvl_ul'], major: 30, minor: 4, revision: 4, family: 'Xe3 (Nova Lake-S)' },
  { sycl: 'nvl_u', triton: 'nvl_u', aliases: ['nvl_u', 'nvl_h'], major: 30, minor: 5, revision: 4, family: 'Xe3 (Nova Lake-U)' },
  { sycl: 'nvl_p', triton: 'nvl_p', aliases: ['nvl_p'], major: 35, minor: 10, revision: 0, family: 'Xe3p (Nova Lake-P)' },
];

export function decodeIp(ip: number): IpVersion {
  return { major: (ip >>> 22) & 0x3ff, minor: (ip >>> 14) & 0xff, revision: ip & 0x3f };
}

export function encodeIp(v: IpVersion): number {
  return ((v.major << 22) | (v.minor << 14) | v.revision) >>> 0;
}

export function ipHex(ip: number): string {
  return `0x${(ip >>> 0).toString(16).padStart(8, '0')}`;
}

/** SYCL's `architecture::unknown`. */
export const SYCL_ARCH_UNKNOWN = 0x9900000000000000n;

/**
 * The `sycl::ext::oneapi::experimental::architecture` value a SYCL runtime reports for a device of this IP: the enum
 * entry whose GMDID equals the device's exactly (the enum is GMDID << 8), else `unknown`.
 */
export function syclArchitecture(ip: number): bigint {
  const v = decodeIp(ip);
  const row = ARCH_TABLE.find((r) => r.major === v.major && r.minor === v.minor && r.revision === v.revision);
  return row && ip !== 0 ? BigInt(encodeIp(row)) << 8n : SYCL_ARCH_UNKNOWN;
}

/** The enum value as the int64 PyTorch stores (unknown's top bit makes it negative there). */
export function syclArchitectureInt64(ip: number): bigint {
  return BigInt.asIntN(64, syclArchitecture(ip));
}

export interface ArchInfo {
  ip: number;
  version: string;
  known: boolean;
  /** Triton's name where it has one, else SYCL's, else `unknown (ip 0x...)`; never empty. */
  name: string;
  /** What TRITON_INTEL_DEVICE_ARCH should say; null when Triton has no name for this part. */
  triton: string | null;
  /** SYCL's name (`intel_gpu_` + this), when known. */
  sycl?: string;
  aliases: string[];
  family?: string;
  /** e.g. "rev 8"; says when the revision differs from the one the table lists. */
  stepping?: string;
}

function infoFor(row: ArchRow, ip: number, stepping: string | undefined): ArchInfo {
  const version = `${row.major}.${row.minor}.${decodeIp(ip).revision}`;
  return { ip, version, known: true, name: row.triton ?? row.sycl, triton: row.triton, sycl: row.sycl, aliases: row.aliases, family: row.family, stepping };
}

export function archForIp(ip: number): ArchInfo {
  const v = decodeIp(ip);
  const version = `${v.major}.${v.minor}.${v.revision}`;
  const row = ARCH_TABLE.find((r) => r.major === v.major && r.minor === v.minor);
  if (!row || ip === 0) {
    return { ip, version, known: false, name: `unknown (ip ${ipHex(ip)})`, triton: null, aliases: [] };
  }
  const stepping = v.revision === row.revision ? `rev ${v.revision}` : `rev ${v.revision} (table lists rev ${row.revision})`;
  return infoFor(row, ip, stepping);
}

/**
 * For a device whose IP version nobody reported (loader < 1.9 and no OpenCL twin): the architecture its PCI id
 * belongs to. The stepping is not known, so the IP is the table's and the version says so.
 */
export function archForRowName(name: string): ArchInfo | undefined {
  const row = rowByName(name);
  if (!row) return undefined;
  const info = infoFor(row, encodeIp(row), 'not known (from the PCI device id)');
  return { ...info, version: `${row.major}.${row.minor}.x` };
}

/** Finds a row by any of its names, for tests and for `--arch` style lookups. */
export function rowByName(name: string): ArchRow | undefined {
  const n = name.toLowerCase().replace(/^intel_gpu_/, '');
  return ARCH_TABLE.find((r) => r.sycl === n || r.aliases.includes(n)) ?? ARCH_TABLE.find((r) => r.triton === n);
}
