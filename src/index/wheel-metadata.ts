// A wheel's METADATA when its index serves none (PEP 503 pages without data-core-metadata): read from the wheel itself,
// by HTTP Range requests (the zip's end, its central directory, that one member), else from the whole wheel downloaded
// into the download cache, where setup finds it verified.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { DownloadCache } from '../cache/store.js';
import { XpuError } from '../base/errors.js';
import { readWheelMetadata } from '../formats/wheel.js';
import type { ZipSource } from '../formats/zip.js';
import { contentRange, downloadToCache } from '../net/download.js';
import type { Http } from '../net/http.js';
import type { IndexStats } from './http-cache.js';
import type { IndexFile } from './simple-index.js';

/**
 * The bytes yauzl reads from a zip's end to find its end record (22 bytes, a comment of up to 64 KiB, and the zip64
 * locator before them): the first request asks for exactly these, and a wheel's central directory and METADATA, written
 * last, are usually among them.
 */
export const ZIP_TAIL = 22 + 0xffff + 20;
/** Later requests ask for at least this much, so that a member's local header and its data come in one. */
const MIN_PIECE = 16 * 1024;

/** How a wheel's METADATA was had: by Range requests (bytes fetched of the wheel's size), or by downloading it whole. */
export type WheelMetadataRead = { how: 'range'; fetched: number; size: number } | { how: 'whole'; file: string; size: number };

/** The server answered the first Range request with the whole file: it does not honour Range. */
class NoRanges extends Error {}

/** Byte ranges of a file on an HTTP server, each fetched once; what yauzl reads through. */
class RangeReader extends yauzl.RandomAccessReader {
  fetched = 0;
  private readonly pieces: { start: number; bytes: Buffer }[] = [];

  constructor(
    private readonly http: Http,
    private readonly url: string,
    private readonly stats: IndexStats,
  ) {
    super();
  }

  /** The file's size, learnt from the first request (its end: `bytes=-N`); NoRanges when the server ignores Range. */
  async start(): Promise<number> {
    return this.http.retry(async () => {
      this.stats.requests++;
      const res = await this.http.open(this.url, { headers: { range: `bytes=-${ZIP_TAIL}` } });
      const r = res.status === 206 ? contentRange(res.headers['content-range']) : undefined;
      if (!r || r.total === undefined) {
        await res.discard();
        if (res.status === 200) throw new NoRanges();
        throw this.badRange(`answered HTTP ${res.status} with Content-Range "${res.headers['content-range'] ?? ''}" to bytes=-${ZIP_TAIL}`);
      }
      this.pieces.push({ start: r.start, bytes: await this.body(res.body, r.end + 1 - r.start) });
      return r.total;
    });
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    this.bytes(start, end).then(
      (b) => out.end(b),
      (e: unknown) => out.destroy(e as Error),
    );
    return out;
  }

  private async bytes(start: number, end: number): Promise<Buffer> {
    const had = this.pieces.find((p) => p.start <= start && p.start + p.bytes.length >= end);
    if (had) return had.bytes.subarray(start - had.start, end - had.start);
    const size = this.pieces[0]!.start + this.pieces[0]!.bytes.length;
    const to = Math.min(size, Math.max(end, start + MIN_PIECE));
    const bytes = await this.http.retry(async () => {
      this.stats.requests++;
      const res = await this.http.open(this.url, { headers: { range: `bytes=${start}-${to - 1}` }, maxBytes: to - start });
      const r = contentRange(res.headers['content-range']);
      if (res.status !== 206 || r?.start !== start || r.end !== to - 1) {
        await res.discard();
        throw this.badRange(`answered bytes=${start}-${to - 1} with HTTP ${res.status} and Content-Range "${res.headers['content-range'] ?? ''}"`);
      }
      return this.body(res.body, to - start);
    });
    this.pieces.push({ start, bytes });
    return bytes.subarray(0, end - start);
  }

  private async body(body: Readable, want: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c as Buffer);
    const bytes = Buffer.concat(parts);
    this.fetched += bytes.length;
    this.stats.downloadedBytes += bytes.length;
    if (bytes.length !== want) throw this.badRange(`sent ${bytes.length} bytes for a range of ${want}`);
    return bytes;
  }

  private badRange(why: string): XpuError {
    return new XpuError('BAD_INDEX', `${this.url}: reading the wheel's METADATA by Range requests failed: the server ${why}`, {
      details: { url: this.url },
      hints: ['the server answers Range requests wrongly; use an index that serves metadata files (PEP 658), or report it to the index owner'],
    });
  }
}

/** The METADATA member of the wheel at `source`; BAD_ARCHIVE when the wheel has none. */
async function metadataOf(source: ZipSource, url: string): Promise<Buffer> {
  const found = await readWheelMetadata(source);
  if (!found) {
    throw new XpuError('BAD_ARCHIVE', `${url} has no <name>-<version>.dist-info/METADATA, so it is not a wheel`, {
      details: { url },
      hints: ['the index lists a file that is not a wheel; report it to the index owner'],
    });
  }
  return found;
}

/**
 * Reads `file`'s METADATA from the wheel: by Range requests when the server honours them, else by downloading it whole
 * (checked against the index's sha256) into `cacheDir`'s download cache, or a temporary one without it.
 */
export async function readRemoteWheelMetadata(
  http: Http,
  file: IndexFile & { sha256: string },
  stats: IndexStats,
  cacheDir: string | undefined,
): Promise<{ metadata: Buffer; read: WheelMetadataRead }> {
  const reader = new RangeReader(http, file.url, stats);
  try {
    const size = await reader.start();
    const metadata = await metadataOf({ label: file.url, size, reader }, file.url);
    return { metadata, read: { how: 'range', fetched: reader.fetched, size } };
  } catch (e) {
    if (!(e instanceof NoRanges)) throw e;
  }
  const dir = cacheDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-setup-wheel-')));
  try {
    const got = await downloadToCache(http, new DownloadCache(dir), file.url, { sha256: file.sha256, size: file.size });
    if (!got.cached) {
      stats.requests++;
      stats.downloadedBytes += got.size;
    }
    return { metadata: await metadataOf(got.path, file.url), read: { how: 'whole', file: got.path, size: got.size } };
  } finally {
    if (!cacheDir) await fs.rm(dir, { recursive: true, force: true });
  }
}
