// One archive from a URL into the verified cache: resumes a kept partial file, stops at the declared size, checks the whole file's sha256.
import { createHash, type Hash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { hashMismatch, type CachedFile, type DownloadCache } from '../cache/store.js';
import { hold, lockState, newOwner, release } from '../base/lock-owner.js';
import { XpuError } from '../base/errors.js';
import { BatchedWriter, filePieces } from '../base/pieces.js';
import { tooLarge, type Http } from './http.js';

export interface Expected {
  sha256: string;
  /** The size the index or the pin declares: reading stops there. */
  size?: number;
}

export interface DownloadProgress {
  received: number;
  total?: number;
}

/** A reader that follows the download as it is written (fetch/live.ts). */
export interface DownloadWatcher {
  /** The download opens `file` to write from `offset`, `size` bytes in all when known. */
  begin(file: string, offset: number, size?: number): void;
  /** `n` more bytes are in the file. */
  advance(n: number): void;
}

export interface DownloadOptions {
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Told where the bytes go and how far they got, for a reader that follows the download. */
  live?: DownloadWatcher;
}

/** What the server said about the bytes kept so far; resuming is only safe while this still matches. */
interface PartialMeta {
  url: string;
  etag?: string;
  lastModified?: string;
}

interface Got {
  sha256: string;
  size: number;
  /** True when bytes from an earlier attempt or run were kept. */
  resumed: boolean;
}

/** Errors after which the kept bytes are worthless: the next try starts from zero. */
const DISCARD_ON = new Set(['TOO_LARGE', 'HASH_MISMATCH']);

/**
 * Takes the partial file's lock and returns its token, or undefined while another live process holds it. A lock whose
 * owner is gone (a killed run, or a pid since given to another process) is taken over.
 */
async function claim(lock: string): Promise<string | undefined> {
  const me = newOwner();
  for (let i = 0; i < 2; i++) {
    hold(me.token);
    try {
      await fs.writeFile(lock, JSON.stringify(me), { flag: 'wx' });
      return me.token;
    } catch (e) {
      release(me.token);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!(await lockState(lock)).stale) return undefined;
      await fs.rm(lock, { force: true });
    }
  }
  return undefined;
}

async function readMeta(file: string): Promise<PartialMeta | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as PartialMeta;
  } catch {
    return undefined;
  }
}

async function sizeOf(file: string): Promise<number> {
  return (await fs.stat(file).catch(() => undefined))?.size ?? 0;
}

/** Hashes bytes kept from before, so the final check covers the whole file, not only what this attempt received. */
async function hashExisting(file: string, hash: Hash): Promise<void> {
  await filePieces(file)((piece) => void hash.update(piece));
}

/** A 206 answer's Content-Range: the first and last byte sent, and the whole file's size when the server says. */
export function contentRange(value: string | undefined): { start: number; end: number; total?: number } | undefined {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value?.trim() ?? '');
  return m ? { start: Number(m[1]), end: Number(m[2]), ...(m[3] !== '*' ? { total: Number(m[3]) } : {}) } : undefined;
}

/** A retryable error that makes the next attempt start from zero. */
function restart(url: string, why: string): XpuError {
  return new XpuError('NETWORK', `resuming ${url} failed: ${why}`, { details: { url, retryable: true } });
}

async function attempt(http: Http, url: string, file: string, metaFile: string, expected: Expected, deadlineAt: number, opts: DownloadOptions): Promise<Got> {
  let have = await sizeOf(file);
  const meta = have > 0 ? await readMeta(metaFile) : undefined;
  // If-Range takes only a strong validator: a weak ETag (W/"...") falls back to Last-Modified.
  const strongEtag = meta?.etag && !meta.etag.startsWith('W/') ? meta.etag : undefined;
  const validator = strongEtag ?? meta?.lastModified;
  // Bytes from this URL are resumed, with If-Range when the server gave a validator; without one the whole file's
  // sha256 still decides, and a resumed file that fails it is fetched once more whole (downloadToCache).
  if (have > 0 && (meta?.url !== url || (expected.size !== undefined && have >= expected.size))) {
    await fs.truncate(file, 0);
    have = 0;
  }
  const headers: Record<string, string> = have > 0 ? { range: `bytes=${have}-`, ...(validator ? { 'if-range': validator } : {}) } : {};
  const res = await http.open(url, {
    headers,
    signal: opts.signal,
    deadlineAt,
    minRate: true,
    // Without a range the limit is known before the answer; with one it depends on the status, checked below.
    maxBytes: have === 0 ? expected.size : undefined,
  });
  let offset = 0;
  if (res.status === 206) {
    if (have === 0 || contentRange(res.headers['content-range'])?.start !== have) {
      await res.discard();
      await fs.rm(file, { force: true });
      throw restart(url, `the server sent a range other than bytes=${have}-`);
    }
    offset = have;
  } else if (res.status !== 200) {
    await res.discard();
    throw new XpuError('HTTP_STATUS', `GET ${url} answered HTTP ${res.status}`, { details: { url, status: res.status } });
  }
  if (expected.size !== undefined && res.contentLength !== undefined && offset + res.contentLength > expected.size) {
    await res.discard();
    throw tooLarge(url, expected.size, offset + res.contentLength);
  }
  const next: PartialMeta = { url, etag: res.headers.etag, lastModified: res.headers['last-modified'] };
  if (offset === 0 || next.etag !== meta?.etag || next.lastModified !== meta?.lastModified) {
    await fs.writeFile(metaFile, JSON.stringify(next));
  }
  const hash = createHash('sha256');
  if (offset > 0) await hashExisting(file, hash);
  let received = offset;
  const total = expected.size ?? (res.contentLength !== undefined ? offset + res.contentLength : undefined);
  // A write that fails (full disk, read-only cache) goes up as the file system's error, and the fetch says it as the
  // cache's (DownloadCache.failure); network and size errors are typed already.
  // Every byte taken is written, even after a failure (a cut download resumes from them); the file is closed on every
  // outcome, so no write can land after it and no descriptor leaks.
  const fh = await fs.open(file, offset > 0 ? 'a' : 'w');
  opts.live?.begin(file, offset, total);
  // Written as it comes: the install may be reading the file as the download writes it (fetch/live.ts).
  const out = new BatchedWriter(fh, { landed: (n) => opts.live?.advance(n), eager: true });
  try {
    await res.pump((piece) => {
      received += piece.length;
      if (expected.size !== undefined && received > expected.size) throw tooLarge(url, expected.size, received);
      hash.update(piece);
      opts.onProgress?.({ received, total });
      return out.put(piece);
    });
    await out.close();
  } catch (e) {
    await out.end();
    throw e;
  }
  // A body without a length, or with a Content-Length short of the file, ends like a whole one; the size the index
  // declares tells them apart, and the bytes that came are resumed from. (Bytes that are the file, by its sha256, are
  // a size the index has wrong: said as that by the caller.)
  const sha256 = hash.digest('hex');
  if (expected.size !== undefined && received < expected.size && sha256 !== expected.sha256) {
    const said = res.contentLength !== undefined ? ` (the server's Content-Length said ${offset + res.contentLength})` : '';
    throw new XpuError('SIZE_MISMATCH', `download of ${url} ended after ${received} of ${expected.size} bytes${said}`, {
      details: { url, expected: expected.size, received, retryable: true },
      hints: ['the connection was cut; run the command again (the bytes received are kept and resumed)'],
    });
  }
  return { sha256, size: received, resumed: offset > 0 };
}

/**
 * Downloads url unless a verified copy is cached. A cut download keeps its bytes (with the server's ETag or
 * Last-Modified) and the next attempt, or the next run, asks only for the rest; a changed file starts over.
 */
export async function downloadToCache(http: Http, cache: DownloadCache, url: string, expected: Expected, opts: DownloadOptions = {}): Promise<CachedFile> {
  const hit = await cache.lookup(expected.sha256);
  if (hit) return hit;
  const partial = await cache.partialFor(expected.sha256);
  const token = await claim(partial.lock);
  const owned = token !== undefined;
  // Another live process is fetching the same file: fetch a private copy rather than share its partial file.
  const file = owned ? partial.file : await cache.tempFile(url);
  const metaFile = owned ? partial.meta : `${file}.json`;
  const deadlineAt = http.clock.now() + http.config.downloadDeadlineMs;
  let keep = owned;
  try {
    // Planning already reached this server; now there is no other source to turn to, so even a refused
    // connection (a mirror restarting) is tried again.
    const once = () => http.retry(() => attempt(http, url, file, metaFile, expected, deadlineAt, opts), opts.signal, true);
    let got = await once();
    if (got.sha256 !== expected.sha256 && got.resumed) {
      // The kept bytes may come from a file the server has since replaced under the same validator: once more, whole.
      await fs.rm(file, { force: true });
      got = await once();
    }
    if (got.sha256 !== expected.sha256) throw hashMismatch(url, expected.sha256, got.sha256);
    if (expected.size !== undefined && got.size !== expected.size) {
      keep = false;
      throw new XpuError('SIZE_MISMATCH', `${url} is ${got.size} bytes, the index says ${expected.size}`, {
        details: { url, expected: expected.size, actual: got.size },
        hints: ['the index and the file disagree; run again later or use another index'],
      });
    }
    const done = await cache.adopt(file, got.sha256, got.size);
    await fs.rm(metaFile, { force: true });
    return done;
  } catch (e) {
    if (e instanceof XpuError && DISCARD_ON.has(e.code)) keep = false;
    if (!keep) await Promise.all([fs.rm(file, { force: true }), fs.rm(metaFile, { force: true })]);
    throw await cache.failure(e, file);
  } finally {
    if (token !== undefined) {
      await fs.rm(partial.lock, { force: true });
      release(token);
    }
  }
}
