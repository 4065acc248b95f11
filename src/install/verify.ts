// Checks a prefix against its receipt: every recorded file present with the recorded hash (or link target).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256File } from '../cache/store.js';
import type { Deps } from '../deps.js';
import type { Receipt } from './receipt.js';

export interface PrefixProblem {
  path: string;
  problem: 'missing' | 'changed';
}

/** How files are looked at: the part of Deps this needs; each answers undefined when the file is not there. */
export type FileReader = Pick<Deps, 'sha256' | 'readLink'>;

/** The disk itself, for callers that have no Deps (the no-op check of setup). */
export const diskReader: FileReader = {
  sha256: (f) => sha256File(f).catch(() => undefined),
  readLink: (f) => fs.readlink(f).catch(() => undefined),
};

export async function verifyPrefix(prefix: string, receipt: Pick<Receipt, 'files'>, reader: FileReader = diskReader): Promise<PrefixProblem[]> {
  const problems: PrefixProblem[] = [];
  await Promise.all(
    receipt.files.map(async (f) => {
      const abs = path.join(prefix, ...f.path.split('/'));
      const seen = f.link !== undefined ? await reader.readLink(abs) : await reader.sha256(abs);
      if (seen === undefined) problems.push({ path: f.path, problem: 'missing' });
      else if (seen !== (f.link ?? f.sha256)) problems.push({ path: f.path, problem: 'changed' });
    }),
  );
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
