// What a Windows DLL or EXE imports at load time (the DLLs of its import and delay-load directories, and from each the functions by name or ordinal) and what it exports.
import { XpuError } from '../base/errors.js';

export interface PeImports {
  /** The COFF header's Machine (0x8664 x64, 0xaa64 arm64, 0x14c x86). */
  machine: number;
  dll: boolean;
  /** Loaded with the file: the import directory's DLL names, in table order (`KERNEL32.dll`, `umf.dll`). */
  imports: string[];
  /** Loaded on first call (delay-load): the loader does not need them to load the file, but the calls fail without them. */
  delayImports: string[];
  /** What it takes from each DLL, in the order of `imports` then `delayImports`. */
  importedSymbols: ImportedSymbols[];
  /** What it exports: the names of its export directory and the ordinals that have a function. */
  exports: { names: Set<string>; ordinals: Set<number> };
}

export interface ImportedSymbols {
  dll: string;
  delayed: boolean;
  names: string[];
  ordinals: number[];
}

const DIR_EXPORT = 0;
const DIR_IMPORT = 1;
const DIR_DELAY_IMPORT = 13;
/** No real import table comes near this; a damaged one that never ends stops here. */
const MAX_DESCRIPTORS = 4096;
/** Nor an import name table or an export directory near these. */
const MAX_THUNKS = 1 << 16;
const MAX_EXPORTS = 1 << 20;
/** Functions imported by one file, all its descriptors together (descriptors may share one name table): a real DLL imports a few thousand. */
export const MAX_IMPORTS = 1 << 18;

/**
 * Pure: reads the import and delay-import directories of a PE file (PE32 or PE32+), as the Windows loader does,
 * through the section table. Undefined when the bytes do not start like a PE file (no `MZ`); a file that does but
 * whose headers or tables point outside it is an XpuError `BAD_LIBRARY` naming `file`.
 */
export function readPeImports(b: Buffer, file: string): PeImports | undefined {
  if (b.length < 2 || b.readUInt16LE(0) !== 0x5a4d) return undefined;
  const pe = new PeFile(b, file);
  const symbols: ImportedSymbols[] = [];
  const exports = pe.exports();
  return {
    machine: pe.machineNo,
    dll: (pe.characteristics & 0x2000) !== 0,
    imports: pe.descriptors(DIR_IMPORT, 20, 12, [0, 16], 'import', symbols),
    // Delay-load descriptors (x64 linkers write RVAs, attribute bit 0 set): the DLL name is the second field, the
    // name table the fifth.
    delayImports: pe.descriptors(DIR_DELAY_IMPORT, 32, 4, [16, 12], 'delay-import', symbols),
    importedSymbols: symbols,
    exports,
  };
}

/** The COFF header's Machine from a file's first bytes, undefined when they do not hold a PE file's headers. */
export function peMachine(b: Buffer): number | undefined {
  if (b.length < 0x40 || b.readUInt16LE(0) !== 0x5a4d) return undefined;
  const pe = b.readUInt32LE(0x3c);
  if (pe + 6 > b.length || b.readUInt32LE(pe) !== 0x4550) return undefined;
  return b.readUInt16LE(pe + 4);
}

const MAX_NAME = 260;

/** A PE file's headers and section table, and readers of its tables that refuse what points outside the file. */
class PeFile {
  readonly machineNo: number;
  readonly characteristics: number;
  private readonly plus: boolean;
  private readonly dirCount: number;
  private readonly dirs: number;
  /** Functions imported so far, every name table together. */
  private imported = 0;
  private readonly table: number;
  private readonly secs: { va: number; raw: number; rawSize: number }[];

  constructor(
    private readonly b: Buffer,
    private readonly file: string,
  ) {
    const pe = this.u32(0x3c, 'the PE header offset');
    if (this.u32(pe, 'the PE signature') !== 0x4550) this.bad(`no PE signature at offset 0x${pe.toString(16)}`);
    const coff = pe + 4;
    this.machineNo = this.u16(coff, 'the COFF header');
    const sections = this.u16(coff + 2, 'the section count');
    const optSize = this.u16(coff + 16, 'the optional header size');
    this.characteristics = this.u16(coff + 18, 'the characteristics');
    const opt = coff + 20;
    const magic = this.u16(opt, 'the optional header');
    if (magic !== 0x10b && magic !== 0x20b) this.bad(`unknown optional header magic 0x${magic.toString(16)}`);
    this.plus = magic === 0x20b;
    this.dirCount = this.u32(opt + (this.plus ? 108 : 92), 'the data directory count');
    this.dirs = opt + (this.plus ? 112 : 96);
    this.table = opt + optSize;
    this.secs = Array.from({ length: sections }, (_, i) => {
      const at = this.table + i * 40;
      this.u32(at + 36, `section header ${i + 1} of ${sections}`);
      return { va: b.readUInt32LE(at + 12), raw: b.readUInt32LE(at + 20), rawSize: b.readUInt32LE(at + 16) };
    });
  }

  bad(what: string): never {
    throw new XpuError('BAD_LIBRARY', `${this.file} is not a valid Windows DLL or EXE: ${what}`, {
      details: { file: this.file },
      hints: ['the package that brought it is damaged or not a Windows build: download it again (--refresh), or choose another version or source'],
    });
  }

  // Every offset here is a sum of unsigned fields, so only the end of the file bounds it.
  u16(at: number, what: string): number {
    return at + 2 <= this.b.length ? this.b.readUInt16LE(at) : this.bad(`${what} lies beyond the end of the file (${this.b.length} bytes)`);
  }

  u32(at: number, what: string): number {
    return at + 4 <= this.b.length ? this.b.readUInt32LE(at) : this.bad(`${what} lies beyond the end of the file (${this.b.length} bytes)`);
  }

  /** A data directory's RVA; 0 when the optional header has no such entry. */
  dirRva(i: number): number {
    return i < this.dirCount && this.dirs + i * 8 + 8 <= this.table ? this.u32(this.dirs + i * 8, 'the data directory table') : 0;
  }

  // Only what the file holds counts: a section's memory beyond its raw data is zeros, where no name or table can be.
  offsetOf(rva: number, what: string): number {
    const s = this.secs.find((x) => rva >= x.va && rva - x.va < x.rawSize);
    if (!s) return this.bad(`${what} (RVA 0x${rva.toString(16)}) lies outside every section's data`);
    return rva - s.va + s.raw;
  }

  name(rva: number, what: string): string {
    const at = this.offsetOf(rva, what);
    const end = this.b.subarray(at, at + MAX_NAME + 1).indexOf(0);
    if (end < 0) this.bad(`${what} at RVA 0x${rva.toString(16)} has no end within ${MAX_NAME} bytes`);
    if (end === 0) this.bad(`${what} at RVA 0x${rva.toString(16)} is empty`);
    return this.b.toString('latin1', at, at + end);
  }

  /** An import name table (PE32+: 8-byte entries, PE32: 4): a set top bit means an ordinal, else the RVA of hint + name. */
  thunks(rva: number, label: string): { names: string[]; ordinals: number[] } {
    const out = { names: [] as string[], ordinals: [] as number[] };
    if (!rva) return out;
    const start = this.offsetOf(rva, `the ${label} name table`);
    const size = this.plus ? 8 : 4;
    for (let i = 0; ; i++) {
      if (i >= MAX_THUNKS) this.bad(`the ${label} name table has no end`);
      const at = start + i * size;
      const lo = this.u32(at, `entry ${i + 1} of the ${label} name table`);
      const hi = this.plus ? this.u32(at + 4, `entry ${i + 1} of the ${label} name table`) : 0;
      if (!lo && !hi) return out;
      if (++this.imported > MAX_IMPORTS) this.bad(`imports more than ${MAX_IMPORTS} functions`);
      if ((this.plus ? hi : lo) & 0x80000000) out.ordinals.push(lo & 0xffff);
      else out.names.push(this.name((lo & 0x7fffffff) + 2, `the name of ${label} entry ${i + 1}`));
    }
  }

  /**
   * The DLL names of an import or delay-import directory, in table order; what is taken from each goes to `symbols`.
   * `tableAt`: where in a descriptor the name table's RVA is, and the fallback (the address table, unbound).
   */
  descriptors(index: number, entrySize: number, nameAt: number, tableAt: [number, number], label: string, symbols: ImportedSymbols[]): string[] {
    const rva = this.dirRva(index);
    if (!rva) return [];
    const start = this.offsetOf(rva, `the ${label} directory`);
    const out: string[] = [];
    for (let i = 0; ; i++) {
      if (i >= MAX_DESCRIPTORS) this.bad(`the ${label} directory has no end`);
      const at = start + i * entrySize;
      this.u32(at + entrySize - 4, `entry ${i + 1} of the ${label} directory`);
      if (this.b.subarray(at, at + entrySize).every((x) => x === 0)) return out;
      const dll = this.name(this.b.readUInt32LE(at + nameAt), `the DLL name of ${label} entry ${i + 1}`);
      out.push(dll);
      const table = this.b.readUInt32LE(at + tableAt[0]) || this.b.readUInt32LE(at + tableAt[1]);
      symbols.push({ dll, delayed: index === DIR_DELAY_IMPORT, ...this.thunks(table, `${dll} ${label}`) });
    }
  }

  /** The export directory's names and the ordinals that have a function. */
  exports(): PeImports['exports'] {
    const exports = { names: new Set<string>(), ordinals: new Set<number>() };
    const exportRva = this.dirRva(DIR_EXPORT);
    if (!exportRva) return exports;
    const e = this.offsetOf(exportRva, 'the export directory');
    const base = this.u32(e + 16, 'the export directory');
    const functions = this.u32(e + 20, 'the export directory');
    const names = this.u32(e + 24, 'the export directory');
    if (functions > MAX_EXPORTS || names > MAX_EXPORTS) this.bad(`the export directory lists ${Math.max(functions, names)} entries`);
    const fnAt = functions ? this.offsetOf(this.u32(e + 28, 'the export directory'), 'the export address table') : 0;
    for (let i = 0; i < functions; i++) if (this.u32(fnAt + i * 4, 'the export address table')) exports.ordinals.add(base + i);
    const namesAt = names ? this.offsetOf(this.u32(e + 32, 'the export directory'), 'the export name table') : 0;
    for (let i = 0; i < names; i++) exports.names.add(this.name(this.u32(namesAt + i * 4, 'the export name table'), `export name ${i + 1}`));
    return exports;
  }
}
