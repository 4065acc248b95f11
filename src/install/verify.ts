// Checks a prefix against its receipt: every recorded file present with the recorded hash (or link target).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256File } from '../cache/store.js';
import type { Deps } from '../deps.js';
import { byPath, type Receipt } from './receipt.js';

export interface PrefixProblem {
  path: string;
  problem: 'missing' | 'changed';
}

/**
 * How files are looked at: the part of Deps this needs; each answers undefined when the file is not there. A reader
 * with `stat` lets a file whose size and mtime match the receipt pass without being read.
 */
export type FileReader = Pick<Deps, 'sha256' | 'readLink'> & {
  stat?(path: string): Promise<{ size: number; mtimeMs: number } | undefined>;
};

/** The disk itself, for callers that have no Deps (the no-op check of setup). */
export const diskReader: FileReader = {
  sha256: (f) => sha256File(f).catch(() => undefined),
  readLink: (f) => fs.readlink(f).catch(() => undefined),
  stat: (f) => fs.stat(f).then((s) => ({ size: s.size, mtimeMs: s.mtimeMs }), () => undefined),
};

export interface VerifyPrefixOptions {
  /** Hash every file even when its size and mtime match the receipt. */
  rehash?: boolean;
}

/**
 * A file passes on size and mtime alone unless `rehash`; a file whose mtime moved but whose size did not is hashed,
 * so touching a file is not a change but editing it in place is.
 */
export async function verifyPrefix(
  prefix: string,
  receipt: Pick<Receipt, 'files'>,
  reader: FileReader = diskReader,
  opts: VerifyPrefixOptions = {},
): Promise<PrefixProblem[]> {
  const problems: PrefixProblem[] = [];
  await Promise.all(
    receipt.files.map(async (f) => {
      const abs = path.join(prefix, ...f.path.split('/'));
      if (f.link === undefined && f.mtimeMs !== undefined && reader.stat && !opts.rehash) {
        const st = await reader.stat(abs);
        if (!st) return void problems.push({ path: f.path, problem: 'missing' });
        if (st.size !== f.size) return void problems.push({ path: f.path, problem: 'changed' });
        if (st.mtimeMs === f.mtimeMs) return;
      }
      const seen = f.link !== undefined ? await reader.readLink(abs) : await reader.sha256(abs);
      if (seen === undefined) problems.push({ path: f.path, problem: 'missing' });
      else if (seen !== (f.link ?? f.sha256)) problems.push({ path: f.path, problem: 'changed' });
    }),
  );
  return problems.sort(byPath);
}
