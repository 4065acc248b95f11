// What an ELF shared library needs at load time: DT_NEEDED, its soname, RUNPATH/RPATH, symbol version needs and definitions, and the dynamic symbols it takes and gives.

import type { RangeReader } from '../base/safe-read.js';

/** A shared library's file name: `libumf.so`, `libumf.so.1`, `libze_loader.so.1.8.0`. */
export const SHARED_LIBRARY = /\.so(\.\d+)*$/;

export interface ElfNeeds {
  soname?: string;
  needed: string[];
  runpath: string[];
  rpath: string[];
  /** Symbol versions it needs, by the library that must define them (`libstdc++.so.6` -> `GLIBCXX_3.4.32`). */
  versionNeeds: { file: string; versions: string[] }[];
  /** Symbol versions it defines (`UMF_1.0`, `GLIBCXX_3.4.30`). */
  versionDefs: string[];
  /** Why its tables are not read whole (past one of ELF_LIMITS): it is then taken as a library that does not load. */
  refused?: string;
}

/**
 * No real library comes near these (libLLVM: ~60,000 dynamic symbols, names up to a few KB, a few dozen DT_NEEDED);
 * a file past one is refused rather than read: the work and memory otherwise grow with what a hostile file claims.
 */
export const ELF_LIMITS = { needed: 4096, symbols: 2_000_000, nameBytes: 64 * 1024, allNameBytes: 64 * 1024 * 1024 };

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const DT = { NULL: 0n, NEEDED: 1n, HASH: 4n, STRTAB: 5n, SYMTAB: 6n, STRSZ: 10n, SONAME: 14n, RPATH: 15n, RUNPATH: 29n, VERDEF: 0x6ffffffcn, VERDEFNUM: 0x6ffffffdn, VERNEED: 0x6ffffffen, VERNEEDNUM: 0x6fffffffn, GNU_HASH: 0x6ffffef5n };

/** The ELF header's `e_machine` (62 x86-64, 183 AArch64, 205 Intel GPU), undefined when the bytes are no ELF file. */
export function elfMachine(b: Buffer): number | undefined {
  if (b.length < 20 || b.readUInt32BE(0) !== 0x7f454c46) return undefined;
  return b[5] === 2 ? b.readUInt16BE(18) : b.readUInt16LE(18);
}

/** The dynamic section of a file as the dynamic linker sees it: its entries, file offsets of addresses, its strings. */
interface Dynamic {
  entries: [bigint, bigint][];
  fileOffset: (addr: number) => number | undefined;
  str: (off: number) => string;
  /** The bytes of the name at string table offset `off` (a view, not a copy), under the same limits as `str`. */
  bytes: (off: number) => Buffer | undefined;
  /** Where the name at string table offset `off` starts in the file, undefined past the table. */
  strOffset: (off: number) => number | undefined;
  one: (tag: bigint) => number | undefined;
  /** Set once a name past ELF_LIMITS.nameBytes was met. */
  tooLong: () => string | undefined;
}

/**
 * The dynamic section of a buffer readElfTables made, by its file offset, where it was read apart: it sits far past the
 * other tables (after the code), and the buffer ends where they end.
 */
const dynamicApart = new WeakMap<Buffer, { offset: number; bytes: Buffer }>();

/** Reads the dynamic section through the program headers; undefined when the bytes are not a 64-bit LE ELF with one. */
function readDynamic(b: Buffer): Dynamic | undefined {
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) return undefined;
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  const phnum = b.readUInt16LE(56);
  const loads: { vaddr: number; offset: number; filesz: number }[] = [];
  let dyn: { offset: number; size: number } | undefined;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 56 > b.length) return undefined;
    const type = b.readUInt32LE(at);
    const offset = Number(b.readBigUInt64LE(at + 8));
    const vaddr = Number(b.readBigUInt64LE(at + 16));
    const filesz = Number(b.readBigUInt64LE(at + 32));
    if (type === PT_LOAD) loads.push({ vaddr, offset, filesz });
    if (type === PT_DYNAMIC) dyn = { offset, size: filesz };
  }
  if (!dyn) return undefined;
  const fileOffset = (addr: number): number | undefined => {
    const l = loads.find((x) => addr >= x.vaddr && addr < x.vaddr + x.filesz);
    return l ? addr - l.vaddr + l.offset : undefined;
  };
  const entries: [bigint, bigint][] = [];
  // The dynamic section read apart from the tables (readElfTables), or in place.
  const apart = dynamicApart.get(b);
  const src = apart?.offset === dyn.offset ? apart.bytes : b;
  const base = src === b ? dyn.offset : 0;
  for (let at = base; at + 16 <= Math.min(src.length, base + dyn.size); at += 16) {
    const tag = src.readBigInt64LE(at);
    if (tag === DT.NULL) break;
    entries.push([tag, src.readBigUInt64LE(at + 8)]);
  }
  const one = (tag: bigint): number | undefined => {
    const e = entries.find(([t]) => t === tag);
    return e ? Number(e[1]) : undefined;
  };
  const strtab = fileOffset(one(DT.STRTAB) ?? -1);
  if (strtab === undefined) return undefined;
  const strsz = one(DT.STRSZ) ?? b.length - strtab;
  // Each name is found once, whatever number of entries share it; one past the cap ends the reading (tooLong).
  const spans = new Map<number, Buffer>();
  const names = new Map<number, string>();
  let tooLong: string | undefined;
  let made = 0;
  const strOffset = (off: number): number | undefined => (off < 0 || off >= strsz || strtab + off >= b.length ? undefined : strtab + off);
  const bytes = (off: number): Buffer | undefined => {
    const start = strOffset(off);
    if (tooLong || start === undefined) return undefined;
    let span = spans.get(off);
    if (span === undefined) {
      let end = b.indexOf(0, start);
      if (end < 0 || end - start > ELF_LIMITS.nameBytes) {
        if (start + ELF_LIMITS.nameBytes < b.length) {
          tooLong ??= `a name at string table offset ${off} runs past ${ELF_LIMITS.nameBytes} bytes`;
          return undefined;
        }
        end = b.length;
      }
      span = b.subarray(start, end);
      if ((made += span.length) > ELF_LIMITS.allNameBytes) {
        tooLong = `its names come to more than ${ELF_LIMITS.allNameBytes} bytes`;
        return undefined;
      }
      spans.set(off, span);
    }
    return span;
  };
  const str = (off: number): string => {
    let name = names.get(off);
    if (name === undefined) {
      const span = bytes(off);
      if (!span) return '';
      names.set(off, (name = span.toString('utf8')));
    }
    return name;
  };
  return { entries, fileOffset, str, bytes, strOffset, one, tooLong: () => tooLong };
}

/**
 * Pure: reads the dynamic section of a 64-bit little-endian ELF file (x86-64 and friends) through its program headers,
 * as the dynamic linker does. Undefined when the bytes are not such a file or have no dynamic section; damaged tables
 * end the reading where they become unreadable rather than throwing.
 */
export function readElfNeeds(b: Buffer): ElfNeeds | undefined {
  const d = readDynamic(b);
  if (!d) return undefined;
  const { entries, fileOffset, str, one } = d;
  const needed = entries.filter(([t]) => t === DT.NEEDED).length;
  if (needed > ELF_LIMITS.needed) {
    return { needed: [], runpath: [], rpath: [], versionNeeds: [], versionDefs: [], refused: `has ${needed} DT_NEEDED entries, more than ${ELF_LIMITS.needed}` };
  }
  const all = (tag: bigint): string[] => entries.filter(([t]) => t === tag).map(([, v]) => str(Number(v)));
  const paths = (tag: bigint): string[] => all(tag).flatMap((p) => p.split(':')).filter(Boolean);
  const soname = one(DT.SONAME);
  const out: ElfNeeds = {
    soname: soname === undefined ? undefined : str(soname),
    needed: all(DT.NEEDED),
    runpath: paths(DT.RUNPATH),
    rpath: paths(DT.RPATH),
    versionNeeds: verneeds(b, fileOffset(one(DT.VERNEED) ?? -1), one(DT.VERNEEDNUM) ?? 0, str),
    versionDefs: verdefs(b, fileOffset(one(DT.VERDEF) ?? -1), one(DT.VERDEFNUM) ?? 0, str),
  };
  const tooLong = d.tooLong();
  return tooLong ? { ...out, refused: tooLong } : out;
}

/** The dynamic symbols a library takes from others, by name, and the question whether it gives one. */
export interface ElfSymbols {
  /**
   * Undefined and not weak: the dynamic linker must find each in a library of the process (`zeDeviceSynchronize`).
   * Read from the file's bytes as the lookups take them; each decoded only when its text is asked for.
   */
  undefinedNames: SymbolName[];
  /**
   * Whether it defines `name` for other objects (a function, data, TLS; not a local symbol), looked up in its symbol
   * hash table as the dynamic linker looks it up: no name of the table is read but those the hash leads to. A name
   * asked of many libraries is best given as one SymbolName, hashed once.
   */
  defines(name: string | SymbolName): boolean;
  /** Why the table is not read whole (past one of ELF_LIMITS). */
  refused?: string;
}

const SYM_SIZE = 24;
/** Whether this machine's words are little-endian, as the ELF files read here are (a typed array reads them natively). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const STB_LOCAL = 0;
const STB_WEAK = 2;

/**
 * Pure: the dynamic symbol table (.dynsym) of a 64-bit little-endian ELF file, found through the dynamic section as
 * the dynamic linker finds it (DT_SYMTAB, its length from DT_HASH or DT_GNU_HASH), so a file without section headers
 * reads the same. Undefined when the bytes are not such a file or its table cannot be sized. `takes`: false for a
 * library that is only asked what it defines, whose undefined symbols are then not read (none listed).
 */
export function readElfSymbols(b: Buffer, takes = true): ElfSymbols | undefined {
  const d = readDynamic(b);
  if (!d) return undefined;
  const symtab = d.fileOffset(d.one(DT.SYMTAB) ?? -1);
  if (symtab === undefined) return undefined;
  const count = symbolCount(b, d);
  if (count === undefined) return undefined;
  const none = { undefinedNames: [], defines: () => false };
  if (count > ELF_LIMITS.symbols) return { ...none, refused: `has ${count} dynamic symbols, more than ${ELF_LIMITS.symbols}` };
  const undefinedNames: SymbolName[] = [];
  // Entry 0 is the null symbol. Only the names of undefined symbols are read here.
  for (let i = 1; takes && i < count; i++) {
    const at = symtab + i * SYM_SIZE;
    if (at + SYM_SIZE > b.length) break;
    if (b.readUInt16LE(at + 6) !== 0 || b[at + 4]! >> 4 === STB_WEAK) continue;
    const name = d.bytes(b.readUInt32LE(at));
    if (name?.length) undefinedNames.push(new SymbolName(name));
  }
  const tooLong = d.tooLong();
  if (tooLong) return { ...none, refused: tooLong };
  return { undefinedNames, defines: symbolLookup(b, d, symtab, count) };
}

/** A symbol's name as the hash tables look it up: its bytes, its text and both hashes, each worked out once. */
export class SymbolName {
  readonly bytes: Buffer;
  private decoded?: string;
  private gnuHash?: number;
  private sysvHash?: number;

  /** From text, or from a library's own bytes (a view into its string table, decoded only if `text` is asked). */
  constructor(name: string | Buffer) {
    if (typeof name === 'string') {
      this.decoded = name;
      this.bytes = Buffer.from(name);
    } else this.bytes = name;
  }

  get text(): string {
    return (this.decoded ??= this.bytes.toString('utf8'));
  }

  /** DT_GNU_HASH's hash (Bernstein's, h * 33 + c). */
  get gnu(): number {
    if (this.gnuHash === undefined) {
      const b = this.bytes;
      let h = 5381;
      for (let i = 0; i < b.length; i++) h = (h * 33 + b[i]!) >>> 0;
      this.gnuHash = h;
    }
    return this.gnuHash;
  }

  /** DT_HASH's hash (the System V ABI's). */
  get sysv(): number {
    if (this.sysvHash === undefined) {
      let h = 0;
      for (const c of this.bytes) {
        h = ((h << 4) + c) >>> 0;
        const g = h & 0xf0000000;
        if (g) h ^= g >>> 24;
        h = (h & ~g) >>> 0;
      }
      this.sysvHash = h;
    }
    return this.sysvHash;
  }
}

/**
 * Whether symbol `i` of the table at `symtab` is named `name` (its bytes, NUL-terminated in the string table) and
 * defined for other objects.
 */
function definesAt(b: Buffer, d: Dynamic, symtab: number, i: number, name: Buffer): boolean {
  const at = symtab + i * SYM_SIZE;
  if (at + SYM_SIZE > b.length || b.readUInt16LE(at + 6) === 0 || b[at + 4]! >> 4 === STB_LOCAL) return false;
  const start = d.strOffset(b.readUInt32LE(at));
  if (start === undefined || start + name.length >= b.length || b[start + name.length] !== 0) return false;
  return b.compare(name, 0, name.length, start, start + name.length) === 0;
}

/** The lookup of a defined symbol by name through DT_GNU_HASH (its Bloom filter, bucket and chain), else DT_HASH. */
function symbolLookup(b: Buffer, d: Dynamic, symtab: number, count: number): (name: string | SymbolName) => boolean {
  const bounded = (at: number) => (at >= 0 && at + 4 <= b.length ? b.readUInt32LE(at) : undefined);
  const gnu = d.fileOffset(d.one(DT.GNU_HASH) ?? -1);
  if (gnu !== undefined && gnu + 16 <= b.length) {
    const [nbuckets, symoffset, bloomWords, shift] = [bounded(gnu)!, bounded(gnu + 4)!, bounded(gnu + 8)!, bounded(gnu + 12)!];
    const bloom = gnu + 16;
    const buckets = bloom + bloomWords * 8;
    const chains = buckets + nbuckets * 4;
    // The whole table read as 32-bit words where it lies whole and aligned in the buffer (each lookup reads a dozen
    // words; past the table a read is undefined, as a bounded read past the buffer is).
    const end = chains + Math.max(0, count - symoffset) * 4;
    const words = LITTLE_ENDIAN && (b.byteOffset + gnu) % 4 === 0 && end <= b.length ? new Uint32Array(b.buffer, b.byteOffset + gnu, (end - gnu) / 4) : undefined;
    const u32 = words ? (at: number): number | undefined => words[(at - gnu) / 4] : bounded;
    /** Bit `n` of the 64-bit Bloom word at `word`, read as two halves. */
    const bit = (word: number, n: number) => ((u32(word + (n >= 32 ? 4 : 0)) ?? 0) >>> n % 32) & 1;
    return (asked) => {
      if (!nbuckets || !bloomWords) return false;
      const sym = typeof asked === 'string' ? new SymbolName(asked) : asked;
      const name = sym.bytes;
      const h = sym.gnu;
      // Both of the name's bits must be set in its Bloom word, or the library does not have it.
      const word = bloom + (Math.floor(h / 64) % bloomWords) * 8;
      if (!bit(word, h % 64) || !bit(word, (h >>> shift) % 64)) return false;
      let i = u32(buckets + (h % nbuckets) * 4) ?? 0;
      if (i < symoffset) return false;
      for (; i < count; i++) {
        const chain = u32(chains + (i - symoffset) * 4);
        if (chain === undefined) return false;
        if ((chain | 1) === (h | 1) && definesAt(b, d, symtab, i, name)) return true;
        if (chain & 1) return false;
      }
      return false;
    };
  }
  const hash = d.fileOffset(d.one(DT.HASH) ?? -1);
  const nbucket = hash === undefined ? undefined : bounded(hash);
  if (hash === undefined || !nbucket) return () => false;
  const nchain = bounded(hash + 4) ?? 0;
  return (asked) => {
    const sym = typeof asked === 'string' ? new SymbolName(asked) : asked;
    const name = sym.bytes;
    const h = sym.sysv;
    // A chain is at most as long as the table: a looping one (a damaged file) ends there.
    for (let i = bounded(hash + 8 + (h % nbucket) * 4) ?? 0, steps = 0; i !== 0 && i < nchain && steps < count; i = bounded(hash + 8 + nbucket * 4 + i * 4) ?? 0, steps++) {
      if (definesAt(b, d, symtab, i, name)) return true;
    }
    return false;
  };
}

/** How many entries .dynsym has: DT_HASH says it (nchain); DT_GNU_HASH by the end of the chain of its last bucket. */
function symbolCount(b: Buffer, d: Dynamic): number | undefined {
  const hash = d.fileOffset(d.one(DT.HASH) ?? -1);
  if (hash !== undefined && hash + 8 <= b.length) return b.readUInt32LE(hash + 4);
  const gnu = d.fileOffset(d.one(DT.GNU_HASH) ?? -1);
  if (gnu === undefined || gnu + 16 > b.length) return undefined;
  const nbuckets = b.readUInt32LE(gnu);
  const symoffset = b.readUInt32LE(gnu + 4);
  const bloomWords = b.readUInt32LE(gnu + 8);
  const buckets = gnu + 16 + bloomWords * 8;
  const chains = buckets + nbuckets * 4;
  if (chains > b.length) return undefined;
  let last = 0;
  for (let i = 0; i < nbuckets; i++) last = Math.max(last, b.readUInt32LE(buckets + i * 4));
  if (last < symoffset) return symoffset;
  // The chain's last entry has its low bit set.
  for (let i = last; ; i++) {
    const at = chains + (i - symoffset) * 4;
    if (at + 4 > b.length) return undefined;
    if (b.readUInt32LE(at) & 1) return i + 1;
  }
}

/** Section types that hold what the dynamic linker reads: the dynamic section, its symbols, strings, hashes, versions. */
const DYNAMIC_SECTION_TYPES = new Set([5, 6, 11, 0x6ffffff6, 0x6ffffffd, 0x6ffffffe, 0x6fffffff]);
const SHT_STRTAB = 3;

/**
 * Reads of an ELF file only what readElfNeeds and readElfSymbols look at: the ELF and program headers and the sections
 * the dynamic linker's tables sit in (found from the section headers), at their file offsets in a buffer that ends
 * where the last of them ends; the dynamic section, which sits past the code, is read apart (dynamicApart). A 110 MB
 * libLLVM costs its 5 MB of tables, not 110 MB, and no file-sized buffer is made (V8 counts one as memory in use and
 * collects garbage for it). Where the section headers are missing or do not cover every table the dynamic section
 * names, the file is read whole.
 */
export async function readElfTables(read: RangeReader, size: number): Promise<Buffer> {
  const whole = async (): Promise<Buffer> => {
    const b = Buffer.allocUnsafe(size);
    await read(b, 0, size);
    return b;
  };
  const head = Buffer.alloc(Math.min(64, size));
  await read(head, 0, head.length);
  if (size < 64 || head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return head;
  const phoff = Number(head.readBigUInt64LE(32));
  const shoff = Number(head.readBigUInt64LE(40));
  const [phentsize, phnum, shentsize, shnum] = [54, 56, 58, 60].map((o) => head.readUInt16LE(o)) as [number, number, number, number];
  if (!shoff || shentsize < 64 || phentsize < 56 || shoff + shnum * shentsize > size || phoff + phnum * phentsize > size) return whole();
  const [ph, sh] = [Buffer.alloc(phnum * phentsize), Buffer.alloc(shnum * shentsize)];
  await Promise.all([read(ph, phoff, ph.length, 0), read(sh, shoff, sh.length, 0)]);
  const section = (i: number) => ({ type: sh.readUInt32LE(i * shentsize + 4), offset: Number(sh.readBigUInt64LE(i * shentsize + 24)), size: Number(sh.readBigUInt64LE(i * shentsize + 32)), link: sh.readUInt32LE(i * shentsize + 40) });
  const wanted = new Set<number>();
  for (let i = 0; i < shnum; i++) {
    const s = section(i);
    if (!DYNAMIC_SECTION_TYPES.has(s.type)) continue;
    wanted.add(i);
    // The string table a table's names are in (sh_link).
    if (s.link < shnum && section(s.link).type === SHT_STRTAB) wanted.add(s.link);
  }
  let dyn: { offset: number; size: number } | undefined;
  for (let i = 0; i < phnum; i++) {
    if (ph.readUInt32LE(i * phentsize) === PT_DYNAMIC) dyn = { offset: Number(ph.readBigUInt64LE(i * phentsize + 8)), size: Number(ph.readBigUInt64LE(i * phentsize + 32)) };
  }
  const inDynamic = (o: number, n: number) => !!dyn && o >= dyn.offset && o + n <= dyn.offset + dyn.size;
  const tables: [number, number][] = [];
  for (const i of wanted) {
    const s = section(i);
    if (s.offset + s.size > size) return whole();
    if (!inDynamic(s.offset, s.size)) tables.push([s.offset, s.size]);
  }
  const ranges: [number, number][] = [[0, 64], [phoff, ph.length], ...tables];
  const end = Math.max(...ranges.map(([o, n]) => o + n));
  // Zero-filled: what lies between the tables (nothing, in a linker's usual layout) reads as zeros, never as old memory.
  const b = Buffer.alloc(end);
  head.copy(b, 0);
  ph.copy(b, phoff);
  if (dyn && dyn.offset + dyn.size > end) {
    if (dyn.offset + dyn.size > size) return whole();
    const bytes = Buffer.alloc(dyn.size);
    await read(bytes, dyn.offset, dyn.size, 0);
    dynamicApart.set(b, { offset: dyn.offset, bytes });
  } else if (dyn) {
    ranges.push([dyn.offset, dyn.size]);
  }
  await Promise.all(ranges.slice(2).map(([o, n]) => read(b, o, n)));
  return tablesRead(b, ranges) ? b : whole();
}

/**
 * Whether every byte the parsers will read of the dynamic linker's tables was read: the strings, the symbols (as many
 * as the hash table counts), the hash tables and the version chains, walked as the parsers walk them.
 */
function tablesRead(b: Buffer, ranges: readonly [number, number][]): boolean {
  const inside = (at: number, n: number) => at >= 0 && ranges.some(([o, len]) => at >= o && at + n <= o + len);
  const d = readDynamic(b);
  if (!d) return false;
  const at = (tag: bigint): number | undefined => {
    const addr = d.one(tag);
    return addr === undefined ? undefined : (d.fileOffset(addr) ?? -1);
  };
  const strtab = at(DT.STRTAB);
  if (strtab === undefined || !inside(strtab, d.one(DT.STRSZ) ?? 1)) return false;
  const symtab = at(DT.SYMTAB);
  const count = symbolCount(b, d);
  if (symtab !== undefined && (count === undefined || !inside(symtab, count * SYM_SIZE))) return false;
  const hash = at(DT.HASH);
  if (hash !== undefined && !(inside(hash, 8) && inside(hash, 8 + (b.readUInt32LE(hash) + b.readUInt32LE(hash + 4)) * 4))) return false;
  const gnu = at(DT.GNU_HASH);
  if (gnu !== undefined) {
    if (!inside(gnu, 16) || count === undefined) return false;
    const [nbuckets, symoffset, bloomWords] = [0, 4, 8].map((o) => b.readUInt32LE(gnu + o)) as [number, number, number];
    if (!inside(gnu, 16 + bloomWords * 8 + nbuckets * 4 + Math.max(0, count - symoffset) * 4)) return false;
  }
  return chainRead(b, at(DT.VERNEED), d.one(DT.VERNEEDNUM) ?? 0, inside, { entry: 16, aux: 8, next: 12, auxEntry: 16, auxNext: 12, auxCount: 2 })
    && chainRead(b, at(DT.VERDEF), d.one(DT.VERDEFNUM) ?? 0, inside, { entry: 20, aux: 12, next: 16, auxEntry: 8 });
}

/** Whether a version chain (Verneed or Verdef entries and their aux entries, at these field offsets) lies in what was read. */
function chainRead(
  b: Buffer,
  start: number | undefined,
  count: number,
  inside: (at: number, n: number) => boolean,
  f: { entry: number; aux: number; next: number; auxEntry: number; auxNext?: number; auxCount?: number },
): boolean {
  let at = start;
  for (let i = 0; at !== undefined && i < count; i++) {
    if (!inside(at, f.entry)) return false;
    let aux = at + b.readUInt32LE(at + f.aux);
    const auxes = f.auxCount === undefined ? 1 : b.readUInt16LE(at + f.auxCount);
    for (let j = 0; j < auxes; j++) {
      if (!inside(aux, f.auxEntry)) return false;
      const next = f.auxNext === undefined ? 0 : b.readUInt32LE(aux + f.auxNext);
      if (!next) break;
      aux += next;
    }
    const next = b.readUInt32LE(at + f.next);
    at = next ? at + next : undefined;
  }
  return true;
}

/** Elf64_Verneed (16 bytes) chains, each with Elf64_Vernaux (16 bytes) entries naming a version. */
function verneeds(b: Buffer, start: number | undefined, count: number, str: (o: number) => string): ElfNeeds['versionNeeds'] {
  const out: ElfNeeds['versionNeeds'] = [];
  let at = start;
  for (let i = 0; at !== undefined && i < count && at + 16 <= b.length; i++) {
    const cnt = b.readUInt16LE(at + 2);
    const file = str(b.readUInt32LE(at + 4));
    const versions: string[] = [];
    let aux = at + b.readUInt32LE(at + 8);
    for (let j = 0; j < cnt && aux + 16 <= b.length; j++) {
      versions.push(str(b.readUInt32LE(aux + 8)));
      const next = b.readUInt32LE(aux + 12);
      if (!next) break;
      aux += next;
    }
    out.push({ file, versions });
    const next = b.readUInt32LE(at + 12);
    at = next ? at + next : undefined;
  }
  return out;
}

/** Elf64_Verdef (20 bytes) chains; the first Elf64_Verdaux of each names the version (the base entry names the file). */
function verdefs(b: Buffer, start: number | undefined, count: number, str: (o: number) => string): string[] {
  const VER_FLG_BASE = 1;
  const out: string[] = [];
  let at = start;
  for (let i = 0; at !== undefined && i < count && at + 20 <= b.length; i++) {
    const flags = b.readUInt16LE(at + 2);
    const aux = at + b.readUInt32LE(at + 12);
    if (!(flags & VER_FLG_BASE) && aux + 8 <= b.length) out.push(str(b.readUInt32LE(aux)));
    const next = b.readUInt32LE(at + 16);
    at = next ? at + next : undefined;
  }
  return out;
}

/** `GLIBCXX_3.4.30` -> [`GLIBCXX`, [3, 4, 30]]; a name without a version number is a family of its own. */
function versionFamily(v: string): [string, number[]] {
  const m = /^(.*?)_?([\d.]+)$/.exec(v);
  return m ? [m[1]!, m[2]!.split('.').map(Number)] : [v, []];
}

/** The newest symbol version `defs` defines in the family of `like`: `GLIBCXX_3.4.30` for GLIBCXX_3.4.33 against Debian 12's libstdc++. */
export function newestInFamily(defs: readonly string[], like: string): string | undefined {
  const [fam] = versionFamily(like);
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  return defs.filter((d) => versionFamily(d)[0] === fam).sort((a, b) => cmp(versionFamily(a)[1], versionFamily(b)[1])).at(-1);
}
