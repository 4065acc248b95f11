// Checks a prefix against its receipt: every recorded file present with the recorded hash (or link target).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { sha256File } from '../cache/store.js';
import type { Receipt } from './receipt.js';

export interface PrefixProblem {
  path: string;
  problem: 'missing' | 'changed';
}

export async function verifyPrefix(prefix: string, receipt: Receipt): Promise<PrefixProblem[]> {
  const problems: PrefixProblem[] = [];
  await Promise.all(
    receipt.files.map(async (f) => {
      const abs = path.join(prefix, ...f.path.split('/'));
      try {
        if (f.link !== undefined) {
          if ((await fs.readlink(abs)) !== f.link) problems.push({ path: f.path, problem: 'changed' });
        } else if ((await sha256File(abs)) !== f.sha256) {
          problems.push({ path: f.path, problem: 'changed' });
        }
      } catch {
        problems.push({ path: f.path, problem: 'missing' });
      }
    }),
  );
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
