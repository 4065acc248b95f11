// The real implementation of DetectIo (node:fs); tests pass their own.
import * as fs from 'node:fs/promises';
import { sha256File } from '../cache/store.js';
import type { DetectIo } from './types.js';

export const realDetectIo: DetectIo = {
  accessRW: (p) => fs.access(p, fs.constants.R_OK | fs.constants.W_OK).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code ?? 'EACCES',
  ),
  statGid: (p) => fs.stat(p).then((s) => s.gid, () => undefined),
  realpath: (p) => fs.realpath(p).catch(() => undefined),
  sha256: (p) => sha256File(p).catch(() => undefined),
  isSymlink: (p) => fs.lstat(p).then((s) => s.isSymbolicLink(), () => false),
};
