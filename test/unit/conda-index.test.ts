import { describe, expect, it } from 'vitest';
import { parsePin, sameMinorBound, selectCondaSet } from '../../src/kinds/conda.js';
import { parseRepodata, type Repodata } from '../../src/index/repodata.js';

const h = (c: string) => c.repeat(64);

const repodata: Repodata = {
  info: { subdir: 'linux-64' },
  packages: {
    'level-zero-1.20.6-h1_0.tar.bz2': { name: 'level-zero', version: '1.20.6', build: 'h1_0', build_number: 0, sha256: h('a') },
    'level-zero-devel-1.20.6-h1_0.tar.bz2': { name: 'level-zero-devel', version: '1.20.6', build: 'h1_0', build_number: 0, sha256: h('b'), depends: ['level-zero ==1.20.6 h1_0'] },
    'level-zero-1.21.0-h1_0.tar.bz2': { name: 'level-zero', version: '1.21.0', build: 'h1_0', build_number: 0, sha256: h('c') },
  },
  'packages.conda': {
    'level-zero-1.20.6-h1_0.conda': { name: 'level-zero', version: '1.20.6', build: 'h1_0', build_number: 0, sha256: h('d') },
    'level-zero-1.20.6-h2_1.conda': { name: 'level-zero', version: '1.20.6', build: 'h2_1', build_number: 1, sha256: h('e') },
    'level-zero-devel-1.20.6-h1_0.conda': { name: 'level-zero-devel', version: '1.20.6', build: 'h1_0', build_number: 0, sha256: h('f'), depends: ['level-zero ==1.20.6 h1_0'] },
    'level-zero-1.9.0-h0_0.conda': { name: 'level-zero', version: '1.9.0', build: 'h0_0', build_number: 0, sha256: h('1') },
    'level-zero-devel-1.9.0-h0_0.conda': { name: 'level-zero-devel', version: '1.9.0', build: 'h0_0', build_number: 0, sha256: h('2') },
  },
  removed: ['level-zero-1.9.0-h0_0.conda'],
};

describe('conda repodata', () => {
  it('builds absolute URLs next to repodata.json (v1)', () => {
    const c = parseRepodata(repodata, 'http://h/ch/linux-64/repodata.json');
    expect(c.find((x) => x.filename === 'level-zero-1.20.6-h1_0.conda')!.url).toBe('http://h/ch/linux-64/level-zero-1.20.6-h1_0.conda');
    expect(c.some((x) => x.filename === 'level-zero-1.9.0-h0_0.conda')).toBe(false);
  });

  it('uses info.base_url with repodata_version 2', () => {
    const c = parseRepodata({ ...repodata, repodata_version: 2, info: { base_url: '../../files/linux-64/' } }, 'http://h/ch/linux-64/repodata.json');
    expect(c[0]!.url.startsWith('http://h/files/linux-64/')).toBe(true);
    const abs = parseRepodata({ ...repodata, repodata_version: 2, info: { base_url: 'https://cdn.example/x' } }, 'http://h/ch/linux-64/repodata.json');
    expect(abs[0]!.url.startsWith('https://cdn.example/x/')).toBe(true);
  });

  it('refuses a document that is not repodata', () => {
    expect(() => parseRepodata({} as Repodata, 'http://h/x/repodata.json')).toThrow(/http:\/\/h\/x\/repodata.json is not conda repodata/);
  });

  it('picks the highest version every package has, honouring the devel pin and preferring .conda', () => {
    const set = selectCondaSet(parseRepodata(repodata, 'http://h/c/linux-64/repodata.json'), ['level-zero', 'level-zero-devel'])!;
    // 1.21.0 has no devel package; 1.20.6 devel pins build h1_0 although h2_1 has a higher build number.
    expect(set.map((s) => s.filename)).toEqual(['level-zero-1.20.6-h1_0.conda', 'level-zero-devel-1.20.6-h1_0.conda']);
  });

  it('takes the highest build number when nothing pins', () => {
    const set = selectCondaSet(parseRepodata(repodata, 'http://h/c/linux-64/repodata.json'), ['level-zero'])!;
    expect(set[0]!.filename).toBe('level-zero-1.21.0-h1_0.tar.bz2');
    const only1206 = selectCondaSet(parseRepodata(repodata, 'http://h/c/linux-64/repodata.json'), ['level-zero'], '<1.21')!;
    expect(only1206[0]!.filename).toBe('level-zero-1.20.6-h2_1.conda');
  });

  it('answers undefined when a package is missing', () => {
    expect(selectCondaSet(parseRepodata(repodata, 'http://h/c/linux-64/repodata.json'), ['intel-cmplr-lib-ur'])).toBeUndefined();
  });

  it('parses exact pins', () => {
    expect(parsePin('level-zero ==1.20.6 h84d6215_0')).toEqual({ name: 'level-zero', version: '1.20.6', build: 'h84d6215_0' });
    expect(parsePin('libgcc >=13')).toEqual({ name: 'libgcc', version: '>=13', build: undefined });
  });
});

describe('sameMinorBound: a dependency held to the major.minor the package was built against', () => {
  it('reads the lower bound of a conda range and bounds it below the next minor', () => {
    expect(sameMinorBound('>=2.40.14,<3.0a0')).toBe('<2.41.0a0');
    expect(sameMinorBound('>=22.10.2,<23.0a0')).toBe('<22.11.0a0');
    expect(sameMinorBound('>= 2.9')).toBe('<2.10.0a0');
  });

  it('leaves a range without a lower bound alone', () => {
    expect(sameMinorBound('<3.0a0')).toBeUndefined();
    expect(sameMinorBound('2.40.*')).toBeUndefined();
  });
});
