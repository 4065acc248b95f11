import { describe, expect, it } from 'vitest';
import { ARCH_TABLE, SYCL_ARCH_UNKNOWN, archForIp, archForRowName, decodeIp, encodeIp, rowByName, syclArchitecture, syclArchitectureInt64 } from '../../src/caps/arch.js';

// Every row of FACTS.md's table, the IPs written out as compute-runtime's platforms.h spells them (NVL included):
// [ip, Triton's name, an alias that must be listed, major.minor.rev, the stepping text].
const FACTS_ROWS: [number, string, string, string, string][] = [
  [0x030dc008, 'dg2', 'acm_g10', '12.55.8', 'rev 8'],
  [0x030f0007, 'pvc', 'pvc', '12.60.7', 'rev 7'],
  [0x0311c004, 'mtl', 'mtl_h', '12.71.4', 'rev 4'],
  [0x03118004, 'arl_s', 'mtl_u', '12.70.4', 'rev 4'],
  [0x03128004, 'arl_h', 'arl_h', '12.74.4', 'rev 4'],
  [0x05004004, 'bmg', 'bmg_g21', '20.1.4', 'rev 4'],
  [0x05008000, 'bmg', 'bmg_g31', '20.2.0', 'rev 0'],
  [0x05010004, 'lnl', 'lnl_m', '20.4.4', 'rev 4'],
  [0x07800004, 'ptl_h', 'ptl_h', '30.0.4', 'rev 4'],
  [0x07804001, 'ptl_u', 'ptl_u', '30.1.1', 'rev 1'],
  // NVL_S_A0, NVL_U_A0, NVL_P_A0; SYCL's enum lists NVL-S and NVL-U at their B0 stepping (rev 4).
  [0x07810000, 'nvl_s', 'nvl_s', '30.4.0', 'rev 0 (table lists rev 4)'],
  [0x07814000, 'nvl_u', 'nvl_u', '30.5.0', 'rev 0 (table lists rev 4)'],
  [0x08c28000, 'nvl_p', 'nvl_p', '35.10.0', 'rev 0'],
];

// SYCL's enum values for the same parts, copied from intel/llvm device_architecture.def.
const SYCL_ENUM: [number, bigint][] = [
  [0x030dc008, 0x000000030dc00800n],
  [0x030e0005, 0x000000030e000500n],
  [0x030f0007, 0x000000030f000700n],
  [0x030f4007, 0x000000030f400700n],
  [0x03118004, 0x0000000311800400n],
  [0x05004004, 0x0000000500400400n],
  [0x0780c000, 0x0000000780c00000n],
  [0x08c28000, 0x00000008c2800000n],
];

describe('arch table', () => {
  it.each(FACTS_ROWS)('maps ip %d to its FACTS.md name', (ip, name, alias, version, stepping) => {
    const a = archForIp(ip);
    expect(a.known).toBe(true);
    expect(a.name).toBe(name);
    expect(a.triton).toBe(name);
    expect(a.aliases).toContain(alias);
    expect(a.version).toBe(version);
    expect(a.stepping).toBe(stepping);
  });

  it('decodes the GMDID fields and round-trips them', () => {
    expect(decodeIp(0x030dc008)).toEqual({ major: 12, minor: 55, revision: 8 });
    expect(decodeIp(0x08c28000)).toEqual({ major: 35, minor: 10, revision: 0 });
    for (const [ip] of FACTS_ROWS) expect(encodeIp(decodeIp(ip))).toBe(ip);
  });

  it('names another stepping of a known design and says which revision the table lists', () => {
    const a = archForIp(0x030f0003); // PVC_XT_A0
    expect(a.name).toBe('pvc');
    expect(a.stepping).toBe('rev 3 (table lists rev 7)');
  });

  it('lists DG2-G11 at 12.56.5 (DG2_G11_B1, SYCL intel_gpu_12_56_5) and G12 at 12.57.0', () => {
    expect(archForIp(0x030e0005)).toMatchObject({ name: 'dg2', sycl: 'acm_g11', stepping: 'rev 5' });
    expect(archForIp(0x030e4000)).toMatchObject({ name: 'dg2', sycl: 'acm_g12', stepping: 'rev 0' });
  });

  it('knows PVC-VG, Wildcat Lake and the parts before DG2, none of which Triton names', () => {
    expect(archForIp(0x030f4007)).toMatchObject({ known: true, name: 'pvc_vg', triton: null, version: '12.61.7' });
    expect(archForIp(0x0780c000)).toMatchObject({ known: true, name: 'wcl', triton: null });
    expect(archForIp(0x03000000)).toMatchObject({ known: true, name: 'tgllp', triton: null, aliases: expect.arrayContaining(['tgl']) });
    expect(archForIp(0x03028000)).toMatchObject({ name: 'dg1' });
    expect(archForIp(0x02000000)).toMatchObject({ name: 'bdw' });
    expect(archForIp(0x02400009)).toMatchObject({ name: 'skl' });
    expect(archForIp(0x02c00000)).toMatchObject({ name: 'icllp' });
  });

  it('finds rows by SYCL names and aliases, with or without the intel_gpu_ prefix', () => {
    expect(rowByName('mtl_s')?.sycl).toBe('mtl_u');
    expect(rowByName('intel_gpu_nvl_hx')?.sycl).toBe('nvl_s');
    expect(rowByName('nvl_h')?.sycl).toBe('nvl_u');
    expect(rowByName('rpl_s')?.sycl).toBe('adl_s');
    expect(rowByName('jsl')?.sycl).toBe('ehl');
    expect(rowByName('mtl_u')?.triton).toBe('arl_s');
    expect(rowByName('bmg_g31')?.minor).toBe(2);
  });

  it('reports an unknown IP as "unknown (ip 0x...)", never an empty string', () => {
    for (const ip of [0x0310c001, 0x12345678, 0xffffffff, 0]) {
      const a = archForIp(ip);
      expect(a.known).toBe(false);
      expect(a.triton).toBeNull();
      expect(a.name).toBe(`unknown (ip 0x${(ip >>> 0).toString(16).padStart(8, '0')})`);
    }
  });

  it('has one row per (major, minor)', () => {
    const keys = ARCH_TABLE.map((r) => `${r.major}.${r.minor}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives the SYCL enum value for an exact GMDID, as PyTorch stores it (a Max 1550 reports 13136561920)', () => {
    for (const [ip, value] of SYCL_ENUM) expect(syclArchitecture(ip)).toBe(value);
    expect(syclArchitectureInt64(0x030f0007)).toBe(13136561920n);
  });

  it('gives SYCL\'s "unknown" for other steppings and for no IP, negative as an int64', () => {
    expect(syclArchitecture(0x030f0003)).toBe(SYCL_ARCH_UNKNOWN);
    expect(syclArchitecture(0)).toBe(0x9900000000000000n);
    expect(syclArchitectureInt64(0)).toBe(-7421932185906577408n);
  });

  it('turns a PCI-table arch name into an answer that says the stepping is not known', () => {
    expect(archForRowName('acm_g11')).toMatchObject({ known: true, name: 'dg2', version: '12.56.x', stepping: 'not known (from the PCI device id)' });
    expect(archForRowName('nope')).toBeUndefined();
  });
});
