// Content-addressed download cache: files named by their sha256, re-verified on every reuse, written via temp + rename.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { fsWriteError } from '../base/fs-errors.js';
import { shq } from '../base/shell-words.js';
import { filePieces } from '../base/pieces.js';

export interface CachedFile {
  path: string;
  sha256: string;
  size: number;
  /** True when the file was already in the cache and verified. */
  cached: boolean;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await filePieces(file)((piece) => void hash.update(piece));
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

export interface CacheEvents {
  /** An entry that was no file (a directory, say) was removed; a fresh download takes its place. */
  damaged?(entry: string, what: string): void;
}

export class DownloadCache {
  constructor(
    readonly root: string,
    private readonly events: CacheEvents = {},
  ) {}

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
    if (!st.isFile()) {
      await this.discard(file, st.isDirectory() ? 'a directory' : 'not a regular file');
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
   * A file-system failure met while fetching into the cache, said as the cache's (not the prefix's, not the
   * package's), with the way out: a read-only or unwritable cache directory names --cache-dir and
   * XPU_SETUP_CACHE_DIR. Anything else (a typed error, a failure outside the cache) is handed back as it is.
   */
  async failure(e: unknown, file?: string): Promise<unknown> {
    const err = e as NodeJS.ErrnoException;
    // A write through a file handle names no path: `file` is the one being written.
    const where = typeof err?.path === 'string' ? err.path : file;
    if (e instanceof XpuError || typeof err?.code !== 'string' || where === undefined) return e;
    if (where !== this.root && !where.startsWith(this.root + path.sep)) return e;
    // Node 20's recursive mkdir reports a read-only file system as ENOENT: the nearest directory that exists says why.
    let cause: unknown = e;
    if (err.code === 'ENOENT' && err.syscall === 'mkdir') {
      let d = where;
      while (!(await fs.stat(d).then(() => true, () => false)) && path.dirname(d) !== d) d = path.dirname(d);
      cause = (await fs.access(d, fs.constants.W_OK).then(() => undefined, (x: unknown) => x)) ?? e;
    }
    const said = fsWriteError(cause, where, {
      tree: `the download cache ${this.root}`,
      unchanged: 'the prefix was not changed',
      remedy: `check the cache directory ${this.root} (it must be writable: its permissions, or the file system it is on), or choose another with --cache-dir or XPU_SETUP_CACHE_DIR`,
    });
    if (said.code !== 'INSTALL') return said;
    return new XpuError('INSTALL', `the download cache ${this.root} cannot be written: ${said.message}`, {
      cause: said.cause,
      details: { ...said.details, cacheDir: this.root },
      hints: said.hints,
    });
  }

  /**
   * Removes an entry that is not a file (only xpu-setup writes here, and only files): the cache entry is damaged, not
   * the package, and a fresh download takes its place. One that cannot be removed is said with the way out.
   */
  private async discard(entry: string, what: string): Promise<void> {
    try {
      await fs.rm(entry, { recursive: true, force: true });
    } catch (e) {
      throw new XpuError('INSTALL', `the cache entry ${entry} is damaged (${what} where a downloaded file belongs) and cannot be removed`, {
        cause: e,
        details: { path: entry, cacheDir: this.root },
        hints: [`remove ${entry}, or empty the cache: xpu-setup cache clean --cache-dir ${shq(this.root)}; the prefix was not changed`],
      });
    }
    this.events.damaged?.(entry, what);
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
