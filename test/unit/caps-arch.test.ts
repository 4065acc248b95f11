import { describe, expect, it } from 'vitest';
import { ARCH_TABLE, SYCL_ARCH_UNKNOWN, archForIp, archForRowName, decodeIp, encodeIp, rowByName, syclArchitecture, syclArchitectureInt64 } from '../../src/caps/arch.js';

// Every row of FACTS.md's table, the IPs written out as compute-runtime's platforms.h spells them (NVL included):
// [ip, Triton's name, an alias that must be listed, major.minor.rev, the stepping text].
const FACTS_ROWS: [number, string, string, string, string][] = [
  [0x030dc008, 'dg2', 'acm_g10', '12.55.8', 'C0 (rev 8)'],
  [0x030f0007, 'pvc', 'pvc', '12.60.7', 'XT-C0 (rev 7)'],
  [0x0311c004, 'mtl', 'mtl_h', '12.71.4', 'B0 (rev 4)'],
  [0x03118004, 'arl_s', 'mtl_u', '12.70.4', 'B0 (rev 4)'],
  [0x03128004, 'arl_h', 'arl_h', '12.74.4', 'B0 (rev 4)'],
  [0x05004004, 'bmg', 'bmg_g21', '20.1.4', 'B0 (rev 4)'],
  [0x05008000, 'bmg', 'bmg_g31', '20.2.0', 'A0 (rev 0)'],
  [0x05010004, 'lnl', 'lnl_m', '20.4.4', 'B0 (rev 4)'],
  [0x07800004, 'ptl_h', 'ptl_h', '30.0.4', 'B0 (rev 4)'],
  [0x07804001, 'ptl_u', 'ptl_u', '30.1.1', 'A1 (rev 1)'],
  // NVL_S_A0, NVL_U_A0, NVL_P_A0; SYCL's enum lists NVL-S and NVL-U at their B0 stepping (rev 4).
  [0x07810000, 'nvl_s', 'nvl_s', '30.4.0', 'A0 (rev 0)'],
  [0x07814000, 'nvl_u', 'nvl_u', '30.5.0', 'A0 (rev 0)'],
  [0x08c28000, 'nvl_p', 'nvl_p', '35.10.0', 'A0 (rev 0)'],
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

  it('names another stepping of a known design, and says when no source lists that stepping', () => {
    expect(archForIp(0x030f0003)).toMatchObject({ name: 'pvc', stepping: 'XT-A0 (rev 3)' }); // PVC_XT_A0
    expect(archForIp(0x030f0002)).toMatchObject({ name: 'pvc', stepping: 'rev 2 (not a stepping compute-runtime or SYCL lists)' });
  });

  it('lists DG2-G11 at 12.56.5 (DG2_G11_B1, SYCL intel_gpu_12_56_5) and G12 at 12.57.0', () => {
    expect(archForIp(0x030e0005)).toMatchObject({ name: 'dg2', sycl: 'acm_g11', stepping: 'B1 (rev 5)' });
    expect(archForIp(0x030e4000)).toMatchObject({ name: 'dg2', sycl: 'acm_g12', stepping: 'A0 (rev 0)' });
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
    // Triton's own names, which no SYCL name or alias spells.
    expect(rowByName('lnl')?.sycl).toBe('lnl_m');
    expect(rowByName('BMG')?.sycl).toBe('bmg_g21');
    expect(rowByName('dg2')?.sycl).toBe('acm_g10');
  });

  it('reports an unknown IP as "unknown (ip 0x...)", never an empty string', () => {
    for (const ip of [0x0310c001, 0x12345678, 0xffffffff, 0]) {
      const a = archForIp(ip);
      expect(a.known).toBe(false);
      expect(a.triton).toBeNull();
      expect(a.name).toBe(`unknown (ip 0x${(ip >>> 0).toString(16).padStart(8, '0')})`);
    }
    // 0x12345678: major = bits 31..22, minor = bits 21..14, revision = bits 5..0.
    expect(archForIp(0x12345678)).toMatchObject({ ip: 0x12345678, version: '72.209.56', known: false, name: 'unknown (ip 0x12345678)', triton: null, aliases: [] });
    expect(archForIp(0x12345678).syclAnswer).toMatchObject({ name: 'unknown', value: '0x9900000000000000' });
  });

  it('has one row per (major, minor)', () => {
    const keys = ARCH_TABLE.map((r) => `${r.major}.${r.minor}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives the SYCL enum value for an exact GMDID, as PyTorch stores it (a Max 1550 reports 13136561920)', () => {
    for (const [ip, value] of SYCL_ENUM) expect(syclArchitecture(ip)).toBe(value);
    expect(syclArchitectureInt64(0x030f0007)).toBe(13136561920n);
  });

  it('gives SYCL\'s "unknown" for steppings SYCL does not list and for no IP, negative as an int64', () => {
    expect(syclArchitecture(0x030f0002)).toBe(SYCL_ARCH_UNKNOWN);
    expect(syclArchitecture(0x030f0004)).toBe(SYCL_ARCH_UNKNOWN);
    expect(syclArchitecture(0)).toBe(0x9900000000000000n);
    expect(syclArchitectureInt64(0)).toBe(-7421932185906577408n);
  });

  it('turns a PCI-table arch name into an answer that says the stepping is not known', () => {
    expect(archForRowName('acm_g11')).toMatchObject({ known: true, name: 'dg2', version: '12.56.x', stepping: 'not known (from the PCI device id)' });
    expect(archForRowName('nope')).toBeUndefined();
  });
});

// intel/llvm sycl/source/detail/device_impl.cpp, get_architecture(): IntelGPUArchitectures as written there (the
// GMDIDs after bdw..dg1, which are checked above), each with the enum device_architecture.def gives its part.
const SYCL_RUNTIME_LOOKUP: [number, string, bigint][] = [
  [0x030dc000, 'acm_g10', 0x30dc00800n], [0x030dc001, 'acm_g10', 0x30dc00800n], [0x030dc004, 'acm_g10', 0x30dc00800n], [0x030dc008, 'acm_g10', 0x30dc00800n],
  [0x030e0000, 'acm_g11', 0x30e000500n], [0x030e0004, 'acm_g11', 0x30e000500n], [0x030e0005, 'acm_g11', 0x30e000500n],
  [0x030e4000, 'acm_g12', 0x30e400000n],
  [0x030f0000, 'pvc', 0x30f000700n], [0x030f0001, 'pvc', 0x30f000700n], [0x030f0003, 'pvc', 0x30f000700n],
  [0x030f0005, 'pvc', 0x30f000700n], [0x030f0006, 'pvc', 0x30f000700n], [0x030f0007, 'pvc', 0x30f000700n],
  [0x030f4007, 'pvc_vg', 0x30f400700n],
  [0x03118000, 'mtl_u', 0x311800400n], [0x03118004, 'mtl_u', 0x311800400n],
  [0x0311c000, 'mtl_h', 0x311c00400n], [0x0311c004, 'mtl_h', 0x311c00400n],
  [0x03128000, 'arl_h', 0x312800400n], [0x03128004, 'arl_h', 0x312800400n],
  [0x05004000, 'bmg_g21', 0x500400400n], [0x05004001, 'bmg_g21', 0x500400400n], [0x05004004, 'bmg_g21', 0x500400400n],
  [0x05010000, 'lnl_m', 0x501000400n], [0x05010001, 'lnl_m', 0x501000400n], [0x05010004, 'lnl_m', 0x501000400n],
  [0x07800000, 'ptl_h', 0x780000400n], [0x07800004, 'ptl_h', 0x780000400n],
  [0x07804000, 'ptl_u', 0x780400100n], [0x07804001, 'ptl_u', 0x780400100n],
];

describe('SYCL\'s architecture answer (PyTorch\'s `architecture`)', () => {
  it.each(SYCL_RUNTIME_LOOKUP)('maps every stepping SYCL lists, %d, to its part\'s enum %s', (ip, name, value) => {
    expect(syclArchitecture(ip)).toBe(value);
    expect(archForIp(ip).syclAnswer).toMatchObject({ name: `intel_gpu_${name}`, confirmed: true });
  });

  it('says which stepping matched: BMG-G21 A0, PTL-U A0, DG2-G10 B0, PVC XT-B0', () => {
    expect(archForIp(0x05004000).syclAnswer.stepping).toBe('A0 (20.1.0)');
    expect(archForIp(0x07804000).syclAnswer.stepping).toBe('A0 (30.1.0)');
    expect(archForIp(0x030dc004).syclAnswer.stepping).toBe('B0 (12.55.4)');
    expect(archForIp(0x030f0005).syclAnswer.stepping).toBe('XT-B0 (12.60.5)');
  });

  it('marks parts the SYCL runtime lookup lacks as unconfirmed, matched on compute-runtime\'s steppings (platforms.h)', () => {
    // device_architecture.def: bmg_g31 0x500800000, wcl 0x780c00000, nvl_s 0x781000400, nvl_u 0x781400400, nvl_p 0x8c2800000.
    const cases: [number, bigint][] = [[0x05008000, 0x500800000n], [0x0780c001, 0x780c00000n], [0x07810000, 0x781000400n], [0x07814001, 0x781400400n], [0x08c28004, 0x8c2800000n]];
    for (const [ip, value] of cases) {
      expect(syclArchitecture(ip)).toBe(value);
      expect(archForIp(ip).syclAnswer.confirmed).toBe(false);
      expect(archForIp(ip).syclAnswer.note).toMatch(/older runtime answers unknown/);
    }
  });

  it('has a CRI row (CRI_A0 = 35.11.0 in compute-runtime) that Triton calls cri and SYCL has no enum for', () => {
    const cri = archForIp(0x08c2c000);
    expect(cri).toMatchObject({ known: true, name: 'cri', triton: 'cri', version: '35.11.0' });
    expect(cri.syclAnswer).toMatchObject({ name: 'unknown', confirmed: false });
    expect(syclArchitecture(0x08c2c000)).toBe(SYCL_ARCH_UNKNOWN);
  });

  it('says why a stepping SYCL does not list is unknown', () => {
    expect(archForIp(0x030f0004).syclAnswer.note).toBe('12.60.4 is not a stepping SYCL matches for intel_gpu_pvc (XL-A0 (12.60.0), XL-A0P (12.60.1), XT-A0 (12.60.3), XT-B0 (12.60.5), XT-B1 (12.60.6), XT-C0 (12.60.7))');
  });
});
