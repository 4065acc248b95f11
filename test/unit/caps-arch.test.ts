import { describe, expect, it } from 'vitest';
import { ARCH_TABLE, archForIp, decodeIp, encodeIp, rowByName } from '../../src/caps/arch.js';

// Every row of FACTS.md's table: [ip, expected Triton name, an alias that must be listed, major.minor.rev].
const FACTS_ROWS: [number, string, string, string][] = [
  [0x030dc008, 'dg2', 'acm_g10', '12.55.8'],
  [0x030f0007, 'pvc', 'pvc', '12.60.7'],
  [0x0311c004, 'mtl', 'mtl_h', '12.71.4'],
  [0x03118004, 'arl_s', 'mtl_u', '12.70.4'],
  [0x03128004, 'arl_h', 'arl_h', '12.74.4'],
  [0x05004004, 'bmg', 'bmg_g21', '20.1.4'],
  [0x05008000, 'bmg', 'bmg_g31', '20.2.0'],
  [0x05010004, 'lnl', 'lnl_m', '20.4.4'],
  [0x07800004, 'ptl_h', 'ptl_h', '30.0.4'],
  [0x07804001, 'ptl_u', 'ptl_u', '30.1.1'],
  [encodeIp({ major: 30, minor: 4, revision: 0 }), 'nvl_s', 'nvl_s', '30.4.0'],
  [encodeIp({ major: 30, minor: 5, revision: 0 }), 'nvl_u', 'nvl_u', '30.5.0'],
  [encodeIp({ major: 35, minor: 10, revision: 0 }), 'nvl_p', 'nvl_p', '35.10.0'],
];

describe('arch table', () => {
  it.each(FACTS_ROWS)('maps ip 0x%s to its FACTS.md name', (ip, name, alias, version) => {
    const a = archForIp(ip);
    expect(a.known).toBe(true);
    expect(a.name).toBe(name);
    expect(a.aliases).toContain(alias);
    expect(a.version).toBe(version);
    expect(a.stepping).toBe(`rev ${version.split('.')[2]}`);
  });

  it('decodes the GMDID fields and round-trips them', () => {
    expect(decodeIp(0x030dc008)).toEqual({ major: 12, minor: 55, revision: 8 });
    for (const [ip] of FACTS_ROWS) expect(encodeIp(decodeIp(ip))).toBe(ip);
  });

  it('names another stepping of a known design and says which revision the table lists', () => {
    const a = archForIp(encodeIp({ major: 12, minor: 60, revision: 3 }));
    expect(a.name).toBe('pvc');
    expect(a.stepping).toBe('rev 3 (table lists rev 7)');
  });

  it('names DG2-G11 and G12, for which Triton returns an empty string', () => {
    expect(archForIp(encodeIp({ major: 12, minor: 56, revision: 5 })).aliases).toContain('acm_g11');
    expect(archForIp(encodeIp({ major: 12, minor: 57, revision: 0 })).name).toBe('dg2');
  });

  it('reports an unknown IP as "unknown (ip 0x...)", never an empty string', () => {
    for (const ip of [0x0300c000, 0x12345678, 0xffffffff, 0]) {
      const a = archForIp(ip);
      expect(a.known).toBe(false);
      expect(a.name).toBe(`unknown (ip 0x${(ip >>> 0).toString(16).padStart(8, '0')})`);
    }
  });

  it('has one row per (major, minor) and finds rows by any alias', () => {
    const keys = ARCH_TABLE.map((r) => `${r.major}.${r.minor}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(rowByName('mtl_u')?.triton).toBe('arl_s');
    expect(rowByName('bmg_g31')?.minor).toBe(2);
  });
});
