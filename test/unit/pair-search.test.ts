// The WebAssembly SIMD pass behind the repodata scan: it reports exactly the positions where some needle's two bytes
// match, block by block, whatever the needles and wherever the matches (block edges, the last partial block, a second
// byte past the end), and growing its buffer keeps what it holds.
import { describe, expect, it } from 'vitest';
import { MAX_DISTANCE, NEEDLES, PairSearch, type Needle } from '../../src/sources/pair-search.js';

/** Every position before `end` where a needle matches, the plain way. */
function naive(b: Uint8Array, end: number, needles: Needle[]): number[] {
  const out: number[] = [];
  for (let q = 0; q < end; q++) if (needles.some((n) => b[q] === n.first && b[q + n.distance] === n.second)) out.push(q);
  return out;
}

function all(s: PairSearch, end: number): number[] {
  const out: number[] = [];
  for (let from = 0; ; ) {
    const hit = s.next(from, end);
    if (!hit) return out;
    expect(hit.at % 16).toBe(from % 16);
    for (let i = 0; i < 16; i++) if (hit.mask & (1 << i) && hit.at + i < end) out.push(hit.at + i);
    from = hit.at + 16;
  }
}

describe('PairSearch', () => {
  it('finds what a byte-by-byte look finds, for one to eight needles and distances up to the limit', () => {
    const s = PairSearch.create(70_000)!;
    const b = s.bytes;
    let x = 12345;
    for (let i = 0; i < b.length; i++) b[i] = 97 + ((x = (x * 1103515245 + 12345) >>> 0) >>> 24) % 6;
    for (const count of [1, 3, NEEDLES]) {
      const needles = Array.from({ length: count }, (_, k) => ({ first: 97 + (k % 6), second: 97 + ((k * 5 + 1) % 6), distance: [1, 7, 16, 17, 100, MAX_DISTANCE][k % 6]! }));
      s.setNeedles(needles);
      for (const end of [b.length - MAX_DISTANCE, 65_531, 17, 1]) expect(all(s, end)).toEqual(naive(b, end, needles));
    }
  });

  it('grows, keeping its bytes', () => {
    const s = PairSearch.create(1000)!;
    s.bytes.fill(7, 0, 1000);
    s.grow(300_000);
    expect(s.bytes.length).toBeGreaterThanOrEqual(300_000);
    expect(s.bytes.subarray(0, 1000).every((v) => v === 7)).toBe(true);
    // Unused needles look for 0 bytes, which JSON text never holds.
    s.bytes.fill(9, 1000, 300_000);
    s.bytes[299_999] = 1;
    s.bytes[300_000 - 1 - MAX_DISTANCE] = 2;
    s.setNeedles([{ first: 2, second: 1, distance: MAX_DISTANCE }]);
    expect(all(s, 300_000 - MAX_DISTANCE)).toEqual([300_000 - 1 - MAX_DISTANCE]);
  });

  it('refuses more needles than one pass holds, and distances it cannot reach', () => {
    const s = PairSearch.create(100)!;
    expect(() => s.setNeedles(Array.from({ length: NEEDLES + 1 }, () => ({ first: 1, second: 2, distance: 1 })))).toThrow(/at most/);
    expect(() => s.setNeedles([{ first: 1, second: 2, distance: MAX_DISTANCE + 1 }])).toThrow(/apart/);
  });
});
