// File-system failures while writing a prefix or cache, said as what happened (full disk, name too long, ...), not as a stack.
import { XpuError } from './errors.js';

const SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
const PERMISSION = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Turns a Node file-system error met while writing `file` (for `archive`, when one is being unpacked) into a typed
 * error. `where` names the tree being written, for the hint ("the prefix was not changed", "the cache").
 */
export function fsWriteError(e: unknown, file: string, where: { archive?: string; tree: string; unchanged: string; remedy?: string }): XpuError {
  if (e instanceof XpuError) return e;
  const code = (e as NodeJS.ErrnoException)?.code ?? '';
  const from = where.archive ? ` (from ${where.archive})` : '';
  const details = { path: file, errno: code, ...(where.archive ? { archive: where.archive } : {}) };
  const tail = where.unchanged;
  if (SPACE.has(code)) {
    return new XpuError('NO_SPACE', `no space left on the device holding ${where.tree} while writing ${file}`, {
      cause: e,
      details,
      hints: [`free some space there, or choose another location (--prefix, --cache-dir); ${tail}`],
    });
  }
  if (code === 'ENAMETOOLONG') {
    return new XpuError('INSTALL', `a path is too long for this file system: ${file}${from}`, {
      cause: e,
      details,
      hints: [`choose a shorter --prefix, or a file system that allows longer names; ${tail}`],
    });
  }
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new XpuError('BAD_ARCHIVE', `${where.archive ?? 'the package'} puts a file and a directory at the same path: ${file}`, {
      cause: e,
      details,
      hints: [`the package is malformed; ${tail}`],
    });
  }
  if (code === 'ELOOP') {
    return new XpuError('UNSAFE_PATH', `too many levels of symbolic links at ${file}${from}`, {
      cause: e,
      details,
      hints: [`the package's links form a loop; ${tail}`],
    });
  }
  if (PERMISSION.has(code)) {
    return new XpuError('INSTALL', code === 'EROFS' ? `${file} is on a read-only file system` : `no permission to write ${file}`, {
      cause: e,
      details,
      hints: [`${where.remedy ?? `make ${where.tree}'s parent writable, or choose another location`}; ${tail}`],
    });
  }
  return new XpuError('INSTALL', `cannot write ${file}${from}`, {
    cause: e,
    details,
    hints: [`${where.remedy ?? `check ${where.tree} and its parent directory`}; ${tail}`],
  });
}
