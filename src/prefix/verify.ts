// Checks a prefix against its receipt: every recorded file present with the recorded hash (or link target).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256File } from '../cache/store.js';
import type { Deps } from '../base/deps.js';
import type { PrefixProblem, Receipt } from '../records/receipt.js';
import { byPath } from './receipt.js';

export type { PrefixProblem };

/**
 * How files are looked at: the part of Deps this needs; each answers undefined when the file is not there. A reader
 * with `stat` (of the entry itself, a link not followed) lets a file whose size and mtime match the receipt pass
 * without being read, and one with `realpath` keeps every read inside the prefix's real directory.
 */
export type FileReader = Pick<Deps, 'sha256' | 'readLink'> & {
  stat?(path: string): Promise<{ size: number; mtimeMs: number; link?: boolean } | undefined>;
  realpath?(path: string): Promise<string | undefined>;
};

/** The disk itself, for callers that have no Deps (the no-op check of setup). */
export const diskReader: FileReader = {
  sha256: (f) => sha256File(f).catch(() => undefined),
  readLink: (f) => fs.readlink(f).catch(() => undefined),
  stat: (f) => fs.lstat(f).then((s) => ({ size: s.size, mtimeMs: s.mtimeMs, link: s.isSymbolicLink() }), () => undefined),
  realpath: (f) => fs.realpath(f).catch(() => undefined),
};

/** A receipt path as xpu-setup writes them: relative, forward slashes, no `.`, `..` or empty segment. */
function wellFormed(rel: string): boolean {
  return typeof rel === 'string' && rel !== '' && !rel.includes('\\') && !rel.includes('\0') && !/^[A-Za-z]:/.test(rel) && rel.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

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
  // The receipt is a file anyone who can write the prefix can edit: nothing it names outside the prefix is read.
  const realPrefix = reader.realpath ? await reader.realpath(prefix) : undefined;
  const dirs = new Map<string, Promise<boolean>>();
  const dirInside = (rel: string): Promise<boolean> => {
    const dir = rel.split('/').slice(0, -1);
    if (!realPrefix || !dir.length) return Promise.resolve(true);
    const key = dir.join('/');
    let p = dirs.get(key);
    if (!p) {
      // A directory that is not there is not outside: its files are reported missing.
      p = reader.realpath!(path.join(prefix, ...dir)).then((real) => real === undefined || real === path.join(realPrefix, ...dir));
      dirs.set(key, p);
    }
    return p;
  };
  await Promise.all(
    receipt.files.map(async (f) => {
      if (!wellFormed(f.path) || !(await dirInside(f.path))) return void problems.push({ path: String(f.path), problem: 'outside' });
      const abs = path.join(prefix, ...f.path.split('/'));
      if (f.link === undefined && reader.stat) {
        const st = await reader.stat(abs);
        if (!st) return void problems.push({ path: f.path, problem: 'missing' });
        // A link where a file was installed is a change, and is not followed to be hashed.
        if (st.link || st.size !== f.size) return void problems.push({ path: f.path, problem: 'changed' });
        if (f.mtimeMs !== undefined && !opts.rehash && st.mtimeMs === f.mtimeMs) return;
      }
      const seen = f.link !== undefined ? await reader.readLink(abs) : await reader.sha256(abs);
      if (seen === undefined) problems.push({ path: f.path, problem: 'missing' });
      else if (seen !== (f.link ?? f.sha256)) problems.push({ path: f.path, problem: 'changed' });
    }),
  );
  return problems.sort(byPath);
}
