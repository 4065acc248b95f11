// The real implementation of DetectIo (node:fs); tests pass their own.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import type { DetectIo } from './types.js';

export const realDetectIo: DetectIo = {
  accessRW: (p) => fs.access(p, fs.constants.R_OK | fs.constants.W_OK).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e.code ?? 'EACCES',
  ),
  statGid: (p) => fs.stat(p).then((s) => s.gid, () => undefined),
  realpath: (p) => fs.realpath(p).catch(() => undefined),
  sha256: (p) =>
    new Promise((resolve) => {
      const h = createHash('sha256');
      createReadStream(p)
        .on('data', (c) => h.update(c))
        .on('end', () => resolve(h.digest('hex')))
        .on('error', () => resolve(undefined));
    }),
  isSymlink: (p) => fs.lstat(p).then((s) => s.isSymbolicLink(), () => false),
};
