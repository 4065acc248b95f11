// Zip reading: yauzl for the central directory, member bytes read and CRC-checked here; used by wheels, .conda and the Windows SDK.
import * as fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import yauzl from 'yauzl';
import { XpuError } from '../base/errors.js';
import { NotStreamable, type ArchiveEntry, type EntryVisitor } from './entry.js';
import { safePath } from './safe-path.js';
import { inflateRawPieces } from './inflate.js';
import { filePieces, PieceStream, piecesOf, pumpInto, type PieceSink, type Pump } from '../base/pieces.js';

/**
 * Member names are decoded here, never by yauzl (`decodeStrings: false`), so its failures are all about the bytes; a
 * typed error came from the source of the bytes (a range reader's network), and passes as it is.
 */
function badZip(file: string, e: unknown): XpuError {
  if (e instanceof XpuError) return e;
  return new XpuError('BAD_ARCHIVE', `${file} is not a readable zip archive`, {
    cause: e,
    details: { file },
    hints: ['the download may be damaged: remove it from the cache and run again'],
  });
}

/** Unix mode bits from a member's external attributes (central directory), when made on Unix. */
export function modeOf(externalFileAttributes: number): number {
  const unixMode = (externalFileAttributes >>> 16) & 0xffff;
  return unixMode || 0o644;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export const isLinkMode = (mode: number): boolean => (mode & S_IFMT) === S_IFLNK;

/** The permission bits a file member declares (staging decides what it is written with: installMode). */
export const fileMode = (mode: number): number => mode & 0o7777 || 0o644;

/** A damaged or hostile member of `archive`, named with what is wrong with it. */
export function memberError(archive: string, member: string, why: string, cause?: unknown): XpuError {
  return new XpuError('BAD_ARCHIVE', `${archive}: member ${member} ${why}`, {
    cause,
    details: { archive, member },
    hints: ['the download is damaged or the archive is hostile: remove it from the cache and run again; nothing from it was installed'],
  });
}

/** Why a member cannot be read at all (encrypted, or neither stored nor deflated); undefined when it can. */
export function unreadable(encrypted: boolean, method: number): string | undefined {
  if (encrypted) return 'is encrypted';
  if (method !== 0 && method !== 8) return `uses compression method ${method}; only stored (0) and deflate (8) are read`;
  return undefined;
}

type ZlibWithCrc = typeof zlib & { crc32: (data: Buffer, value?: number) => number };

/** Read and inflate in large pieces: yauzl's own member streams move 8-16 KiB at a time through five stages. */
const CHUNK = 1 << 20;

/**
 * A member's stored bytes made into its content: inflated when deflated (method 8), then checked against the size
 * and CRC-32 its record declares (`declaredBy` names the record), piece by piece. A failure to read `raw` or to
 * inflate it is said through `fail` as corrupt data, unless it is typed already; what `each` throws passes as it is.
 */
export function memberPieces(raw: Pump, method: number, expected: { size: number; crc32: number; declaredBy: string }, fail: (why: string, cause?: unknown) => Error): Pump {
  const corrupt = (e: unknown) => (e instanceof XpuError || e instanceof NotStreamable ? e : fail('cannot be read (corrupt compressed data)', e));
  return async (each) => {
    let crc = 0;
    let size = 0;
    const checked: PieceSink = (piece) => {
      size += piece.length;
      if (size > expected.size) throw fail(`holds more than the ${expected.size} bytes its ${expected.declaredBy} declares`);
      crc = (zlib as ZlibWithCrc).crc32(piece, crc);
      return each(piece);
    };
    await pumpInto(method === 8 ? (inner) => inflateRawPieces(raw, inner, corrupt) : raw, checked, corrupt);
    if (size !== expected.size) throw fail(`holds ${size} bytes, its ${expected.declaredBy} declares ${expected.size}`);
    if (crc >>> 0 !== expected.crc32 >>> 0) throw fail(`fails its CRC-32 check (stored ${expected.crc32.toString(16)}, computed ${(crc >>> 0).toString(16)})`);
  };
}

/**
 * One member's bytes, from the file range its local header gives (bounds checked by yauzl), through memberPieces
 * (yauzl never checks the CRC).
 */
function memberStream(file: string, e: yauzl.Entry, fileDataStart: number, range: (start: number, end: number) => Pump): Readable {
  const fail = (why: string, cause?: unknown) => memberError(file, e.fileName, why, cause);
  const why = unreadable(e.isEncrypted(), e.compressionMethod);
  if (why) return new PieceStream(() => Promise.reject(fail(why)));
  const raw: Pump = e.compressedSize === 0 ? async () => undefined : range(fileDataStart, fileDataStart + e.compressedSize);
  return new PieceStream(memberPieces(raw, e.compressionMethod, { size: e.uncompressedSize, crc32: e.crc32, declaredBy: 'directory entry' }, fail));
}

/**
 * Ranges of a zip file read through one descriptor into one buffer used for every piece (members are read one at a
 * time); a range that runs past the end of the file just ends there (the member's size check says so). `close` when
 * the archive is done.
 */
function fileRanges(file: string): { range: (start: number, end: number) => Pump; close(): Promise<void> } {
  let fh: Promise<fs.FileHandle> | undefined;
  let into: Buffer | undefined;
  return {
    range: (start, end) => async (each) => filePieces(await (fh ??= fs.open(file, 'r')), { start, end, into: (into ??= Buffer.allocUnsafe(CHUNK)) })(each),
    close: async () => {
      await (await fh?.catch(() => undefined))?.close();
    },
  };
}

/**
 * Where a zip's bytes come from: a file, or a reader of byte ranges of `size` bytes in all (a wheel read by HTTP Range
 * requests), named `label` in errors.
 */
export type ZipSource = string | { label: string; size: number; reader: yauzl.RandomAccessReader };

const ZIP_OPTIONS = { lazyEntries: true, autoClose: true, strictFileNames: false, decodeStrings: false } as const;

export async function readZip(source: ZipSource, visit: EntryVisitor, filter?: (name: string) => boolean): Promise<void> {
  const file = typeof source === 'string' ? source : source.label;
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    const opened = (err: Error | null, z?: yauzl.ZipFile) => (err || !z ? reject(badZip(file, err)) : resolve(z));
    if (typeof source === 'string') yauzl.open(source, ZIP_OPTIONS, opened);
    else yauzl.fromRandomAccessReader(source.reader, source.size, ZIP_OPTIONS, opened);
  });
  const ranges = typeof source === 'string' ? fileRanges(source) : undefined;
  // A range reader's stream is made only when its member is read, and ends with the read however it ends.
  const range = (start: number, end: number): Pump =>
    ranges ? ranges.range(start, end) : (each) => piecesOf((source as Exclude<ZipSource, string>).reader.createReadStream({ start, end }))(each);
  const openStream = (e: yauzl.Entry) =>
    new Promise<Readable>((resolve, reject) =>
      zip.readLocalFileHeader(e, { minimal: true }, (err, h) => (err ? reject(badZip(file, err)) : resolve(memberStream(file, e, h.fileDataStart, range)))),
    );
  const readAll = async (s: Readable) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: unknown) => {
        zip.close();
        reject(e);
      };
      zip.on('error', (e) => fail(badZip(file, e)));
      zip.on('end', () => resolve());
      zip.on('entry', (e: yauzl.Entry) => {
        // Names are decoded here, not by yauzl, so that safePath() is the one check every member passes.
        e.fileName = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileName as unknown as Buffer, e.extraFields, false);
        void (async () => {
          const isDir = e.fileName.endsWith('/');
          if (isDir && /^(\.?\/)*$/.test(e.fileName)) return zip.readEntry();
          // Checked before the filter: a hostile name anywhere is a hostile archive, even where nothing reads it.
          const p = safePath(e.fileName, file);
          if (filter && !filter(e.fileName)) return zip.readEntry();
          const mode = modeOf(e.externalFileAttributes);
          if (isDir) {
            await visit({ path: p, type: 'dir', mode: 0o755, size: 0 }, undefined);
          } else if (isLinkMode(mode)) {
            const target = await readAll(await openStream(e));
            await visit({ path: p, type: 'symlink', mode: 0o777, linkTarget: target, size: 0 }, undefined);
          } else {
            const entry: ArchiveEntry = { path: p, type: 'file', mode: fileMode(mode), size: e.uncompressedSize };
            const body = await openStream(e);
            try {
              await visit(entry, body);
            } finally {
              // A visitor that failed before reading the body would leave its file descriptor open.
              if (!body.readableEnded && !body.destroyed) body.destroy();
            }
          }
          zip.readEntry();
        })().catch(fail);
      });
      zip.readEntry();
    });
  } finally {
    await ranges?.close();
  }
}
