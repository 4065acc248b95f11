// data/compute-runtime-releases.json: the IGC, gmmlib and Level Zero each GPU driver release was built with, and the
// glibc its packages need, each row with its source.
import { describe, expect, it } from 'vitest';
import { releaseRows } from '../support/releases.js';

const minor = (v: string): number => Number(v.split('.')[1]);

describe('data/compute-runtime-releases.json', () => {
  const rows = releaseRows();

  it('gives every row its source, versions in their own forms, and a glibc floor', () => {
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const r of rows) {
      expect(r.source.length, r.release).toBeGreaterThan(40);
      expect(r.release).toMatch(/^\d{2}\.\d{2}\.\d{5}\.\d+$/);
      expect(r.igc).toMatch(/^[12]\.\d+\.\d+(\.\d+)?$/);
      expect(r.glibc).toMatch(/^2\.\d+$/);
      if (r.gmmlib !== null) expect(r.gmmlib).toMatch(/^22\.\d+\.\d+$/);
      if (r.levelZero !== null) expect(r.levelZero).toMatch(/^1\.\d+\.\d+$/);
      // A floor not read from the packages says so in its source or comes from the release's notes.
      if (!r.glibcChecked) expect(r.source, r.release).toMatch(/UNVERIFIED|release notes/);
    }
    expect(new Set(rows.map((r) => `${r.packagedBy} ${r.release}`)).size).toBe(rows.length);
  });

  it("holds the pairs compute-runtime's manifest.yml pins", () => {
    const pairs = Object.fromEntries(rows.map((r) => [r.release, [r.igc, r.gmmlib, r.levelZero]]));
    expect(pairs['25.18.33578.6']).toEqual(['2.11.7', '22.7.0', '1.21.9']);
    expect(pairs['25.48.36300.8']).toEqual(['2.24.8', '22.8.2', '1.26.0']);
    expect(pairs['26.18.38308.1']).toEqual(['2.34.4', '22.10.0', '1.28.2']);
    expect(pairs['26.31.39395.13']).toEqual(['2.40.13', '22.10.0', '1.32.0']);
    expect(pairs['26.40.40196.8']).toEqual(['2.42.6', null, '1.34.0']);
  });

  it('newer releases take newer IGC and never an older glibc; from 26.31 Intel builds for Ubuntu 26.04 (glibc 2.43)', () => {
    const intel = rows.filter((r) => r.packagedBy === 'intel-github');
    for (let i = 1; i < intel.length; i++) {
      expect(minor(intel[i]!.igc), intel[i]!.release).toBeGreaterThan(minor(intel[i - 1]!.igc));
      expect(minor(intel[i]!.glibc)).toBeGreaterThanOrEqual(minor(intel[i - 1]!.glibc));
    }
    for (const r of intel) expect(r.glibc === '2.43', r.release).toBe(r.debsTarget === 'Ubuntu 26.04');
  });
});
