// Up to eight short patterns searched for in one pass over a buffer, 16 bytes at a time with WebAssembly SIMD: each
// pattern is known by two of its bytes (a rare one and another at a fixed distance after it), so a position is
// looked at only where both match. Buffer.indexOf, one pattern at a time, stops at every occurrence of the first byte
// (millions in a conda-forge repodata.json), which cost more than the reading itself.

/** Needles one pass looks for. */
export const NEEDLES = 8;
/** The farthest the second byte of a needle may be from its first. */
export const MAX_DISTANCE = 255;
/** Where the searched bytes start in the module's memory: before them, the needle table and the last block's mask. */
const BASE = 64;
const MASK_AT = 32;
/** Bytes after the buffer's end a pass may read (a block of 16 and a needle's second byte beyond it). */
const SLACK = MAX_DISTANCE + 16 + 1;
const PAGE = 65536;

export interface Needle {
  first: number;
  second: number;
  /** How far after `first` the `second` byte is: 1 to MAX_DISTANCE. */
  distance: number;
}

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const simd = (op: number): number[] => [0xfd, ...leb(op)];
const memarg = (align: number, offset: number): number[] => [...leb(align), ...leb(offset)];
const section = (id: number, bytes: number[]): number[] => [id, ...leb(bytes.length), ...bytes];
const name = (s: string): number[] => [...leb(s.length), ...Buffer.from(s)];
const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = { load: 0x00, load8Splat: 0x07, eq: 0x23, and: 0x4e, or: 0x50, anyTrue: 0x53, bitmask: 0x64 } as const;

/**
 * The module, written out here (a few hundred bytes): `find(p, end)` returns the first 16-byte block at or after
 * address p, before end, where some needle's two bytes both match, its 16 positions' matches stored at MASK_AT as a
 * bitmask; `end` when there is none. The needle table sits at 0: first bytes [0, 8), second bytes [8, 16), distances
 * [16, 24); an unused needle has first byte 0, which JSON text never holds.
 */
function moduleBytes(): Uint8Array {
  const [p, end] = [0, 1];
  const first = (k: number) => 2 + k;
  const second = (k: number) => 2 + NEEDLES + k;
  const distance = (k: number) => 2 + 2 * NEEDLES + k;
  const block = 2 + 3 * NEEDLES;
  const matches = block + 1;
  const code: number[] = [];
  const emit = (...b: number[]) => code.push(...b);
  for (let k = 0; k < NEEDLES; k++) {
    emit(0x41, 0, ...simd(SIMD.load8Splat), ...memarg(0, k), 0x21, ...leb(first(k)));
    emit(0x41, 0, ...simd(SIMD.load8Splat), ...memarg(0, NEEDLES + k), 0x21, ...leb(second(k)));
    emit(0x41, 0, 0x2d, ...memarg(0, 2 * NEEDLES + k), 0x21, ...leb(distance(k)));
  }
  // block; loop: while p < end
  emit(0x02, 0x40, 0x03, 0x40, 0x20, p, 0x20, end, 0x4f, 0x0d, 1);
  emit(0x20, p, ...simd(SIMD.load), ...memarg(0, 0), 0x21, ...leb(block));
  for (let k = 0; k < NEEDLES; k++) {
    emit(0x20, ...leb(block), 0x20, ...leb(first(k)), ...simd(SIMD.eq));
    emit(0x20, p, 0x20, ...leb(distance(k)), 0x6a, ...simd(SIMD.load), ...memarg(0, 0), 0x20, ...leb(second(k)), ...simd(SIMD.eq));
    emit(...simd(SIMD.and));
    if (k) emit(...simd(SIMD.or));
  }
  emit(0x22, ...leb(matches), ...simd(SIMD.anyTrue));
  // if any: store the bitmask, return p
  emit(0x04, 0x40, 0x41, 0, 0x20, ...leb(matches), ...simd(SIMD.bitmask), 0x36, ...memarg(2, MASK_AT), 0x20, p, 0x0f, 0x0b);
  emit(0x20, p, 0x41, 16, 0x6a, 0x21, p, 0x0c, 0, 0x0b, 0x0b);
  emit(0x20, end, 0x0b);
  const locals = [...leb(3), ...leb(2 * NEEDLES), V128, ...leb(NEEDLES), I32, ...leb(2), V128];
  const body = [...locals, ...code];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]),
    ...section(2, [1, ...name('e'), ...name('m'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('find'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

/** What is used of WebAssembly (TypeScript declares it with the DOM's types only). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Wasm {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;

let compiled: object | null | undefined;

function module(): object | undefined {
  if (compiled === undefined) {
    try {
      const bytes = moduleBytes();
      compiled = wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/** A buffer in the module's memory, and the pass over it. */
export class PairSearch {
  private view!: Buffer;
  private table!: Uint8Array;
  private mask!: Int32Array;
  private readonly find: (p: number, end: number) => number;

  private constructor(
    private readonly memory: WasmMemory,
    instance: { exports: Record<string, unknown> },
  ) {
    this.find = instance.exports.find as (p: number, end: number) => number;
    this.views();
  }

  /** A search over a buffer of `capacity` bytes; undefined where WebAssembly SIMD is not there. */
  static create(capacity: number): PairSearch | undefined {
    const m = module();
    if (!m) return undefined;
    const memory = new wasm!.Memory({ initial: Math.ceil((BASE + capacity + SLACK) / PAGE) });
    return new PairSearch(memory, new wasm!.Instance(m, { e: { m: memory } }));
  }

  /** The buffer searched; a view made again after `grow`, so not to be kept across it. */
  get bytes(): Buffer {
    return this.view;
  }

  /** Makes the buffer at least `capacity` bytes long, keeping its contents. */
  grow(capacity: number): void {
    const pages = Math.ceil((BASE + capacity + SLACK) / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages <= 0) return;
    this.memory.grow(pages);
    this.views();
  }

  setNeedles(needles: readonly Needle[]): void {
    if (needles.length > NEEDLES) throw new Error(`at most ${NEEDLES} needles in one pass`);
    this.table.fill(0, 0, 3 * NEEDLES);
    needles.forEach((n, k) => {
      if (n.distance < 1 || n.distance > MAX_DISTANCE) throw new Error(`a needle's bytes ${n.distance} apart`);
      this.table[k] = n.first;
      this.table[NEEDLES + k] = n.second;
      this.table[2 * NEEDLES + k] = n.distance;
    });
    // An unused needle looks for a 0 byte followed by another at distance 1.
    for (let k = needles.length; k < NEEDLES; k++) this.table[2 * NEEDLES + k] = 1;
  }

  /**
   * The first 16-byte block starting at or after `from` and before `end` (offsets in `bytes`) where some needle
   * matches, as its offset and a bitmask of its matching positions (bit i: offset + i); undefined when none does. A
   * block may reach past `end`: positions there are the caller's to ignore.
   */
  next(from: number, end: number): { at: number; mask: number } | undefined {
    const p = this.find(BASE + from, BASE + end);
    return p < BASE + end ? { at: p - BASE, mask: this.mask[0]! } : undefined;
  }

  private views(): void {
    const buffer = this.memory.buffer;
    this.view = Buffer.from(buffer, BASE, buffer.byteLength - BASE - SLACK);
    this.table = new Uint8Array(buffer, 0, BASE);
    this.mask = new Int32Array(buffer, MASK_AT, 1);
  }
}
