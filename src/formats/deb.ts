// Debian packages: an `ar` archive whose data member (data.tar, .gz, .zst or .bz2) is read in this process and streams
// into the tar reader; data.tar.xz, which this project has no decoder for, goes through dpkg-deb.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { XpuError } from '../base/errors.js';
import { bzip2Decompressor, gzipDecompressor, zstdDecompressor } from './decompress.js';
import type { EntryVisitor } from './entry.js';
import { readTar } from './tar.js';

/** An `ar` member: its name, and where its bytes start in the package and how many there are. */
interface ArMember {
  name: string;
  start: number;
  size: number;
}

const AR_MAGIC = '!<arch>\n';
const AR_HEADER = 60;

/** Pure: the member whose 60-byte header is `h` at `at`, or undefined when `h` is not an ar member header. */
function arMember(h: Buffer, at: number): ArMember | undefined {
  if (h.length < AR_HEADER || h.toString('latin1', 58, 60) !== '`\n') return undefined;
  const size = Number.parseInt(h.toString('latin1', 48, 58).trim(), 10);
  if (!Number.isSafeInteger(size) || size < 0) return undefined;
  return { name: h.toString('latin1', 0, 16).trim().replace(/\/$/, ''), start: at + AR_HEADER, size };
}

function notDeb(file: string, why: string): XpuError {
  return new XpuError('BAD_ARCHIVE', `${file} is not a readable Debian package: ${why}`, {
    details: { file },
    hints: ['the download may be damaged: remove it from the cache and run again, or report the package to the index owner'],
  });
}

/** The package's data member, from its `ar` headers (debian-binary 2.x first, as dpkg-deb asks). */
async function dataMember(file: string, name: string): Promise<ArMember> {
  const fh = await fs.open(file, 'r');
  try {
    const { size: fileSize } = await fh.stat();
    const head = Buffer.alloc(8 + AR_HEADER + 4);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    if (bytesRead < head.length || head.toString('latin1', 0, 8) !== AR_MAGIC) throw notDeb(name, 'it does not start as an ar archive');
    const first = arMember(head.subarray(8), 8);
    if (first?.name !== 'debian-binary' || !/^2\.\d+$/.test(head.toString('latin1', 8 + AR_HEADER, 8 + AR_HEADER + 4).trim())) {
      throw notDeb(name, 'its first member is not debian-binary of format 2.x');
    }
    for (let at = first.start + first.size + (first.size % 2); at + AR_HEADER <= fileSize; ) {
      const h = Buffer.alloc(AR_HEADER);
      await fh.read(h, 0, AR_HEADER, at);
      const m = arMember(h, at);
      if (!m) throw notDeb(name, `its ar member header at byte ${at} is damaged`);
      // A data member cut short is read as far as it goes: the tar reader names the member it ends in.
      if (m.name.startsWith('data.tar')) return m;
      if (m.start + m.size > fileSize) throw notDeb(name, `its ${m.name} member is cut short`);
      at = m.start + m.size + (m.size % 2);
    }
    throw notDeb(name, 'it has no data.tar member');
  } finally {
    await fh.close();
  }
}

/** The data members this process reads itself, each with its decoder (none for a plain tar); xz is dpkg-deb's. */
const IN_PROCESS = new Map<string, () => Promise<Duplex | undefined>>([
  ['data.tar', async () => undefined],
  ['data.tar.gz', async () => gzipDecompressor()],
  ['data.tar.zst', () => zstdDecompressor()],
  ['data.tar.bz2', () => bzip2Decompressor()],
]);

export async function readDeb(file: string, visit: EntryVisitor, name = file): Promise<void> {
  const data = await dataMember(file, name);
  const decoder = IN_PROCESS.get(data.name);
  if (!decoder) return readDebThroughDpkg(file, visit, name);
  const body = createReadStream(file, { start: data.start, end: data.start + data.size - 1, highWaterMark: 1 << 20 });
  await readTar(body, name, visit, await decoder());
}

async function readDebThroughDpkg(file: string, visit: EntryVisitor, name: string): Promise<void> {
  // The tar parser is loaded before dpkg-deb starts, so the reader attaches at once: output nobody reads yet when a
  // child exits is thrown away, and a small package's dpkg-deb can exit while the parser is still loading.
  await import('tar');
  const child = spawn('dpkg-deb', ['--fsys-tarfile', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', (e) =>
      reject(new XpuError('BAD_ARCHIVE', `cannot run dpkg-deb to read ${file}`, {
        cause: e,
        details: { file },
        hints: ['a package whose data is xz-compressed is read through dpkg-deb (Debian and Ubuntu have it): install dpkg, or choose another source with --source'],
      })),
    );
    child.on('close', (code) => resolve(code ?? -1));
  });
  const reading = readTar(child.stdout, name, visit);
  const [code] = await Promise.all([exited, reading.catch(async (e) => { child.kill(); throw e; })]);
  if (code !== 0) {
    throw new XpuError('BAD_ARCHIVE', `dpkg-deb could not read ${name}: ${stderr.trim()}`, { details: { file, stderr } });
  }
}

/**
 * Pure: the control member of a .deb from the package's first bytes (`!<arch>`, `debian-binary`, then `control.tar*`),
 * or undefined when `head` is not the start of a .deb.
 */
export function debControlMember(head: Buffer): ArMember | undefined {
  if (head.length < 8 || head.toString('latin1', 0, 8) !== AR_MAGIC) return undefined;
  for (let at = 8; at + AR_HEADER <= head.length; ) {
    const m = arMember(head.subarray(at, at + AR_HEADER), at);
    if (!m) return undefined;
    if (m.name.startsWith('control.tar')) return m;
    at = m.start + m.size + (m.size % 2);
  }
  return undefined;
}

/** Pure: the `control` file of an uncompressed control tarball, or undefined when it holds none. */
export function controlFromTar(tar: Buffer): string | undefined {
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
    if (!name) return undefined;
    const size = Number.parseInt(tar.toString('latin1', at + 124, at + 136).replace(/\0.*$/s, '').trim() || '0', 8);
    if (!Number.isSafeInteger(size)) return undefined;
    if (name.replace(/^\.\//, '') === 'control' && tar[at + 156] !== 0x78) return tar.toString('utf8', at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** One alternative of a Depends group: a name, and the relation its version must meet (dpkg's << <= = >= >>). */
export interface AptRelation {
  name: string;
  op?: '<<' | '<=' | '=' | '>=' | '>>';
  version?: string;
}

/** Pure: one Depends entry as its alternatives: `a (>= 1) | b` -> [{a, >=, 1}, {b}]. */
export function parseRelationGroup(entry: string): AptRelation[] {
  return entry.split('|').flatMap((alt): AptRelation[] => {
    const m = /^\s*([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9-]+)?\s*(?:\(\s*(<<|<=|=|>=|>>|<|>)\s*([^\s)]+)\s*\))?\s*(?:\[.*\])?\s*$/.exec(alt);
    if (!m) return [];
    // dpkg still reads the obsolete `<` and `>` as `<=` and `>=`.
    const op = m[2] === '<' ? '<=' : m[2] === '>' ? '>=' : (m[2] as AptRelation['op']);
    return [op ? { name: m[1]!, op, version: m[3]! } : { name: m[1]! }];
  });
}

/** Pure: the version floor a control file's Depends sets on `pkg` (`libc6 (>= 2.43)` -> `2.43`), as written, if any. */
export function dependsFloor(control: string, pkg: string): string | undefined {
  const depends = /^Depends:(.*(?:\n[ \t].*)*)/m.exec(control)?.[1]?.replace(/\n[ \t]+/g, ' ') ?? '';
  const rel = depends.split(',').flatMap(parseRelationGroup).find((r) => r.name === pkg && r.op === '>=');
  return rel?.version;
}

/** A small xz member (a Debian package's control.tar.xz) through the xz program every Debian and Ubuntu has; undefined without it or past `max` bytes. */
export function unxz(packed: Buffer, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const child = spawn('xz', ['-dc'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > max) child.kill();
      else out.push(b);
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? Buffer.concat(out) : undefined));
    child.stdin.on('error', () => undefined);
    child.stdin.end(packed);
  });
}
