// Maps a GPU IP version (GMDID) to an architecture name, with aliases and the stepping; data, not branches.

export interface IpVersion {
  major: number;
  minor: number;
  revision: number;
}

export interface ArchRow {
  /** The name Triton uses for TRITON_INTEL_DEVICE_ARCH. */
  triton: string;
  /** SYCL / compute-runtime names for the same (major, minor). */
  aliases: string[];
  major: number;
  minor: number;
  /** The revision public tables list for this part (a stepping); other revisions still match the row. */
  revision: number;
  family: string;
}

/**
 * Keyed by (major, minor): the revision is the stepping, so a B0 part of a known design still gets its name.
 * The FACTS.md rows, plus DG2-G11/G12 (12.56 / 12.57, revision 0 as in SYCL's device_architecture.def), for which
 * Triton itself returns an empty name.
 */
export const ARCH_TABLE: readonly ArchRow[] = [
  { triton: 'dg2', aliases: ['acm_g10', 'dg2_g10'], major: 12, minor: 55, revision: 8, family: 'Xe-HPG (Alchemist)' },
  { triton: 'dg2', aliases: ['acm_g11', 'dg2_g11'], major: 12, minor: 56, revision: 0, family: 'Xe-HPG (Alchemist)' },
  { triton: 'dg2', aliases: ['acm_g12', 'dg2_g12'], major: 12, minor: 57, revision: 0, family: 'Xe-HPG (Alchemist)' },
  { triton: 'pvc', aliases: ['pvc'], major: 12, minor: 60, revision: 7, family: 'Xe-HPC (Ponte Vecchio)' },
  { triton: 'arl_s', aliases: ['mtl_u', 'arl_s', 'arl_u'], major: 12, minor: 70, revision: 4, family: 'Xe-LPG (Meteor Lake-U / Arrow Lake-S)' },
  { triton: 'mtl', aliases: ['mtl_h'], major: 12, minor: 71, revision: 4, family: 'Xe-LPG (Meteor Lake-H)' },
  { triton: 'arl_h', aliases: ['arl_h'], major: 12, minor: 74, revision: 4, family: 'Xe-LPG+ (Arrow Lake-H)' },
  { triton: 'bmg', aliases: ['bmg_g21'], major: 20, minor: 1, revision: 4, family: 'Xe2-HPG (Battlemage)' },
  { triton: 'bmg', aliases: ['bmg_g31'], major: 20, minor: 2, revision: 0, family: 'Xe2-HPG (Battlemage)' },
  { triton: 'lnl', aliases: ['lnl_m'], major: 20, minor: 4, revision: 4, family: 'Xe2-LPG (Lunar Lake)' },
  { triton: 'ptl_h', aliases: ['ptl_h'], major: 30, minor: 0, revision: 4, family: 'Xe3-LPG (Panther Lake-H)' },
  { triton: 'ptl_u', aliases: ['ptl_u'], major: 30, minor: 1, revision: 1, family: 'Xe3-LPG (Panther Lake-U)' },
  { triton: 'nvl_s', aliases: ['nvl_s'], major: 30, minor: 4, revision: 0, family: 'Xe3 (Nova Lake-S)' },
  { triton: 'nvl_u', aliases: ['nvl_u'], major: 30, minor: 5, revision: 0, family: 'Xe3 (Nova Lake-U)' },
  { triton: 'nvl_p', aliases: ['nvl_p'], major: 35, minor: 10, revision: 0, family: 'Xe3p (Nova Lake-P)' },
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

export interface ArchInfo {
  ip: number;
  version: string;
  known: boolean;
  /** Triton's name, or `unknown (ip 0x...)`; never empty. */
  name: string;
  aliases: string[];
  family?: string;
  /** e.g. "rev 8"; says when the revision differs from the one the table lists. */
  stepping?: string;
}

export function archForIp(ip: number): ArchInfo {
  const v = decodeIp(ip);
  const version = `${v.major}.${v.minor}.${v.revision}`;
  const row = ARCH_TABLE.find((r) => r.major === v.major && r.minor === v.minor);
  if (!row || ip === 0) {
    return { ip, version, known: false, name: `unknown (ip ${ipHex(ip)})`, aliases: [] };
  }
  const stepping = v.revision === row.revision ? `rev ${v.revision}` : `rev ${v.revision} (table lists rev ${row.revision})`;
  return { ip, version, known: true, name: row.triton, aliases: row.aliases, family: row.family, stepping };
}

/** Finds a row by any of its names, for tests and for `--arch` style lookups. */
export function rowByName(name: string): ArchRow | undefined {
  const n = name.toLowerCase();
  return ARCH_TABLE.find((r) => r.triton === n || r.aliases.includes(n));
}
