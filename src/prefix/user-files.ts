// Files in an installed prefix that its receipt does not list: the user's own (a config file, a library put beside
// ours). The swap replaces the prefix whole, so they are carried into the new tree, or named when a new file takes
// their place.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ENV_FILES } from '../shells/index.js';
import { RECEIPT_NAME, type Receipt } from '../records/receipt.js';

/** What became of the user's files: carried into the new tree, or left behind because the new tree has that path. */
export interface UserFiles {
  kept: string[];
  replaced: string[];
}

/** Names a killed run of xpu-setup leaves in a prefix (a build's work directory, a half-written env file or receipt). */
const OWN_LEFTOVER = /^\.build-|\.[0-9a-f]{8}\.tmp$/;

/** Every file and link under `prefix` (prefix-relative POSIX paths) that the receipt does not list, in path order. */
async function unlisted(prefix: string, receipt: Receipt): Promise<string[]> {
  const ours = new Set([...receipt.files.map((f) => f.path), RECEIPT_NAME, ...Object.values(ENV_FILES)]);
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(prefix, ...rel.split('/')), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (OWN_LEFTOVER.test(e.name)) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(p);
      else if (!ours.has(p)) out.push(p);
    }
  };
  await walk('');
  return out.sort();
}

/** True when `rel` can be made in `root` without replacing anything there: nothing at it, no file on its way. */
async function freeIn(root: string, rel: string): Promise<boolean> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const st = await fs.lstat(path.join(root, ...parts.slice(0, i))).catch(() => undefined);
    if (!st) return true;
    if (i === parts.length || !st.isDirectory()) return false;
  }
  return true;
}

/**
 * Carries the user's files of the installed `prefix` into `staging`, the tree about to replace it: each is hard-linked
 * (copied where links cannot be made), so the prefix keeps it untouched should the swap fail. The new receipt does not
 * list them: they stay the user's.
 */
export async function carryUserFiles(prefix: string, receipt: Receipt, staging: string): Promise<UserFiles> {
  const kept: string[] = [];
  const replaced: string[] = [];
  for (const rel of await unlisted(prefix, receipt)) {
    if (!(await freeIn(staging, rel))) {
      replaced.push(rel);
      continue;
    }
    const from = path.join(prefix, ...rel.split('/'));
    const to = path.join(staging, ...rel.split('/'));
    await fs.mkdir(path.dirname(to), { recursive: true });
    const st = await fs.lstat(from);
    if (st.isSymbolicLink()) await fs.symlink(await fs.readlink(from), to);
    // A fifo or socket is linked only: copying one would read it.
    else await fs.link(from, to).catch((e: unknown) => (st.isFile() ? fs.copyFile(from, to) : Promise.reject(e)));
    kept.push(rel);
  }
  return { kept, replaced };
}

/** The user's files for the run's output, naming the first few: those kept, and those the new tree replaces. */
export function sayUserFiles(prefix: string, { kept, replaced }: UserFiles): { kept?: string; replaced?: string } {
  const names = (list: string[]) => list.slice(0, 5).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'} of yours`;
  return {
    kept: kept.length ? `kept ${files(kept.length)} in ${prefix} that xpu-setup did not install: ${names(kept)}` : undefined,
    replaced: replaced.length ? `${files(replaced.length)} in ${prefix} will be replaced by the new install's own at the same path: ${names(replaced)}` : undefined,
  };
}
