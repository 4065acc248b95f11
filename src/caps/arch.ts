// Maps a GPU IP version (GMDID) to an architecture name, with aliases, the stepping and SYCL's enum; data, not branches.

export interface IpVersion {
  major: number;
  minor: number;
  revision: number;
}

/** How the newest copy of SYCL read (intel/llvm, 2026) knows a part. */
export type SyclStatus =
  /** device_impl.cpp's IntelGPUArchitectures lists these steppings: a SYCL runtime reports the part's enum. */
  | 'runtime'
  /** device_architecture.def has the enum, but the runtime lookup of that copy lacks the part (older runtimes answer unknown). */
  | 'enum'
  /** No enum at all: SYCL answers unknown. */
  | 'none';

export interface ArchRow {
  /** SYCL's name without the `intel_gpu_` prefix (device_architecture.def; for CRI, the clang driver's). */
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
  /** The steppings (revision, name) compute-runtime's platforms.h and SYCL's runtime list for the part. */
  steppings: [number, string][];
  syclStatus: SyclStatus;
}

type Row = Omit<ArchRow, 'steppings' | 'syclStatus'> & { steppings?: [number, string][]; syclStatus?: SyclStatus };
/** Parts before Xe-HPG have one synthetic IP each (the row's own revision); SYCL's runtime lists exactly that one. */
const one = (r: Row): ArchRow => ({ steppings: [[r.revision, '']], syclStatus: 'runtime', ...r });

/**
 * Keyed by (major, minor): the revision is the stepping, so a part of a known design still gets its name whatever
 * its stepping. Versions and names from intel/llvm `device_architecture.def` (the enum value is the GMDID << 8) and
 * compute-runtime `third_party/aot_config_headers/platforms.h`; steppings as `device_impl.cpp`'s
 * IntelGPUArchitectures lists them (every stepping platforms.h names for those parts) and, for the parts that lookup
 * lacks, as platforms.h names them. Triton's names from its `arch_parser.c`; DG2-G11/G12, for which Triton returns an
 * empty name, are given `dg2` because they are the same design as G10 (which Triton calls dg2); CRI's `cri` is the
 * name Triton's compiler and driver test for (only TRITON_INTEL_DEVICE_ARCH reaches it).
 * Parts before Xe-HPG report a synthetic GMDID through OpenCL (SYCL lists them as 8.0.0 ... 12.10.0).
 */
export const ARCH_TABLE: readonly ArchRow[] = [
  one({ sycl: 'bdw', triton: null, aliases: ['bdw', 'gen8'], major: 8, minor: 0, revision: 0, family: 'Gen8 (Broadwell)' }),
  one({ sycl: 'skl', triton: null, aliases: ['skl'], major: 9, minor: 0, revision: 9, family: 'Gen9 (Skylake)' }),
  one({ sycl: 'kbl', triton: null, aliases: ['kbl'], major: 9, minor: 1, revision: 9, family: 'Gen9.5 (Kaby Lake)' }),
  one({ sycl: 'cfl', triton: null, aliases: ['cfl'], major: 9, minor: 2, revision: 9, family: 'Gen9.5 (Coffee Lake)' }),
  one({ sycl: 'apl', triton: null, aliases: ['apl', 'bxt'], major: 9, minor: 3, revision: 0, family: 'Gen9 (Apollo Lake / Broxton)' }),
  one({ sycl: 'glk', triton: null, aliases: ['glk'], major: 9, minor: 4, revision: 0, family: 'Gen9.5 (Gemini Lake)' }),
  one({ sycl: 'whl', triton: null, aliases: ['whl'], major: 9, minor: 5, revision: 0, family: 'Gen9.5 (Whiskey Lake)' }),
  one({ sycl: 'aml', triton: null, aliases: ['aml'], major: 9, minor: 6, revision: 0, family: 'Gen9.5 (Amber Lake)' }),
  one({ sycl: 'cml', triton: null, aliases: ['cml'], major: 9, minor: 7, revision: 0, family: 'Gen9.5 (Comet Lake)' }),
  one({ sycl: 'icllp', triton: null, aliases: ['icllp', 'icl'], major: 11, minor: 0, revision: 0, family: 'Gen11 (Ice Lake)' }),
  one({ sycl: 'ehl', triton: null, aliases: ['ehl', 'jsl'], major: 11, minor: 2, revision: 0, family: 'Gen11 (Elkhart Lake / Jasper Lake)' }),
  one({ sycl: 'tgllp', triton: null, aliases: ['tgllp', 'tgl'], major: 12, minor: 0, revision: 0, family: 'Xe-LP (Tiger Lake)' }),
  one({ sycl: 'rkl', triton: null, aliases: ['rkl'], major: 12, minor: 1, revision: 0, family: 'Xe-LP (Rocket Lake)' }),
  one({ sycl: 'adl_s', triton: null, aliases: ['adl_s', 'rpl_s'], major: 12, minor: 2, revision: 0, family: 'Xe-LP (Alder Lake-S / Raptor Lake-S)' }),
  one({ sycl: 'adl_p', triton: null, aliases: ['adl_p'], major: 12, minor: 3, revision: 0, family: 'Xe-LP (Alder Lake-P)' }),
  one({ sycl: 'adl_n', triton: null, aliases: ['adl_n'], major: 12, minor: 4, revision: 0, family: 'Xe-LP (Alder Lake-N)' }),
  one({ sycl: 'dg1', triton: null, aliases: ['dg1'], major: 12, minor: 10, revision: 0, family: 'Xe-LP (DG1)' }),
  one({ sycl: 'acm_g10', triton: 'dg2', aliases: ['acm_g10', 'dg2_g10'], major: 12, minor: 55, revision: 8, family: 'Xe-HPG (Alchemist)', steppings: [[0, 'A0'], [1, 'A1'], [4, 'B0'], [8, 'C0']] }),
  one({ sycl: 'acm_g11', triton: 'dg2', aliases: ['acm_g11', 'dg2_g11'], major: 12, minor: 56, revision: 5, family: 'Xe-HPG (Alchemist)', steppings: [[0, 'A0'], [4, 'B0'], [5, 'B1']] }),
  one({ sycl: 'acm_g12', triton: 'dg2', aliases: ['acm_g12', 'dg2_g12'], major: 12, minor: 57, revision: 0, family: 'Xe-HPG (Alchemist)', steppings: [[0, 'A0']] }),
  one({
    sycl: 'pvc', triton: 'pvc', aliases: ['pvc'], major: 12, minor: 60, revision: 7, family: 'Xe-HPC (Ponte Vecchio)',
    steppings: [[0, 'XL-A0'], [1, 'XL-A0P'], [3, 'XT-A0'], [5, 'XT-B0'], [6, 'XT-B1'], [7, 'XT-C0']],
  }),
  one({ sycl: 'pvc_vg', triton: null, aliases: ['pvc_vg'], major: 12, minor: 61, revision: 7, family: 'Xe-HPC (Ponte Vecchio VG)', steppings: [[7, 'XT-C0-VG']] }),
  one({ sycl: 'mtl_u', triton: 'arl_s', aliases: ['mtl_u', 'mtl_s', 'arl_s', 'arl_u'], major: 12, minor: 70, revision: 4, family: 'Xe-LPG (Meteor Lake-U / Arrow Lake-S)', steppings: [[0, 'A0'], [4, 'B0']] }),
  one({ sycl: 'mtl_h', triton: 'mtl', aliases: ['mtl_h'], major: 12, minor: 71, revision: 4, family: 'Xe-LPG (Meteor Lake-H)', steppings: [[0, 'A0'], [4, 'B0']] }),
  one({ sycl: 'arl_h', triton: 'arl_h', aliases: ['arl_h'], major: 12, minor: 74, revision: 4, family: 'Xe-LPG+ (Arrow Lake-H)', steppings: [[0, 'A0'], [4, 'B0']] }),
  // compute-runtime marks G21 A1 (20.1.1) and B0 (20.1.4) reserved and builds for A0 (20.1.0); SYCL's runtime lists all three.
  one({ sycl: 'bmg_g21', triton: 'bmg', aliases: ['bmg_g21'], major: 20, minor: 1, revision: 4, family: 'Xe2-HPG (Battlemage)', steppings: [[0, 'A0'], [1, 'A1'], [4, 'B0']] }),
  { sycl: 'bmg_g31', triton: 'bmg', aliases: ['bmg_g31'], major: 20, minor: 2, revision: 0, family: 'Xe2-HPG (Battlemage)', steppings: [[0, 'A0']], syclStatus: 'enum' },
  one({ sycl: 'lnl_m', triton: 'lnl', aliases: ['lnl_m'], major: 20, minor: 4, revision: 4, family: 'Xe2-LPG (Lunar Lake)', steppings: [[0, 'A0'], [1, 'A1'], [4, 'B0']] }),
  one({ sycl: 'ptl_h', triton: 'ptl_h', aliases: ['ptl_h'], major: 30, minor: 0, revision: 4, family: 'Xe3-LPG (Panther Lake-H)', steppings: [[0, 'A0'], [4, 'B0']] }),
  one({ sycl: 'ptl_u', triton: 'ptl_u', aliases: ['ptl_u'], major: 30, minor: 1, revision: 1, family: 'Xe3-LPG (Panther Lake-U)', steppings: [[0, 'A0'], [1, 'A1']] }),
  { sycl: 'wcl', triton: null, aliases: ['wcl'], major: 30, minor: 3, revision: 0, family: 'Xe3-LPG (Wildcat Lake)', steppings: [[0, 'A0'], [1, 'A1']], syclStatus: 'enum' },
  { sycl: 'nvl_s', triton: 'nvl_s', aliases: ['nvl_s', 'nvl_hx', 'nvl_ul'], major: 30, minor: 4, revision: 4, family: 'Xe3 (Nova Lake-S)', steppings: [[0, 'A0'], [4, 'B0']], syclStatus: 'enum' },
  { sycl: 'nvl_u', triton: 'nvl_u', aliases: ['nvl_u', 'nvl_h'], major: 30, minor: 5, revision: 4, family: 'Xe3 (Nova Lake-U)', steppings: [[0, 'A0'], [1, 'A1'], [4, 'B0']], syclStatus: 'enum' },
  { sycl: 'nvl_p', triton: 'nvl_p', aliases: ['nvl_p'], major: 35, minor: 10, revision: 0, family: 'Xe3p (Nova Lake-P)', steppings: [[0, 'A0'], [4, 'B0']], syclStatus: 'enum' },
  { sycl: 'cri', triton: 'cri', aliases: ['cri'], major: 35, minor: 11, revision: 0, family: 'Xe3p-XPC (Crescent Island)', steppings: [[0, 'A0']], syclStatus: 'none' },
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

/** What a SYCL runtime answers for a device's architecture, and why. */
export interface SyclAnswer {
  /** The enum entry: `intel_gpu_<name>`, or `unknown`. */
  name: string;
  /** Its value as 16 hex digits (PyTorch's `architecture` is the same number as a signed int64). */
  value: string;
  /** The stepping that matched, e.g. "XT-B0 (12.60.5)". */
  stepping?: string;
  /** True when the newest SYCL runtime copy read lists this stepping itself. */
  confirmed: boolean;
  /** Why the answer is unknown or not confirmed. */
  note?: string;
}

const hex16 = (v: bigint) => `0x${v.toString(16).padStart(16, '0')}`;
const steppingText = (row: ArchRow, rev: number, name: string) => `${name ? `${name} ` : ''}(${row.major}.${row.minor}.${rev})`;

/**
 * The `sycl::ext::oneapi::experimental::architecture` a SYCL runtime reports for a device of this IP, by SYCL's own
 * rule: the device's IP must be one of the steppings its lookup lists for a part, and the answer is that part's enum
 * (GMDID << 8 of the stepping the enum encodes), else `unknown`. Parts the newest runtime copy lacks are matched on
 * compute-runtime's steppings and say they are unconfirmed.
 */
export function syclAnswer(ip: number): SyclAnswer {
  const v = decodeIp(ip);
  const row = ip === 0 ? undefined : ARCH_TABLE.find((r) => r.major === v.major && r.minor === v.minor);
  const unknown = (note: string): SyclAnswer => ({ name: 'unknown', value: hex16(SYCL_ARCH_UNKNOWN), confirmed: true, note });
  if (!row) return unknown(ip === 0 ? 'no IP version' : `no SYCL architecture has IP ${v.major}.${v.minor}`);
  const listed = row.steppings.find(([rev]) => rev === v.revision);
  if (!listed) {
    const known = row.steppings.map(([rev, name]) => steppingText(row, rev, name)).join(', ');
    return unknown(`${row.major}.${row.minor}.${v.revision} is not a stepping SYCL matches for intel_gpu_${row.sycl} (${known})`);
  }
  if (row.syclStatus === 'none') {
    return { ...unknown(`SYCL has no architecture enum for ${row.sycl} (the clang driver knows intel_gpu_${row.sycl}); a runtime answers unknown`), confirmed: false };
  }
  const answer: SyclAnswer = {
    name: `intel_gpu_${row.sycl}`,
    value: hex16(BigInt(encodeIp(row)) << 8n),
    stepping: steppingText(row, v.revision, listed[1]),
    confirmed: row.syclStatus === 'runtime',
  };
  if (row.syclStatus === 'enum') {
    answer.note = `device_architecture.def has intel_gpu_${row.sycl}, but the newest SYCL runtime lookup read does not list it: `
      + 'the stepping comes from compute-runtime, and an older runtime answers unknown';
  }
  return answer;
}

export function syclArchitecture(ip: number): bigint {
  return BigInt(syclAnswer(ip).value);
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
  /** e.g. "C0 (rev 8)"; says when compute-runtime and SYCL list no such stepping. */
  stepping?: string;
  /** What a SYCL runtime (so PyTorch's `architecture`) answers for this IP, and which stepping matched. */
  syclAnswer: SyclAnswer;
}

function infoFor(row: ArchRow, ip: number, stepping: string | undefined): ArchInfo {
  const version = `${row.major}.${row.minor}.${decodeIp(ip).revision}`;
  return {
    ip, version, known: true, name: row.triton ?? row.sycl, triton: row.triton, sycl: row.sycl, aliases: row.aliases, family: row.family, stepping,
    syclAnswer: syclAnswer(ip),
  };
}

export function archForIp(ip: number): ArchInfo {
  const v = decodeIp(ip);
  const version = `${v.major}.${v.minor}.${v.revision}`;
  const row = ARCH_TABLE.find((r) => r.major === v.major && r.minor === v.minor);
  if (!row || ip === 0) {
    return { ip, version, known: false, name: `unknown (ip ${ipHex(ip)})`, triton: null, aliases: [], syclAnswer: syclAnswer(ip) };
  }
  const listed = row.steppings.find(([rev]) => rev === v.revision);
  const stepping = !listed ? `rev ${v.revision} (not a stepping compute-runtime or SYCL lists)` : listed[1] ? `${listed[1]} (rev ${v.revision})` : `rev ${v.revision}`;
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
  const answer: SyclAnswer = { name: 'unknown', value: hex16(SYCL_ARCH_UNKNOWN), confirmed: false, note: 'the IP version is not known, so neither is the stepping SYCL matches' };
  return { ...info, version: `${row.major}.${row.minor}.x`, syclAnswer: answer };
}

/** Finds a row by any of its names, for tests and for `--arch` style lookups. */
export function rowByName(name: string): ArchRow | undefined {
  const n = name.toLowerCase().replace(/^intel_gpu_/, '');
  return ARCH_TABLE.find((r) => r.sycl === n || r.aliases.includes(n)) ?? ARCH_TABLE.find((r) => r.triton === n);
}
