// What an ELF shared library needs at load time: DT_NEEDED, its soname, RUNPATH/RPATH, and symbol version needs and definitions.

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
}

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const DT = { NULL: 0n, NEEDED: 1n, STRTAB: 5n, STRSZ: 10n, SONAME: 14n, RPATH: 15n, RUNPATH: 29n, VERDEF: 0x6ffffffcn, VERDEFNUM: 0x6ffffffdn, VERNEED: 0x6ffffffen, VERNEEDNUM: 0x6fffffffn };

/**
 * Pure: reads the dynamic section of a 64-bit little-endian ELF file (x86-64 and friends) through its program headers,
 * as the dynamic linker does. Undefined when the bytes are not such a file or have no dynamic section; damaged tables
 * end the reading where they become unreadable rather than throwing.
 */
export function readElfNeeds(b: Buffer): ElfNeeds | undefined {
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
  for (let at = dyn.offset; at + 16 <= Math.min(b.length, dyn.offset + dyn.size); at += 16) {
    const tag = b.readBigInt64LE(at);
    if (tag === DT.NULL) break;
    entries.push([tag, b.readBigUInt64LE(at + 8)]);
  }
  const one = (tag: bigint): number | undefined => {
    const e = entries.find(([t]) => t === tag);
    return e ? Number(e[1]) : undefined;
  };
  const strtab = fileOffset(one(DT.STRTAB) ?? -1);
  if (strtab === undefined) return undefined;
  const strsz = one(DT.STRSZ) ?? b.length - strtab;
  const str = (off: number): string => {
    const start = strtab + off;
    if (off < 0 || off >= strsz || start >= b.length) return '';
    const end = b.indexOf(0, start);
    return b.toString('utf8', start, end < 0 ? b.length : end);
  };
  const all = (tag: bigint): string[] => entries.filter(([t]) => t === tag).map(([, v]) => str(Number(v)));
  const paths = (tag: bigint): string[] => all(tag).flatMap((p) => p.split(':')).filter(Boolean);
  const soname = one(DT.SONAME);
  return {
    soname: soname === undefined ? undefined : str(soname),
    needed: all(DT.NEEDED),
    runpath: paths(DT.RUNPATH),
    rpath: paths(DT.RPATH),
    versionNeeds: verneeds(b, fileOffset(one(DT.VERNEED) ?? -1), one(DT.VERNEEDNUM) ?? 0, str),
    versionDefs: verdefs(b, fileOffset(one(DT.VERDEF) ?? -1), one(DT.VERDEFNUM) ?? 0, str),
  };
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
