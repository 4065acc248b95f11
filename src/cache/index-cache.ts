// The index cache under <cache-dir>/index/: each index response's body (named by its sha256) beside a small record of
// its URL and HTTP validators; everything written to a temp file and renamed, so a kill or a second run never sees half.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Where the index cache lives inside the download cache directory. */
export function indexCacheDir(cacheDir: string): string {
  return path.join(cacheDir, 'index');
}

/** What is kept of one response: enough to serve it while fresh and to ask conditionally after. */
export interface IndexEntry {
  url: string;
  /** What the request asked for (its Accept header): one URL can answer in several formats. */
  variant: string;
  etag?: string;
  lastModified?: string;
  cacheControl?: string;
  contentType?: string;
  /** Content-Encoding of the body as kept (a gzip-encoded plain repodata.json stays gzip). */
  contentEncoding?: string;
  /** Epoch ms when the last response (200 or 304) for it arrived. */
  checkedAt: number;
  /** How long after checkedAt the body may be used without asking (0: ask every time). */
  maxAgeMs: number;
  size: number;
  sha256: string;
}

/**
 * A form of a body kept beside it, removed with it: `msgpack` (a shard index decompressed), `lookups` (the names looked
 * up in a shard index), `json` (a conda shard as repodata JSON) or `records-<key>` (the records a full repodata scan
 * found for one set of names). `wheel-metadata` is the exception: a wheel's METADATA, read from the wheel where the
 * index serves no metadata file, kept under the wheel's sha256 (no index body goes with it) until `cache clean`.
 */
export type DerivedForm = 'msgpack' | 'lookups' | 'json' | 'wheel-metadata' | `records-${string}`;

/** A stored body whose bytes no longer match the hash it was stored under. */
export class CorruptBody extends Error {
  constructor(readonly file: string) {
    super(`${file} does not match its sha256`);
  }
}

/** How much of a kept body is read at a time, and gathered before each write of a new one. */
const BODY_CHUNK = 1 << 20;

/**
 * A new body's file, hashed as it comes and written in BODY_CHUNK pieces from two reused buffers (one filling while
 * the other is written): a write per network chunk cost a 100 MB body some 1,600 trips through the stream machinery
 * and the thread pool, more CPU than the bytes themselves.
 */
function gatheredFile(file: string, hash: Hash): Writable & { size: number } {
  let fh: fs.FileHandle | undefined;
  let filling = Buffer.allocUnsafe(BODY_CHUNK);
  let spare = Buffer.allocUnsafe(BODY_CHUNK);
  let filled = 0;
  let writing: Promise<void> = Promise.resolve();
  const writeAll = async (h: fs.FileHandle, b: Buffer, n: number) => {
    for (let at = 0; at < n; ) at += (await h.write(b, at, n - at)).bytesWritten;
  };
  /** Starts writing what is gathered (after the write before it), and gathers on into the other buffer. */
  const flush = async () => {
    await writing;
    if (!fh) throw new Error(`${file} was closed before it was written`);
    const full = filling;
    const n = filled;
    [filling, spare] = [spare, full];
    filled = 0;
    writing = writeAll(fh, full, n);
    // Seen by the next flush, final or destroy; a stream destroyed meanwhile would leave it unhandled.
    writing.catch(() => undefined);
  };
  const stream = Object.assign(
    new Writable({
      highWaterMark: BODY_CHUNK,
      construct(cb) {
        fs.open(file, 'w').then((h) => {
          // Destroyed while it opened: nothing will write to it.
          if (stream.destroyed) void h.close().catch(() => undefined);
          else fh = h;
          cb();
        }, cb);
      },
      write(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        stream.size += chunk.length;
        const n = chunk.copy(filling, filled);
        filled += n;
        if (filled < BODY_CHUNK) return cb();
        // A chunk larger than what was left goes on in the other buffer once this one is on its way.
        void (async () => {
          for (let at = n; ; ) {
            await flush();
            if (at >= chunk.length) return;
            const m = chunk.copy(filling, 0, at);
            filled = m;
            at += m;
            if (filled < BODY_CHUNK) return;
          }
        })().then(() => cb(), cb);
      },
      final(cb) {
        void (async () => {
          if (filled) await flush();
          await writing;
          await fh!.close();
          fh = undefined;
        })().then(() => cb(), cb);
      },
      destroy(err, cb) {
        const h = fh;
        fh = undefined;
        void writing
          .catch(() => undefined)
          .then(() => h?.close())
          .then(
            () => cb(err),
            () => cb(err),
          );
      },
    }),
    { size: 0 },
  );
  return stream;
}

export class IndexCache {
  constructor(readonly root: string) {}

  private mkdir(dir: string): Promise<unknown> {
    return fs.mkdir(dir, { recursive: true });
  }

  private entryPath(url: string, variant: string): string {
    const key = createHash('sha256').update(`${variant}\n${url}`).digest('hex');
    return path.join(this.root, 'entries', key.slice(0, 2), `${key}.json`);
  }

  /** The file that holds the body with this sha256 (index bodies and conda shards alike). */
  bodyPath(sha256: string): string {
    return path.join(this.root, 'bodies', sha256.slice(0, 2), sha256);
  }

  /** The entry for a URL, or undefined when there is none, it cannot be read, or its body is gone. */
  async read(url: string, variant: string): Promise<IndexEntry | undefined> {
    let e: IndexEntry;
    try {
      e = JSON.parse(await fs.readFile(this.entryPath(url, variant), 'utf8')) as IndexEntry;
    } catch {
      return undefined;
    }
    if (e?.url !== url || e.variant !== variant || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) return undefined;
    const st = await fs.stat(this.bodyPath(e.sha256)).catch(() => undefined);
    return st?.size === e.size ? e : undefined;
  }

  /** Records an entry (after a 200, or a 304 that renews it); a body it replaces is removed. */
  async write(entry: IndexEntry): Promise<void> {
    const file = this.entryPath(entry.url, entry.variant);
    const before = await this.read(entry.url, entry.variant);
    await this.atomicWrite(file, JSON.stringify(entry));
    if (before && before.sha256 !== entry.sha256) await this.removeBody(before.sha256);
  }

  private async removeBody(sha256: string): Promise<void> {
    const dir = path.dirname(this.bodyPath(sha256));
    for (const f of await fs.readdir(dir).catch(() => [] as string[])) {
      if (f === sha256 || f.startsWith(`${sha256}.`)) await fs.rm(path.join(dir, f), { force: true }).catch(() => undefined);
    }
  }

  private derivedPath(sha256: string, form: DerivedForm): string {
    return `${this.bodyPath(sha256)}.${form}`;
  }

  /** A form of the body with this hash kept beside it (the caller checks it as it reads it); undefined when absent. */
  async readDerived(sha256: string, form: DerivedForm): Promise<Buffer | undefined> {
    return fs.readFile(this.derivedPath(sha256, form)).catch(() => undefined);
  }

  async putDerived(sha256: string, form: DerivedForm, bytes: Buffer): Promise<void> {
    await this.atomicWrite(this.derivedPath(sha256, form), bytes);
  }

  /** Forgets an entry and its body (a body that failed its hash). */
  async remove(entry: IndexEntry): Promise<void> {
    await fs.rm(this.entryPath(entry.url, entry.variant), { force: true }).catch(() => undefined);
    await this.removeBody(entry.sha256);
  }

  /** The body with this hash, whole, checked; undefined when absent; CorruptBody (and removed) when damaged. */
  async readBody(sha256: string): Promise<Buffer | undefined> {
    const file = this.bodyPath(sha256);
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(file);
    } catch {
      return undefined;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      await fs.rm(file, { force: true }).catch(() => undefined);
      throw new CorruptBody(file);
    }
    return bytes;
  }

  /**
   * The body as a stream, checked as it is read: a damaged one fails at its end with CorruptBody (and is removed).
   * Nothing is read until the consumer reads: one that only needed to know the body is there reads none of it.
   */
  openBody(sha256: string): Readable {
    const file = this.bodyPath(sha256);
    async function* chunks(): AsyncGenerator<Buffer> {
      const hash = createHash('sha256');
      const fh = await fs.open(file);
      try {
        for (;;) {
          const { bytesRead, buffer } = await fh.read(Buffer.allocUnsafe(BODY_CHUNK), 0, BODY_CHUNK, null);
          if (!bytesRead) break;
          const chunk = buffer.subarray(0, bytesRead);
          hash.update(chunk);
          yield chunk;
        }
      } finally {
        await fh.close();
      }
      if (hash.digest('hex') !== sha256) {
        await fs.rm(file, { force: true }).catch(() => undefined);
        throw new CorruptBody(file);
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
  }

  /** Stores bytes under their sha256 (already computed by the caller, or computed here). */
  async putBody(bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')): Promise<string> {
    await this.atomicWrite(this.bodyPath(sha256), bytes);
    return sha256;
  }

  /**
   * A writer for a body arriving in pieces: `stream` takes the bytes, `commit` moves them under their hash and
   * answers it, `abandon` removes them.
   */
  async bodyWriter(): Promise<{ stream: Writable; done: Promise<void>; commit(): Promise<{ sha256: string; size: number }>; abandon(): Promise<void> }> {
    const tmp = await this.tempPath();
    const hash = createHash('sha256');
    const stream = gatheredFile(tmp, hash);
    const done = finished(stream);
    done.catch(() => undefined);
    return {
      stream,
      done,
      commit: async () => {
        await done;
        const sha256 = hash.digest('hex');
        const final = this.bodyPath(sha256);
        await this.mkdir(path.dirname(final));
        await fs.rename(tmp, final);
        return { sha256, size: stream.size };
      },
      abandon: async () => {
        stream.destroy();
        await done.catch(() => undefined);
        await fs.rm(tmp, { force: true }).catch(() => undefined);
      },
    };
  }

  private async tempPath(): Promise<string> {
    const dir = path.join(this.root, 'tmp');
    await this.mkdir(dir);
    return path.join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.part`);
  }

  private async atomicWrite(file: string, data: string | Buffer): Promise<void> {
    const tmp = await this.tempPath();
    try {
      await fs.writeFile(tmp, data);
      await this.mkdir(path.dirname(file));
      await fs.rename(tmp, file);
    } catch (e) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw e;
    }
  }
}
