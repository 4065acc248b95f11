// Content-addressed download cache: files named by their sha256, re-verified on every reuse, written via temp + rename.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../errors.js';

export interface CachedFile {
  path: string;
  sha256: string;
  size: number;
  /** True when the file was already in the cache and verified. */
  cached: boolean;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function hashMismatch(what: string, expected: string, actual: string, extra: Record<string, unknown> = {}): XpuError {
  return new XpuError('HASH_MISMATCH', `sha256 mismatch for ${what}: expected ${expected}, got ${actual}`, {
    details: { url: what, expected, actual, ...extra },
    hints: [
      'the file differs from what the index or manifest promised: it was corrupted in transit, or changed on the server',
      'nothing was installed; run again later, and report it to the index owner if it persists',
    ],
  });
}

export class DownloadCache {
  constructor(readonly root: string) {}

  pathFor(sha256: string): string {
    return path.join(this.root, 'sha256', sha256.slice(0, 2), sha256);
  }

  /** A cached file with this hash, verified now; a damaged entry is removed. */
  async lookup(sha256: string): Promise<CachedFile | undefined> {
    const file = this.pathFor(sha256);
    let st;
    try {
      st = await fs.stat(file);
    } catch {
      return undefined;
    }
    const actual = await sha256File(file);
    if (actual !== sha256) {
      await fs.rm(file, { force: true });
      return undefined;
    }
    return { path: file, sha256, size: st.size, cached: true };
  }

  /**
   * Removes partial downloads that a killed run left behind. Only old ones: another process sharing this cache
   * may be writing a fresh one right now.
   */
  async sweep(olderThanMs = 24 * 3600_000, now = Date.now()): Promise<number> {
    const dir = path.join(this.root, 'tmp');
    let removed = 0;
    for (const n of await fs.readdir(dir).catch(() => [] as string[])) {
      const p = path.join(dir, n);
      const st = await fs.stat(p).catch(() => undefined);
      if (st && now - st.mtimeMs > olderThanMs) {
        await fs.rm(p, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }

  /**
   * Where an unfinished download of this hash waits to be resumed, with its lock. Named by the expected hash, so a
   * later run finds it again; the sweep removes it after a day.
   */
  async partialFor(sha256: string): Promise<{ file: string; meta: string; lock: string }> {
    const dir = path.join(this.root, 'tmp');
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${sha256}.part`);
    return { file, meta: `${file}.json`, lock: `${file}.lock` };
  }

  async tempFile(hint: string): Promise<string> {
    const dir = path.join(this.root, 'tmp');
    await fs.mkdir(dir, { recursive: true });
    return path.join(dir, `${randomBytes(6).toString('hex')}-${path.basename(hint).replace(/[^\w.+-]/g, '_')}.part`);
  }

  /** Moves a verified temp file into the store; another process that got there first is fine. */
  async adopt(tmp: string, sha256: string, size: number): Promise<CachedFile> {
    const final = this.pathFor(sha256);
    await fs.mkdir(path.dirname(final), { recursive: true });
    await fs.rename(tmp, final);
    return { path: final, sha256, size, cached: false };
  }
}
