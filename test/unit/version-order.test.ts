// Version ordering per source (PEP 440 through @renovatebot/pep440, conda, Debian), `name>=version` constraints, and
// manifest ranges read in each source's ordering.
import { beforeAll, describe, expect, it } from 'vitest';
import { compareAcross, compareConda, compareDebian, meets, parseConstraint, parseDebianRelations } from '../../src/versions/order.js';
import { comparePep440, isPep440PreRelease, loadPep440, pep440Holds } from '../../src/versions/pep440.js';
import { inRange, isRange } from '../../src/versions/range.js';

beforeAll(loadPep440);

const sorted = (cmp: (a: string, b: string) => number, vs: string[]) => [...vs].sort(cmp);

describe('PEP 440', () => {
  it('puts dev before pre-releases, pre-releases before the release, post after it', () => {
    const want = ['1.9.dev0', '1.9a1', '1.9b2', '1.9rc1', '1.9', '1.9.post1', '1.10'];
    expect(sorted(comparePep440, [...want].reverse())).toEqual(want);
  });
  it('reads alternate spellings and epochs', () => {
    expect(comparePep440('1.9-rc.1', '1.9rc1')).toBe(0);
    expect(comparePep440('1.9.0', '1.9')).toBe(0);
    expect(comparePep440('1!0.1', '2025.2')).toBe(1);
    expect(comparePep440('1.0.POST1', '1.0.post1')).toBe(0);
  });
  it('puts a dev release of a post release between the release and that post release', () => {
    const want = ['1.9', '1.9.post1.dev0', '1.9.post1', '1.9.post2'];
    expect(sorted(comparePep440, [...want].reverse())).toEqual(want);
    expect(comparePep440('1.9a2.dev1', '1.9a2')).toBe(-1);
  });
  it('sorts a local version (+xpu) after its public one, and local labels among themselves', () => {
    expect(comparePep440('2.10.0+xpu', '2.10.0')).toBe(1);
    expect(comparePep440('2.10.0+xpu', '2.10.1')).toBe(-1);
    expect(comparePep440('2.10.0+cpu', '2.10.0+xpu')).toBe(-1);
    expect(comparePep440('2.10.0+xpu', '2.10.0+xpu')).toBe(0);
  });
  it('sorts what is not a PEP 440 version by text, without throwing', () => {
    expect(comparePep440('not-a-version', '1.0')).toBe(1);
    expect(comparePep440('x', 'x')).toBe(0);
  });
  it('counts dev releases and pre-releases as pre-releases, post and local versions not', () => {
    expect(['1.9.dev0', '1.9a1', '1.9rc1', '1.0a1+local'].map(isPep440PreRelease)).toEqual([true, true, true, true]);
    expect(['1.9', '1.9.post1', '2.10.0+xpu', 'nonsense'].map(isPep440PreRelease)).toEqual([false, false, false, false]);
  });
  it('answers marker comparisons, and nothing for a side that is no version', () => {
    expect(pep440Holds('3.11', '>=', '3.9')).toBe(true);
    expect(pep440Holds('3.11', '<', '3.9')).toBe(false);
    expect(pep440Holds('linux', '>=', '3.9')).toBeUndefined();
  });
});

describe('conda', () => {
  it('puts dev and rc before the release and post after it', () => {
    const want = ['1.9dev0', '1.9a1', '1.9rc1', '1.9', '1.9.post1', '1.9.1', '1.20.6'];
    expect(sorted(compareConda, [...want].reverse())).toEqual(want);
  });
  it('reads a part that starts with a letter as 0 followed by it', () => {
    expect(compareConda('1.1.a1', '1.1.0a1')).toBe(0);
  });
});

describe('Debian', () => {
  it('orders ~ first, then epoch, upstream, revision', () => {
    const want = ['1.8.12-1', '1.9~rc1-1', '1.9-1', '1.9-1+b1', '1.20.6-1', '1:0.1-1'];
    expect(sorted(compareDebian, [...want].reverse())).toEqual(want);
  });
});

describe('constraints', () => {
  it('parses and checks floors with the ordering of the source', () => {
    const c = parseConstraint('level-zero>=1.9');
    expect(c).toMatchObject({ component: 'level-zero', op: '>=', version: '1.9' });
    expect(meets('1.8.12-1', c, 'debian')).toBe(false);
    expect(meets('1.20.6-1', c, 'debian')).toBe(true);
    expect(meets('1.9rc1', c, 'conda')).toBe(false);
    expect(meets('1.9rc1', c, 'pep440')).toBe(false);
    expect(meets('1.9.0', c, 'pep440')).toBe(true);
    expect(meets('1.8.12-1', parseConstraint('level-zero == 1.8.12'), 'debian')).toBe(true);
  });
  it('rejects what it cannot read, with an example', () => {
    expect(() => parseConstraint('level-zero~1.9')).toThrow(/cannot read the version constraint/);
  });
});

describe('versions from two sources', () => {
  it('judges the first in its own source\'s ordering, a Debian version by its upstream part', () => {
    // PEP 440 and conda disagree on a post release against a letter: 1.9.post1 is after 1.9 in both, 1.9a1 before.
    expect(compareAcross({ ordering: 'pep440', version: '2025.3.1' }, { ordering: 'conda', version: '2025.2.1' })).toBe(1);
    expect(compareAcross({ ordering: 'debian', version: '1:1.20.6-1' }, { ordering: 'conda', version: '1.20.6' })).toBe(0);
    expect(compareAcross({ ordering: 'conda', version: '1.20.6' }, { ordering: 'debian', version: '1.8.12-1' })).toBe(1);
    expect(compareAcross({ ordering: 'debian', version: '1.9~rc1-1' }, { ordering: 'debian', version: '1.9-1' })).toBe(-1);
    // The same strings in each ordering: conda reads "1.0.dev" as a dev release (before 1.0), Debian as after 1.0.
    expect(compareAcross({ ordering: 'conda', version: '1.0.dev1' }, { ordering: 'pep440', version: '1.0' })).toBe(-1);
    expect(compareAcross({ ordering: 'debian', version: '1.0.dev1' }, { ordering: 'pep440', version: '1.0' })).toBe(1);
  });
});

describe('a manifest range, read in its source\'s ordering', () => {
  it('conda: a conda version spec, with conda\'s order (2.0a0 is before 2.0)', () => {
    expect(isRange('conda', '>=1.20.2,<2.0a0')).toBe(true);
    expect(inRange('conda', '1.20.6', '>=1.20.2,<2.0a0')).toBe(true);
    expect(inRange('conda', '2.0.0', '>=1.20.2,<2.0a0')).toBe(false);
    expect(inRange('conda', '1.8.12', '1.8.*|>=1.20')).toBe(true);
    expect(inRange('conda', '1.9.0', '1.8.*|>=1.20')).toBe(false);
    expect(inRange('conda', '1.9.0', undefined)).toBe(true);
    for (const r of ['^1.9', '>=1.9 <2', '1..9', '>=1.9;<2', '']) expect(isRange('conda', r), r).toBe(false);
  });
  it('pypi: a PEP 440 specifier set, which leaves pre-releases out and reads local versions', () => {
    expect(isRange('pep440', '>=2025.2,<2026')).toBe(true);
    expect(inRange('pep440', '2025.3.1', '>=2025.2,<2026')).toBe(true);
    expect(inRange('pep440', '2026.0.0rc1', '>=2025.2')).toBe(false);
    expect(inRange('pep440', '2.10.0+xpu', '==2.10.0')).toBe(true);
    expect(inRange('pep440', '2.10.0+xpu', '~=2.9')).toBe(true);
    expect(inRange('pep440', 'nonsense', '>=1')).toBe(false);
    for (const r of ['^1.9', '>=1.9 <2', '1.9.*']) expect(isRange('pep440', r), r).toBe(false);
  });
  it('apt: Debian relations, an upstream bound read against the upstream part', () => {
    expect(parseDebianRelations('>= 1.8, << 2')).toMatchObject([{ op: '>=', version: '1.8' }, { op: '<', version: '2' }]);
    expect(inRange('debian', '1.20.6-1', '>= 1.9, << 2')).toBe(true);
    expect(inRange('debian', '1.8.12-1', '>= 1.9')).toBe(false);
    expect(inRange('debian', '1.9~rc1-1', '>= 1.9')).toBe(false);
    expect(inRange('debian', '1.20.6-1', '= 1.20.6')).toBe(true);
    expect(inRange('debian', '1.20.6-1', '>> 1.20.6-1')).toBe(false);
    expect(inRange('debian', '1.20.6-1+b1', '>> 1.20.6-1')).toBe(true);
    for (const r of ['>=1.9,<2', '> 1.9', '^1.9', '>= 1.9 << 2']) expect(isRange('debian', r), r).toBe(false);
  });
});
