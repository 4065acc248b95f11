// Builders of hostile packages, at test time, in the real formats (.conda, .tar.bz2, wheel, .deb, zip) and damaged variants.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import {
  buildCondaPackage,
  buildWheel,
  bzip2Compress,
  tarBuffer,
  wheelDistName,
  zipBuffer,
  type ArchiveEntry,
} from '../support/packages.js';

export type HostileFormat = 'conda' | 'tar.bz2' | 'wheel' | 'deb';

export interface Identity {
  name: string;
  version: string;
  /** conda build string (keeps the served file name when it replaces a fixture). */
  build?: string;
  buildNumber?: number;
  /** wheel tag */
  tag?: string;
  /** conda: payload files info/paths.json marks with a prefix placeholder. */
  placeholders?: Record<string, { placeholder: string; mode: 'text' | 'binary' }>;
}

const S_IFLNK = 0o120000;

/** Payload paths are prefix paths (lib/..., include/...); each format places them where its source maps them from. */
export async function buildHostile(format: HostileFormat, payload: ArchiveEntry[], id: Identity): Promise<{ filename: string; bytes: Buffer }> {
  if (format === 'conda' || format === 'tar.bz2') {
    const b = await buildCondaPackage(
      { name: id.name, version: id.version, build: id.build ?? 'h0_0', buildNumber: id.buildNumber ?? 0, subdir: 'linux-64', payload, ...(id.placeholders ? { placeholders: id.placeholders } : {}) },
      format,
    );
    return { filename: b.filename, bytes: b.bytes };
  }
  if (format === 'wheel') {
    const dist = `${wheelDistName(id.name)}-${id.version}`;
    const b = await buildWheel({
      name: id.name,
      version: id.version,
      tag: id.tag ?? 'py2.py3-none-manylinux_2_28_x86_64',
      summary: 'xpu-setup hostile test package',
      files: payload.map((e) =>
        e.type === 'file'
          ? { path: `${dist}.data/data/${e.path}`, data: e.data, mode: e.mode ?? 0o644 }
          : { path: `${dist}.data/data/${e.path}`, data: Buffer.from(e.target), mode: S_IFLNK | 0o777 },
      ),
    });
    return { filename: b.filename, bytes: b.bytes };
  }
  return { filename: `${id.name}_${id.version}_amd64.deb`, bytes: await debBuffer(id, payload.map(debPath)) };
}

/** Where the apt source maps prefix paths from. */
function debPath(e: ArchiveEntry): ArchiveEntry {
  const p = e.path.startsWith('include/') ? `usr/${e.path}` : e.path.replace(/^lib\//, 'usr/lib/x86_64-linux-gnu/');
  return { ...e, path: `./${p}` };
}

/** A .deb as dpkg builds it: an ar archive of debian-binary, control.tar.gz and data.tar.gz (entries written as given). */
export async function debBuffer(id: Identity, data: ArchiveEntry[]): Promise<Buffer> {
  return debWithData(id, zlib.gzipSync(tarBuffer(data)));
}

/**
 * Two links that each read as inside, and resolve outside once both exist: `lib/a/b/up` leads to `lib`, and
 * `lib/esc` climbs two levels through it into `<root>/../<outsideName>`. With `writeThrough`, a file is then
 * written under `lib/esc/`, i.e. into that outside directory.
 */
export function symlinkChain(outsideName: string, writeThrough: boolean, linksFirst: 'esc' | 'up' = 'up'): ArchiveEntry[] {
  const up: ArchiveEntry = { path: 'lib/a/b/up', type: 'symlink', target: '../..' };
  const esc: ArchiveEntry = { path: 'lib/esc', type: 'symlink', target: `a/b/up/../../${outsideName}` };
  return [
    { path: 'include/level_zero/ze_api.h', type: 'file', data: Buffer.from('/* hostile */\n') },
    ...(linksFirst === 'up' ? [up, esc] : [esc, up]),
    ...(writeThrough ? [{ path: 'lib/esc/keep.txt', type: 'file' as const, data: Buffer.from('overwritten by a hostile package\n') }] : []),
  ];
}

// --- damaged zips ------------------------------------------------------------------------------------------

/** Replaces every copy of the member's CRC (local header and central directory) with a wrong one. */
export async function zipWithWrongCrc(name: string, data: Buffer): Promise<Buffer> {
  const zip = await zipBuffer([{ path: name, data }], false);
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(zlib.crc32(data) >>> 0);
  const bad = Buffer.alloc(4);
  bad.writeUInt32LE((zlib.crc32(data) ^ 0x5a5a5a5a) >>> 0);
  let at = zip.indexOf(crc);
  let n = 0;
  while (at >= 0) {
    bad.copy(zip, at);
    n++;
    at = zip.indexOf(crc, at + 4);
  }
  if (n < 2) throw new Error('CRC not found in both headers');
  return zip;
}

/** A deflated member whose compressed bytes are damaged in the middle. */
export async function zipWithCorruptDeflate(name: string, data: Buffer): Promise<Buffer> {
  const zip = await zipBuffer([{ path: name, data }], true);
  const start = 30 + Buffer.byteLength(name) + zip.readUInt16LE(28);
  const size = zip.readUInt32LE(18);
  for (let i = start + (size >> 2); i < start + (size >> 2) + 24; i++) zip[i] = zip[i]! ^ 0xa5;
  return zip;
}

/** The member's compression method (and, with `encrypted`, its encryption flag) rewritten in both headers. */
export async function zipWithMethod(name: string, data: Buffer, method: number, encrypted = false): Promise<Buffer> {
  const zip = await zipBuffer([{ path: name, data }], false);
  const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  for (const [flags, at] of [[6, 8], [cd + 8, cd + 10]] as const) {
    zip.writeUInt16LE(method, at);
    if (encrypted) zip.writeUInt16LE(zip.readUInt16LE(flags) | 1, flags);
  }
  return zip;
}

/** The central directory says the member is smaller than it is. */
export async function zipWithUnderstatedSize(name: string, data: Buffer): Promise<Buffer> {
  const zip = await zipBuffer([{ path: name, data }], true);
  const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zip.writeUInt32LE(Math.max(1, data.length >> 3), cd + 24);
  return zip;
}

/** A tar (bzip2) whose last member's header claims more bytes than the archive holds. */
export async function tarBz2WithOverstatedSize(entries: ArchiveEntry[], extra = 1 << 20): Promise<Buffer> {
  const tar = tarBuffer(entries);
  // The last header: walk the headers by their sizes.
  let off = 0;
  let last = 0;
  while (off + 512 <= tar.length && tar[off] !== 0) {
    last = off;
    const size = parseInt(tar.toString('ascii', off + 124, off + 135), 8) || 0;
    off += 512 + Math.ceil(size / 512) * 512;
  }
  const size = parseInt(tar.toString('ascii', last + 124, last + 135), 8) || 0;
  tar.write((size + extra).toString(8).padStart(11, '0') + '\0', last + 124, 'ascii');
  tar.fill(' ', last + 148, last + 156);
  let sum = 0;
  for (let i = last; i < last + 512; i++) sum += tar[i]!;
  tar.write(sum.toString(8).padStart(6, '0') + '\0 ', last + 148, 'ascii');
  // Cut the archive right after that member's (real) data: no end-of-archive blocks follow.
  return bzip2Compress(tar.subarray(0, last + 512 + Math.ceil(size / 512) * 512));
}

// --- damaging one member of a real zip (wheels) -------------------------------------------------------------

/** Offsets of a member's local header data and its central directory entry. */
function locate(zip: Buffer, name: string): { dataStart: number; compressedSize: number; cd: number } {
  const n = Buffer.from(name);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(eocd + 16);
  while (at >= 0) {
    const len = zip.readUInt16LE(at + 28);
    if (zip.subarray(at + 46, at + 46 + len).equals(n)) break;
    at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 46);
  }
  if (at < 0) throw new Error(`member ${name} not in zip`);
  const local = zip.readUInt32LE(at + 42);
  const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  return { dataStart, compressedSize: zip.readUInt32LE(at + 20), cd: at };
}

export function damageZipMember(zip: Buffer, name: string, how: 'crc' | 'deflate' | 'understate'): Buffer {
  const out = Buffer.from(zip);
  const m = locate(out, name);
  const local = out.readUInt32LE(m.cd + 42);
  if (how === 'crc') {
    const bad = (out.readUInt32LE(m.cd + 16) ^ 0x5a5a5a5a) >>> 0;
    out.writeUInt32LE(bad, m.cd + 16);
    out.writeUInt32LE(bad, local + 14);
  } else if (how === 'deflate') {
    const from = m.dataStart + (m.compressedSize >> 2);
    for (let i = from; i < Math.min(from + 24, m.dataStart + m.compressedSize); i++) out[i] = out[i]! ^ 0xa5;
  } else {
    out.writeUInt32LE(Math.max(1, out.readUInt32LE(m.cd + 24) >> 3), m.cd + 24);
  }
  return out;
}

// --- libraries whose needs lead elsewhere -------------------------------------------------------------------

/**
 * A shared library (soname `soname`) whose one DT_NEEDED is `needed`, taken as it is (a name holding `/`, a file that
 * is not a library), with RUNPATH `runpath` when given: linked against a stand-in of a name as long, whose name is then
 * replaced in the string table (a linker refuses to write such a name itself).
 */
export async function libraryNeeding(needed: string, opts: { soname?: string; runpath?: string } = {}): Promise<Buffer> {
  if (needed.length < 7) throw new Error('a needed name of at least 7 bytes');
  const standIn = `lib${'q'.repeat(needed.length - 6)}.so`;
  const soname = opts.soname ?? 'libhostile.so.1';
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-needs-'));
  try {
    const cc = (args: string[]) => promisify(execFile)(process.env.CC || 'cc', args, { cwd: dir });
    await fs.writeFile(path.join(dir, 'q.c'), 'int q_stand_in(void) { return 0; }\n');
    await fs.writeFile(path.join(dir, 'h.c'), 'int hostile(void) { return 1; }\n');
    await cc(['-shared', '-fPIC', `-Wl,-soname,${standIn}`, '-o', standIn, 'q.c']);
    const rpath = opts.runpath ? [`-Wl,-rpath,${opts.runpath}`, '-Wl,--enable-new-dtags'] : [];
    await cc(['-shared', '-fPIC', `-Wl,-soname,${soname}`, '-o', soname, 'h.c', '-L.', '-Wl,--no-as-needed', `-l:${standIn}`, ...rpath]);
    const bytes = await fs.readFile(path.join(dir, soname));
    const at = bytes.indexOf(Buffer.from(`${standIn}\0`));
    if (at < 0 || bytes.indexOf(Buffer.from(`${standIn}\0`), at + 1) >= 0) throw new Error('the stand-in name is not in the string table once');
    bytes.write(needed, at, 'latin1');
    return bytes;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * A shared library calling `count` functions of names `zzsym<n>` (none defined anywhere); with `runTogether`, the NUL
 * after each name in the string table is overwritten, so each name runs on through all the names after it.
 */
export async function libraryCalling(count: number, opts: { runTogether?: boolean; nameLength?: number } = {}): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-calls-'));
  try {
    const name = (i: number) => `zzsym${String(i).padStart(opts.nameLength ?? 6, '0')}`;
    const names = Array.from({ length: count }, (_, i) => name(i));
    const src = `${names.map((n) => `extern int ${n}(void);`).join('\n')}\nint hostile(void) { return 0${names.map((n) => ` + ${n}()`).join('')}; }\n`;
    await fs.writeFile(path.join(dir, 'c.c'), src);
    await promisify(execFile)(process.env.CC || 'cc', ['-shared', '-fPIC', '-O0', '-Wl,-soname,libcalls.so.1', '-o', 'libcalls.so.1', 'c.c'], { cwd: dir, maxBuffer: 1 << 26 });
    const bytes = await fs.readFile(path.join(dir, 'libcalls.so.1'));
    if (opts.runTogether) {
      for (const n of names) {
        const at = bytes.indexOf(Buffer.from(`${n}\0`));
        if (at >= 0) bytes[at + n.length] = 0x78;
      }
    }
    return bytes;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

// --- a private apt repository --------------------------------------------------------------------------------

/**
 * A private apt configuration (its state, cache and sources under `dir`) whose one source is a flat file: repository
 * holding `packages` (a Packages file) and `debs` (file name -> bytes), updated as `apt-get update` does on a machine.
 * Returns the configuration file, for APT_CONFIG.
 */
export async function aptRepository(dir: string, packages: string, debs: Record<string, Buffer> = {}): Promise<string> {
  for (const d of ['etc/apt/apt.conf.d', 'etc/apt/sources.list.d', 'etc/apt/preferences.d', 'state/lists/partial', 'cache/archives/partial', 'repo']) await fs.mkdir(path.join(dir, d), { recursive: true });
  await fs.writeFile(path.join(dir, 'etc/apt/sources.list'), `deb [trusted=yes allow-insecure=yes] file:${dir}/repo ./\n`);
  await fs.writeFile(path.join(dir, 'repo/Packages'), packages);
  for (const [name, bytes] of Object.entries(debs)) await fs.writeFile(path.join(dir, 'repo', name), bytes);
  await fs.writeFile(path.join(dir, 'state/status'), '');
  const conf = path.join(dir, 'apt.conf');
  await fs.writeFile(conf, `Dir::State "${dir}/state";\nDir::State::status "${dir}/state/status";\nDir::Cache "${dir}/cache";\nDir::Etc "${dir}/etc/apt";\n`);
  await promisify(execFile)('apt-get', ['update', '-o', 'Debug::NoLocking=1'], { env: { ...process.env, APT_CONFIG: conf } });
  return conf;
}

/** A Packages stanza as dpkg-scanpackages writes it: a package's control fields, then where and what its file is. */
export function packagesStanza(control: string, file: string, bytes: Buffer): string {
  const sha = createHash('sha256').update(bytes).digest('hex');
  return `${control.trimEnd()}\nFilename: ./${file}\nSize: ${bytes.length}\nSHA256: ${sha}\n\n`;
}

/** A Packages stanza for a .deb at the repository's top, with its true size and sha256. */
export function debStanza(pkg: string, version: string, file: string, bytes: Buffer, depends = 'libc6 (>= 2.34)'): string {
  return packagesStanza(`Package: ${pkg}\nSource: level-zero\nVersion: ${version}\nArchitecture: amd64\nDepends: ${depends}\nDescription: oneAPI Level Zero`, file, bytes);
}

/** A tar header block for a hard link `name` -> `target` (ustar, type 1), which the test's tar writer does not make. */
export function hardLinkHeader(name: string, target: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'latin1');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write('00000000000\0', 124, 'latin1');
  h.write('00000000000\0', 136, 'latin1');
  h.fill(' ', 148, 156);
  h.write('1', 156, 'latin1');
  h.write(target, 157, 100, 'latin1');
  h.write('ustar\0' + '00', 257, 'latin1');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
  return h;
}

/** A .deb whose data.tar.gz is given as it is (gzip members may be concatenated: dpkg-deb reads them as one stream). */
export async function debWithData(id: Identity, dataTarGz: Buffer): Promise<Buffer> {
  const control = `Package: ${id.name}\nVersion: ${id.version}\nArchitecture: amd64\nMaintainer: xpu-setup tests <tests@invalid>\nDescription: xpu-setup hostile test package\n`;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-deb-'));
  try {
    await fs.writeFile(path.join(dir, 'debian-binary'), '2.0\n');
    await fs.writeFile(path.join(dir, 'control.tar.gz'), zlib.gzipSync(tarBuffer([{ path: './control', type: 'file', data: Buffer.from(control) }])));
    await fs.writeFile(path.join(dir, 'data.tar.gz'), dataTarGz);
    const out = path.join(dir, 'out.deb');
    await promisify(execFile)('ar', ['rc', out, 'debian-binary', 'control.tar.gz', 'data.tar.gz'], { cwd: dir });
    return await fs.readFile(out);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
