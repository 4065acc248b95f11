import { describe, expect, it } from 'vitest';
import { RepodataScanner } from '../../src/sources/repodata-scan.js';

const doc = {
  info: { subdir: 'linux-64', base_url: 'https://mirror.example/x/', note: 'braces } { and "quotes" and \\ backslash' },
  packages: {
    'aaa-1.0-h0_0.tar.bz2': { name: 'aaa', version: '1.0', build: 'h0_0', build_number: 0, depends: ['level-zero >=1', 'x {weird}'] },
    'level-zero-1.20.6-h1_0.tar.bz2': { name: 'level-zero', version: '1.20.6', build: 'h1_0', build_number: 0, depends: ['libgcc >=13'], sha256: 'a'.repeat(64) },
    'zzz-2.0-ü_0.tar.bz2': { name: 'zzz', version: '2.0', build: 'ü_0', build_number: 0, depends: [] },
  },
  'packages.conda': {
    'level-zero-devel-1.20.6-h2_0.conda': { name: 'level-zero-devel', version: '1.20.6', build: 'h2_0', build_number: 0, depends: ['level-zero ==1.20.6 h1_0'], license: 'MIT "quoted"' },
    'not-level-zero-1.0-h_0.conda': { name: 'not-level-zero', version: '1.0', build: 'h_0', build_number: 0 },
  },
  removed: ['level-zero-1.0-old_0.tar.bz2'],
  repodata_version: 2,
};

const wanted = ['level-zero', 'level-zero-devel'];
const expected = {
  info: doc.info,
  packages: { 'level-zero-1.20.6-h1_0.tar.bz2': doc.packages['level-zero-1.20.6-h1_0.tar.bz2'] },
  'packages.conda': { 'level-zero-devel-1.20.6-h2_0.conda': doc['packages.conda']['level-zero-devel-1.20.6-h2_0.conda'] },
  removed: doc.removed,
  repodata_version: 2,
};

function scan(text: string, chunk: (i: number) => number): unknown {
  const s = new RepodataScanner(wanted);
  const buf = Buffer.from(text);
  for (let i = 0, n = 0; i < buf.length; n++) {
    const len = Math.max(1, chunk(n));
    s.push(buf.subarray(i, i + len));
    i += len;
  }
  return s.result();
}

describe('RepodataScanner', () => {
  it.each([
    ['compact, one chunk', JSON.stringify(doc), () => 1 << 20],
    ['indented, one byte at a time', JSON.stringify(doc, null, 2), () => 1],
    ['indented, uneven chunks', JSON.stringify(doc, null, 1), (n: number) => (n * 7919) % 13],
  ])('keeps exactly the wanted records and the top-level metadata (%s)', (_name, text, chunk) => {
    expect(scan(text, chunk)).toEqual(expected);
  });

  it('answers an empty table when no record matches, so "not found" is told apart from "not repodata"', () => {
    const s = new RepodataScanner([]);
    s.push(Buffer.from(JSON.stringify({ packages: { 'x-1-0.tar.bz2': { name: 'x' } } })));
    expect(s.result()).toEqual({ packages: {} });
    const other = new RepodataScanner(['x']);
    other.push(Buffer.from(JSON.stringify({ hello: 'world' })));
    expect(other.result()).toEqual({});
  });

  it('reads repodata_version where info names a base_url, wherever each comes, and not where info names none', () => {
    const tail = { packages: doc.packages, removed: [], repodata_version: 2 };
    const s = new RepodataScanner(wanted);
    s.push(Buffer.from(JSON.stringify({ ...tail, info: { base_url: 'https://mirror.example/x/' } })));
    expect(s.result()).toMatchObject({ repodata_version: 2, info: { base_url: 'https://mirror.example/x/' } });
    const none = new RepodataScanner(wanted);
    none.push(Buffer.from(JSON.stringify({ info: { subdir: 'linux-64' }, ...tail })));
    expect(none.result()).not.toHaveProperty('repodata_version');
  });

  it('refuses text that ends early', () => {
    const s = new RepodataScanner(wanted);
    s.push(Buffer.from(JSON.stringify(doc).slice(0, 200)));
    expect(() => s.result()).toThrow(/ended early/);
  });
});

describe('RepodataScanner on a document larger than its search batches', () => {
  /** 6000 records of 200 names, the wanted ones scattered, with look-alike names, keys and strings around them. */
  function big(indent: number | undefined): { text: string; expected: Record<string, unknown> } {
    const packages: Record<string, unknown> = {};
    const conda: Record<string, unknown> = {};
    for (let i = 0; i < 6000; i++) {
      const name = i % 997 === 3 ? 'level-zero' : i % 991 === 5 ? 'level-zero-devel' : i % 13 === 0 ? 'not-level-zero' : `pkg${i % 200}`;
      const rec = { build: `h${i}_0`, build_number: i % 3, depends: ['level-zero-devel >=1', 'x "quoted" {brace}'], name, version: `1.${i}`, note: 'level-zero-1.0-h0_0.conda' };
      (i % 2 ? conda : packages)[`${name}-1.${i}-h${i}_0${i % 2 ? '.conda' : '.tar.bz2'}`] = rec;
    }
    const doc = { info: { subdir: 'linux-64' }, packages, 'packages.conda': conda, removed: ['level-zero-0.1-h_0.conda'], repodata_version: 1 };
    const keep = (t: Record<string, unknown>) => Object.fromEntries(Object.entries(t).filter(([, r]) => (r as { name: string }).name === 'level-zero'));
    // No base_url in info, so no repodata_version in the answer: it would change nothing, and is not searched for.
    return { text: JSON.stringify(doc, null, indent), expected: { info: doc.info, packages: keep(packages), 'packages.conda': keep(conda), removed: doc.removed } };
  }

  it.each([
    ['compact, 64 KiB chunks', undefined, () => 65536],
    ['indented, uneven chunks', 1, (n: number) => 1 + ((n * 104729) % 70000)],
  ])('finds every wanted record and nothing else (%s)', (_name, indent, chunk) => {
    const { text, expected } = big(indent);
    const s = new RepodataScanner(['level-zero']);
    const buf = Buffer.from(text);
    expect(buf.length).toBeGreaterThan(1 << 20);
    for (let i = 0, n = 0; i < buf.length; n++) {
      const len = chunk(n);
      s.push(buf.subarray(i, i + len));
      i += len;
    }
    const r = s.result();
    expect(Object.keys(r.packages!).length + Object.keys(r['packages.conda']!).length).toBe(7);
    expect(r).toEqual(expected);
  });
});
