// Zip reading front to back, while the archive is still arriving: each member from its local header, then the central
// directory at the end must describe exactly the members read, in the same order, or the archive is read again from
// the finished file by the central-directory reader (zip.ts).
import yauzl from 'yauzl';
import { PieceStream } from '../base/pieces.js';
import { NotStreamable, type ArchiveEntry, type ByteSource, type EntryVisitor, type ModeFix } from './entry.js';
import { safePath } from './safe-path.js';
import { fileMode, isLinkMode, memberError, memberPieces, modeOf, unreadable } from './zip.js';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** A central directory larger than this is not a package's. */
const MAX_DIRECTORY = 64 * 1024 * 1024;

interface Extra {
  id: number;
  data: Buffer;
}

function extraFields(buf: Buffer): Extra[] {
  const out: Extra[] = [];
  for (let i = 0; i + 4 <= buf.length; ) {
    const id = buf.readUInt16LE(i);
    const size = buf.readUInt16LE(i + 2);
    out.push({ id, data: buf.subarray(i + 4, i + 4 + size) });
    i += 4 + size;
  }
  return out;
}

/** What a local header says, kept to be compared with the central directory's record of the same member. */
interface Local {
  offset: number;
  /** Bytes of the local header: fixed part, name and extra field. */
  headerLength: number;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  rawName: Buffer;
  name: string;
  /** The path as yielded (after safePath), undefined for members skipped or directories. */
  yielded?: string;
}

/**
 * One member's data: inflated when deflated, its size and CRC-32 checked at the end. Read as pieces (staging does),
 * it goes from the file to the reader through buffers used again for every piece.
 */
function memberBody(source: ByteSource, label: string, l: Local): PieceStream {
  return new PieceStream(memberPieces(source.pieces(l.compressedSize), l.method, { size: l.size, crc32: l.crc, declaredBy: 'header' }, (why, cause) => memberError(label, l.name, why, cause)));
}

/** Reads a local header at the source's position; undefined when the central directory starts there instead. */
async function localHeader(source: ByteSource, offset: number): Promise<Local | undefined> {
  const sig = await source.read(4);
  if (sig.length < 4) throw new NotStreamable('the archive ends before its central directory');
  const kind = sig.readUInt32LE(0);
  if (kind === CENTRAL) return undefined;
  if (kind !== LOCAL) throw new NotStreamable(`unexpected signature ${kind.toString(16)} at byte ${offset}`);
  const h = await source.read(26);
  if (h.length < 26) throw new NotStreamable('the archive ends inside a local header');
  const flags = h.readUInt16LE(2);
  const nameLength = h.readUInt16LE(22);
  const extraLength = h.readUInt16LE(24);
  const tail = await source.read(nameLength + extraLength);
  if (tail.length < nameLength + extraLength) throw new NotStreamable('the archive ends inside a local header');
  const rawName = tail.subarray(0, nameLength);
  const l: Local = {
    offset,
    headerLength: 30 + nameLength + extraLength,
    flags,
    method: h.readUInt16LE(4),
    crc: h.readUInt32LE(10),
    compressedSize: h.readUInt32LE(14),
    size: h.readUInt32LE(18),
    rawName: Buffer.from(rawName),
    name: yauzl.getFileNameLowLevel(flags, rawName, extraFields(tail.subarray(nameLength)), false),
  };
  // Sizes that follow the data (bit 3) or live in a zip64 field cannot be known before the member is read.
  if (flags & 0x8) throw new NotStreamable(`${l.name} keeps its sizes after its data`);
  if (l.compressedSize === 0xffffffff || l.size === 0xffffffff) throw new NotStreamable(`${l.name} has zip64 sizes`);
  return l;
}

/**
 * The central directory and end record, read whole once the members are behind: every record must match the
 * member read at its offset, in order. Returns each member's Unix mode.
 */
function checkDirectory(rest: Buffer, directoryAt: number, locals: Local[]): number[] {
  const endAt = rest.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endAt < 0 || endAt + 22 > rest.length) throw new NotStreamable('no end-of-directory record');
  const count = rest.readUInt16LE(endAt + 10);
  const size = rest.readUInt32LE(endAt + 12);
  const offset = rest.readUInt32LE(endAt + 16);
  if (rest.readUInt32LE(endAt) !== END || count === 0xffff || offset === 0xffffffff) throw new NotStreamable('zip64 end record');
  if (offset !== directoryAt || size !== endAt || count !== locals.length) throw new NotStreamable('the central directory does not list exactly the members read');
  const modes: number[] = [];
  let p = 0;
  for (const l of locals) {
    if (p + 46 > endAt || rest.readUInt32LE(p) !== CENTRAL) throw new NotStreamable('a central directory record is cut short');
    const flags = rest.readUInt16LE(p + 8);
    const nameLength = rest.readUInt16LE(p + 28);
    const extraLength = rest.readUInt16LE(p + 30);
    const commentLength = rest.readUInt16LE(p + 32);
    const rawName = rest.subarray(p + 46, p + 46 + nameLength);
    const name = yauzl.getFileNameLowLevel(flags, rawName, extraFields(rest.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength)), false);
    const same =
      flags === l.flags &&
      rest.readUInt16LE(p + 10) === l.method &&
      rest.readUInt32LE(p + 16) === l.crc &&
      rest.readUInt32LE(p + 20) === l.compressedSize &&
      rest.readUInt32LE(p + 24) === l.size &&
      rest.readUInt32LE(p + 42) === l.offset &&
      rawName.equals(l.rawName) &&
      name === l.name;
    if (!same) throw new NotStreamable(`the central directory's record of ${l.name} differs from its local header`);
    modes.push(modeOf(rest.readUInt32LE(p + 38)));
    p += 46 + nameLength + extraLength + commentLength;
  }
  if (p !== endAt) throw new NotStreamable('the central directory holds more than its records');
  return modes;
}

/**
 * Reads a zip front to back, yielding members as zip.ts does (same names, same checks), except that a member's
 * mode is only known from the central directory at the end: files are yielded with 0644 and the modes that differ
 * come back as fixes. Throws NotStreamable when the archive needs the central-directory reader.
 */
export async function readZipLive(source: ByteSource, label: string, visit: EntryVisitor, filter?: (name: string) => boolean): Promise<ModeFix[]> {
  const locals: Local[] = [];
  let offset = 0;
  for (;;) {
    const l = await localHeader(source, offset);
    if (!l) break;
    locals.push(l);
    const why = unreadable((l.flags & 0x1) !== 0, l.method);
    if (why) throw memberError(label, l.name, why);
    const isDir = l.name.endsWith('/');
    const root = isDir && /^(\.?\/)*$/.test(l.name);
    // Checked before the filter: a hostile name anywhere is a hostile archive, even where nothing reads it.
    const safe = root ? undefined : safePath(l.name, label);
    const wanted = (!filter || filter(l.name)) && !root;
    if (!wanted || isDir) {
      if (wanted) await visit({ path: safe!, type: 'dir', mode: 0o755, size: 0 }, undefined);
      await source.pieces(l.compressedSize)(() => undefined);
    } else {
      l.yielded = safe!;
      const entry: ArchiveEntry = { path: l.yielded, type: 'file', mode: 0o644, size: l.size };
      const body = memberBody(source, label, l);
      try {
        await visit(entry, body);
      } finally {
        if (!body.readableEnded && !body.destroyed) body.destroy();
      }
    }
    offset += l.headerLength + l.compressedSize;
  }
  const rest = Buffer.concat([Buffer.from([0x50, 0x4b, 0x01, 0x02]), await source.rest(MAX_DIRECTORY)]);
  const modes = checkDirectory(rest, offset, locals);
  const fixes: ModeFix[] = [];
  locals.forEach((l, i) => {
    const mode = modes[i]!;
    if (l.yielded === undefined) return;
    if (isLinkMode(mode)) throw new NotStreamable(`${l.name} is a symbolic link`);
    const perm = fileMode(mode);
    if (perm !== 0o644) fixes.push({ path: l.yielded, mode: perm });
  });
  return fixes;
}
