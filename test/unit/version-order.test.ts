// Version ordering per source (PEP 440, conda, Debian) and `name>=version` constraints.
import { describe, expect, it } from 'vitest';
import { compareConda, compareDebian, comparePep440, meets, parseConstraint } from '../../src/sources/order.js';

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
