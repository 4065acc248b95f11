// The one way to read a file whose path a package or the machine names: what it is checked first, opened so it cannot block, read up to a cap.
import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';

/** A kind of file read from a path given by a package or the machine, with the most it may hold. */
export interface ReadKind {
  /** In words, for messages (`a shared library`, `an OpenCL .icd file`). */
  what: string;
  /** The most bytes read. */
  max: number;
  /** Follow a symbolic link at the path itself (library names are links; sysfs attributes are not). */
  followLink?: boolean;
}

/** Library files (ELF or PE) the needs checker reads: the largest real driver library is about 200 MB. */
export const LIBRARY_FILE: ReadKind = { what: 'a shared library', max: 1024 * 1024 * 1024, followLink: true };
/** An OpenCL vendors `.icd` file: one line naming a library. */
export const ICD_FILE: ReadKind = { what: 'an OpenCL .icd file', max: 64 * 1024, followLink: true };
/** A file of the machine read as text (/etc/os-release, dpkg's status, a header, a compiler's version file). */
export const MACHINE_FILE: ReadKind = { what: 'a machine file', max: 64 * 1024 * 1024, followLink: true };
/** A sysfs attribute read to find GPUs (`vendor`, `class`, `resource`): a line, at most a page. */
export const SYSFS_ATTRIBUTE: ReadKind = { what: 'a sysfs attribute', max: 64 * 1024, followLink: false };

/** What was read, or why not: the reason says what the path is (`a FIFO`, `a character device`, `over 64 KiB`). */
export type SafeRead = { bytes: Buffer } | { refused: string };

/** What a file's type is, in words. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const NONBLOCKING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Opens `file` for `use` if it is a regular file of at most `kind.max` bytes by its size: `lstat` first (a link only
 * when the kind follows links), opened non-blocking (a FIFO or a terminal cannot hold the read), `fstat` on what was
 * opened (a path swapped between the two is still judged by what is read). Never throws.
 */
async function openChecked<T>(file: string, kind: ReadKind, use: (fh: FileHandle, size: number) => Promise<T | Refused>): Promise<T | Refused> {
  try {
    const ls = await lstat(file);
    if (!(ls.isFile() || (kind.followLink && ls.isSymbolicLink()))) return { refused: `${file} is ${fileKind(ls)}, not ${kind.what}` };
    const fh = await open(file, NONBLOCKING | (kind.followLink ? 0 : (constants.O_NOFOLLOW ?? 0)));
    try {
      const st = await fh.stat();
      if (!st.isFile()) return { refused: `${file} is ${fileKind(st)}, not ${kind.what}` };
      if (st.size > kind.max) return { refused: `${file} holds ${st.size} bytes, more than ${kind.what} may (${kind.max})` };
      return await use(fh, st.size);
    } finally {
      await fh.close();
    }
  } catch (e) {
    return { refused: `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
}

interface Refused {
  refused: string;
}

/** Reads `file` whole as openChecked allows it, never more than `max` bytes whatever its size says (sysfs sizes are nominal). */
export function readSafely(file: string, kind: ReadKind): Promise<SafeRead> {
  return openChecked(file, kind, async (fh, size): Promise<SafeRead> => {
    // sysfs gives 4096 for a few bytes, procfs 0: read to the end, never past the cap. One byte past the size a
    // regular file states lets its end be read without growing the buffer (a copy of the whole file).
    let chunk = Buffer.allocUnsafe(Math.min(kind.max + 1, Math.max(size + 1, 4096)));
    let n = 0;
    for (;;) {
      if (n === chunk.length) {
        if (n > kind.max) break;
        const bigger = Buffer.allocUnsafe(Math.min(kind.max + 1, chunk.length * 2));
        chunk.copy(bigger, 0, 0, n);
        chunk = bigger;
      }
      const { bytesRead } = await fh.read(chunk, n, chunk.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > kind.max) return { refused: `${file} holds more than ${kind.max} bytes, more than ${kind.what} may` };
    return { bytes: chunk.subarray(0, n) };
  });
}

/** Reads `length` bytes at `offset` of the opened file into `into` at the same offset (fewer at its end). */
/** Reads `length` bytes of the file from `offset` into `into` at `to` (the same offset unless given). */
export type RangeReader = (into: Buffer, offset: number, length: number, to?: number) => Promise<void>;

/** A file of which only some ranges matter, as openChecked allows it: `use` reads what it needs through the reader it is handed. */
export function readSafelyWith<T>(file: string, kind: ReadKind, use: (read: RangeReader, size: number) => Promise<T>): Promise<{ value: T } | Refused> {
  return openChecked(file, kind, async (fh, size) => {
    const read: RangeReader = async (into, offset, length, to = offset) => {
      const end = Math.min(offset + length, size, offset + into.length - to);
      for (let at = offset; at < end; ) {
        const { bytesRead } = await fh.read(into, to + at - offset, end - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
    };
    return { value: await use(read, size) };
  });
}

/** The bytes, or undefined whatever the reason. */
export async function readSafelyOrNone(file: string, kind: ReadKind): Promise<Buffer | undefined> {
  const r = await readSafely(file, kind);
  return 'bytes' in r ? r.bytes : undefined;
}
