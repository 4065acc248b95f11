// What the cache directory holds, part by part (archives, partial downloads, index answers, plans, quick answers,
// compiled code), how much each takes, and emptying them: all of a part, or only what has not been used for a while.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { indexCacheDir } from './index-cache.js';
import { ANSWERS_DIR } from './quick-answers.js';

export interface CachePart {
  /** A stable name (`--json`). */
  id: 'downloads' | 'partial' | 'index' | 'plans' | 'answers' | 'code';
  /** What people read. */
  title: string;
  path: string;
  /** Only these files of the directory, and not its subdirectories (the code cache lives beside the bundle). */
  only?: RegExp;
  /** Files written this recently are kept by `clean`: a download in progress is still writing them. */
  keepRecentMs?: number;
}

export interface PartUsage {
  id: CachePart['id'];
  title: string;
  path: string;
  files: number;
  bytes: number;
}

/** A partial download that has not grown for this long belongs to no running download. */
const IN_PROGRESS_MS = 10 * 60_000;

/**
 * The parts of the cache, every one a directory of xpu-setup's own: `clean` removes nothing else, so a --cache-dir
 * that holds other files keeps them. `codeDir` is where V8's code cache sits beside the bundle.
 */
export function cacheParts(cacheDir: string, codeDir?: string): CachePart[] {
  const parts: CachePart[] = [
    { id: 'downloads', title: 'downloaded archives', path: path.join(cacheDir, 'sha256') },
    { id: 'partial', title: 'partial downloads', path: path.join(cacheDir, 'tmp'), keepRecentMs: IN_PROGRESS_MS },
    { id: 'index', title: 'index cache', path: indexCacheDir(cacheDir) },
    { id: 'plans', title: 'recent plans', path: path.join(cacheDir, 'plans') },
    { id: 'answers', title: 'quick answers', path: path.join(cacheDir, ANSWERS_DIR) },
  ];
  if (codeDir) parts.push({ id: 'code', title: 'code cache', path: codeDir, only: /^\.xpu-setup-.+\.v8cache(\.\d+\.tmp)?$/ });
  return parts;
}

interface Entry {
  file: string;
  bytes: number;
  /** When it was last read or written (atime is kept coarsely by relatime, which is close enough for days). */
  usedMs: number;
}

async function entries(part: CachePart): Promise<Entry[]> {
  const out: Entry[] = [];
  const walk = async (dir: string, top: boolean): Promise<void> => {
    const names = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of names) {
      const file = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!part.only) await walk(file, false);
        continue;
      }
      if (part.only && !(top && part.only.test(d.name))) continue;
      const st = await fs.lstat(file).catch(() => undefined);
      if (st) out.push({ file, bytes: st.size, usedMs: Math.max(st.atimeMs, st.mtimeMs) });
    }
  };
  await walk(part.path, true);
  return out;
}

const usage = (part: CachePart, list: Entry[]): PartUsage => ({
  id: part.id,
  title: part.title,
  path: part.path,
  files: list.length,
  bytes: list.reduce((n, e) => n + e.bytes, 0),
});

export async function partUsage(part: CachePart): Promise<PartUsage> {
  return usage(part, await entries(part));
}

/**
 * Removes the part's files (those unused for `olderThanMs` when given) and then the directories left empty; answers
 * what was removed. A file another process removed first counts as removed by it, not here.
 */
export async function cleanPart(part: CachePart, opts: { now: number; olderThanMs?: number }): Promise<PartUsage> {
  const keepMs = Math.max(opts.olderThanMs ?? 0, part.keepRecentMs ?? 0);
  const removed: Entry[] = [];
  for (const e of await entries(part)) {
    if (keepMs > 0 && e.usedMs > opts.now - keepMs) continue;
    try {
      await fs.rm(e.file);
      removed.push(e);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  if (!part.only) await removeEmptyDirs(part.path);
  return usage(part, removed);
}

/** Depth first; a directory that still holds anything stays. */
async function removeEmptyDirs(dir: string): Promise<void> {
  const names = await fs.readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!names) return;
  for (const d of names) if (d.isDirectory()) await removeEmptyDirs(path.join(dir, d.name));
  await fs.rmdir(dir).catch(() => undefined);
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30d`, `12h`, `90m`, `2w`, `45s` (also `1.5d`) in milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$/i.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]!.toLowerCase()]! : undefined;
}
