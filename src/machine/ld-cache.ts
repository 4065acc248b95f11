// Reads glibc's /etc/ld.so.cache itself (old, new and combined formats), giving the rows `ldconfig -p` would print.

/** One library the cache lists, as `ldconfig -p` prints it. */
export interface LdconfigEntry {
  name: string;
  /** The flags in parentheses, e.g. "libc6,x86-64". */
  flags: string;
  /** True for 64-bit x86 entries (the only ones an x64 process can load). */
  x64: boolean;
  path: string;
}

const OLD_MAGIC = 'ld.so-1.7.0';
const NEW_MAGIC = 'glibc-ld.so.cache';
const NEW_VERSION = '1.1';
/** Old header: magic + nlibs; old entry: flags, key, value. */
const OLD_HEADER = 16;
const OLD_ENTRY = 12;
/** New header: magic, version, nlibs, len_strings, flags + padding, extension_offset, 3 unused words. */
const NEW_HEADER = 48;
/** New entry: flags, key, value, osversion, hwcap (u64). */
const NEW_ENTRY = 24;
const EXTENSION_MAGIC = 0xeaa42174;
const EXTENSION_TAG_GLIBC_HWCAPS = 1;
/** An entry's hwcap with these upper 32 bits (ISA level aside) names a glibc-hwcaps subdirectory by index instead of a bit mask. */
const HWCAP_EXTENSION_HIGH = 0x40000000;

/** How `ldconfig -p` names the type byte of an entry's flags. */
const TYPE_NAMES: Record<number, string> = { 0x00: 'libc4', 0x01: 'ELF', 0x02: 'libc5', 0x03: 'libc6' };

/** How `ldconfig -p` names the ABI byte of an entry's flags (glibc's FLAG_*_LIB64 and friends). */
const ABI_NAMES: Record<number, string> = {
  0x01: ',64bit',
  0x02: ',IA-64',
  0x03: ',x86-64',
  0x04: ',64bit',
  0x05: ',64bit',
  0x06: ',N32',
  0x07: ',64bit',
  0x08: ',x32',
  0x09: ',hard-float',
  0x0a: ',AArch64',
  0x0b: ',soft-float',
  0x0c: ',nan2008',
  0x0d: ',N32,nan2008',
  0x0e: ',64bit,nan2008',
  0x0f: ',soft-float',
  0x10: ',double-float',
  0x11: ',soft-float',
  0x12: ',double-float',
};

const X8664 = 0x03;

/** The OS byte of an entry's (obsolete) osversion, as `ldconfig -p` names it. */
const OS_NAMES = ['Linux', 'Hurd', 'Solaris', 'FreeBSD', 'kNetBSD', 'Syllable'];

/** The cache's bytes, with a one-byte-per-char view of them for fast string lookups. */
interface Bytes {
  b: Uint8Array;
  text: string;
  view: DataView;
}

function bytesOf(b: Uint8Array): Bytes {
  return { b, text: Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'), view: new DataView(b.buffer, b.byteOffset, b.byteLength) };
}

/** The NUL-terminated string at `at` (UTF-8), or undefined when it runs off the end (a damaged cache). */
function cString(c: Bytes, at: number): string | undefined {
  if (at < 0 || at >= c.text.length) return undefined;
  const end = c.text.indexOf('\0', at);
  if (end < 0) return undefined;
  const s = c.text.slice(at, end);
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(c.b.buffer, c.b.byteOffset + at, end - at).toString('utf8') : s;
}

/** Pure: the flags text inside the parentheses of an `ldconfig -p` row. */
export function ldFlagsText(flags: number, hwcap: bigint, hwcapName: string | undefined, osversion = 0): string {
  const type = TYPE_NAMES[flags & 0xff] ?? 'unknown';
  const abiByte = (flags >> 8) & 0xff;
  const abi = abiByte === 0 ? '' : ABI_NAMES[abiByte] ?? `,${flags & 0xff00}`;
  let out = type + abi;
  if (hwcapName !== undefined) out += `, hwcap: "${hwcapName}"`;
  else if (hwcap !== 0n) out += `, hwcap: 0x${hwcap.toString(16).padStart(16, '0')}`;
  if (osversion !== 0) {
    const os = OS_NAMES[osversion >>> 24] ?? 'Unknown OS';
    out += `, OS ABI: ${os} ${(osversion >>> 16) & 0xff}.${(osversion >>> 8) & 0xff}.${osversion & 0xff}`;
  }
  return out;
}

/**
 * The glibc-hwcaps subdirectory names of a new-format cache, by index (empty when it has none). The extension and
 * these names are addressed from the start of the file, where the entries' own strings count from the new header.
 */
function hwcapNames(c: Bytes, extOffset: number): string[] {
  const { b, view } = c;
  const at = extOffset;
  if (extOffset === 0 || at + 8 > b.length || view.getUint32(at, true) !== EXTENSION_MAGIC) return [];
  const count = view.getUint32(at + 4, true);
  for (let i = 0; i < count; i++) {
    const s = at + 8 + i * 16;
    if (s + 16 > b.length) return [];
    if (view.getUint32(s, true) !== EXTENSION_TAG_GLIBC_HWCAPS) continue;
    const offset = view.getUint32(s + 8, true);
    const size = view.getUint32(s + 12, true);
    const names: string[] = [];
    for (let j = 0; j + 4 <= size; j += 4) names.push(cString(c, view.getUint32(offset + j, true)) ?? '');
    return names;
  }
  return [];
}

function entry(name: string | undefined, path: string | undefined, flags: number, hwcap: bigint, hwcapName?: string, osversion = 0): LdconfigEntry | undefined {
  if (name === undefined || path === undefined) return undefined;
  return { name, flags: ldFlagsText(flags, hwcap, hwcapName, osversion), x64: ((flags >> 8) & 0xff) === X8664, path };
}

function parseNew(c: Bytes, base: number): LdconfigEntry[] | undefined {
  const { b, view } = c;
  if (base + NEW_HEADER > b.length || c.text.slice(base, base + 17) !== NEW_MAGIC || c.text.slice(base + 17, base + 20) !== NEW_VERSION) return undefined;
  // Byte 28 records the writer's endianness: 0 unknown (taken as ours), 2 little, 3 big; only little-endian is read.
  if (view.getUint8(base + 28) === 3) return undefined;
  const nlibs = view.getUint32(base + 20, true);
  if (base + NEW_HEADER + nlibs * NEW_ENTRY > b.length) return undefined;
  const names = hwcapNames(c, view.getUint32(base + 32, true));
  const out: LdconfigEntry[] = [];
  for (let i = 0; i < nlibs; i++) {
    const e = base + NEW_HEADER + i * NEW_ENTRY;
    const flags = view.getInt32(e, true);
    const hwcap = view.getBigUint64(e + 16, true);
    // The upper word also carries an ISA level (low 10 bits); an index with no name prints as the raw value.
    const byIndex = (Number(hwcap >> 32n) & ~0x3ff) === HWCAP_EXTENSION_HIGH ? names[Number(hwcap & 0xffffffffn)] : undefined;
    const key = cString(c, base + view.getUint32(e + 4, true));
    const value = cString(c, base + view.getUint32(e + 8, true));
    const row = entry(key, value, flags, hwcap, byIndex, view.getUint32(e + 12, true));
    if (!row) return undefined;
    out.push(row);
  }
  return out;
}

/**
 * Pure: the rows of an ld.so.cache in file order, as `ldconfig -p` lists them; undefined when the bytes are not a
 * cache this reader knows (the caller then asks ldconfig). A combined file (old format, then the new one aligned to
 * 8 bytes) is read through its new part, as glibc does.
 */
export function parseLdCache(bytes: Uint8Array): LdconfigEntry[] | undefined {
  const c = bytesOf(bytes);
  if (bytes.length >= NEW_HEADER && c.text.startsWith(NEW_MAGIC)) return parseNew(c, 0);
  if (bytes.length < OLD_HEADER || !c.text.startsWith(OLD_MAGIC)) return undefined;
  const view = c.view;
  const nlibs = view.getUint32(12, true);
  const entriesEnd = OLD_HEADER + nlibs * OLD_ENTRY;
  if (entriesEnd > bytes.length) return undefined;
  const newBase = (entriesEnd + 7) & ~7;
  if (newBase + NEW_HEADER <= bytes.length && c.text.startsWith(NEW_MAGIC, newBase)) return parseNew(c, newBase);
  // Old format only: string offsets count from the end of the entry table.
  const out: LdconfigEntry[] = [];
  for (let i = 0; i < nlibs; i++) {
    const e = OLD_HEADER + i * OLD_ENTRY;
    const row = entry(cString(c, entriesEnd + view.getUint32(e + 4, true)), cString(c, entriesEnd + view.getUint32(e + 8, true)), view.getInt32(e, true), 0n);
    if (!row) return undefined;
    out.push(row);
  }
  return out;
}
