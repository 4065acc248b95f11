import { describe, expect, it } from 'vitest';
import { nameOfFilename, RepodataScanner } from '../../src/index/repodata-scan.js';

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

describe('the scanner against JSON.parse, on generated documents', () => {
  /** A small seeded generator, so a failure names a document that can be made again. */
  function rng(seed: number): () => number {
    let x = seed >>> 0 || 1;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }
  const long = `lib${'z'.repeat(300)}`;
  const wanted = ['libgcc', 'libgcc-ng', '_openmp_mutex', 'level-zero', long];
  // Names around the wanted ones: prefixes, extensions, and others that share their rare bytes.
  const others = ['libgccx', 'xlibgcc', 'libgomp', 'libgcc-ng-extra', 'openmp_mutex', '_openmp', 'level', 'level-zero-devel', 'zero-level', `${long}x`, 'python'];

  /** A document whose records, strings and layout come from `seed`; the expectation from JSON.parse of it. */
  function generated(seed: number): { text: string; expected: Record<string, unknown>; baseUrl: boolean } {
    const r = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const tables: Record<string, Record<string, unknown>> = { packages: {}, 'packages.conda': {} };
    for (let i = 0; i < 8000 + Math.floor(r() * 4000); i++) {
      const name = r() < 0.15 ? pick(wanted) : pick(others);
      const ext = r() < 0.5 ? '.conda' : '.tar.bz2';
      const rec = {
        name,
        version: `${i % 9}.${i}`,
        build: `h${Math.floor(r() * 1e8).toString(16)}_${i % 3}`,
        depends: [`${pick(wanted)} >=1`, `"${pick(wanted)}-1.0-h_0.conda"`, 'x {brace} "quoted" \\ backslash'],
        note: pick(['', `"${pick(wanted)}-`, '"info": "no"', 'removed', 'ü'.repeat(Math.floor(r() * 20))]),
      };
      tables[r() < 0.5 ? 'packages' : 'packages.conda']![`${name}-${rec.version}-${rec.build}${ext}`] = rec;
    }
    const info = r() < 0.5 ? { subdir: 'linux-64', base_url: 'https://mirror.example/' } : { subdir: 'linux-64' };
    const parts: [string, unknown][] = [
      ['info', info],
      ['packages', tables.packages],
      ['packages.conda', tables['packages.conda']],
      ['removed', [`${pick(wanted)}-0.1-h_0.conda`]],
      ['repodata_version', 2],
    ];
    // Any order of the top-level keys.
    for (let i = parts.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [parts[i], parts[j]] = [parts[j]!, parts[i]!];
    }
    const doc = Object.fromEntries(parts);
    const text = JSON.stringify(doc, null, pick([undefined, 1, 2, '\t']));
    const expected: Record<string, unknown> = { info, removed: doc.removed, packages: {} };
    for (const t of ['packages', 'packages.conda']) {
      for (const [filename, rec] of Object.entries(tables[t]!)) {
        if (!wanted.includes(nameOfFilename(filename))) continue;
        const into = filename.endsWith('.conda') ? 'packages.conda' : 'packages';
        ((expected[into] ??= {}) as Record<string, unknown>)[filename] = rec;
      }
    }
    if (info.base_url) expected.repodata_version = 2;
    return { text, expected, baseUrl: !!info.base_url };
  }

  it.each(Array.from({ length: 12 }, (_, i) => [i + 1]))('document %i: it finds what JSON.parse finds', (seed) => {
    const { text, expected, baseUrl } = generated(seed);
    const bytes = Buffer.from(text);
    // Past two search batches, so matches also fall across the batches' ends.
    expect(bytes.length).toBeGreaterThan(2 << 20);
    const r = rng(seed * 7919);
    const s = new RepodataScanner(wanted);
    // Chunks from one byte to past a search batch, so matches fall across every kind of boundary.
    for (let i = 0; i < bytes.length; ) {
      const n = 1 + Math.floor(r() ** 3 * 300_000);
      s.push(bytes.subarray(i, i + n));
      i += n;
    }
    const got: Record<string, unknown> = { ...s.result() };
    // Without a base_url, repodata_version is not searched for once info is read (one that came first is kept).
    if (!baseUrl) delete got.repodata_version;
    expect(got, `seed ${seed}`).toEqual(expected);
  });
});
