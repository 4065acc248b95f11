// The index cache under <cache-dir>/index/: each index response's body (named by its sha256) beside a small record of
// its URL and HTTP validators; everything written to a temp file and renamed, so a kill or a second run never sees half.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { alive } from '../base/lock-owner.js';
import { BatchedWriter, filePieces, PieceStream } from '../base/pieces.js';

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
    // Read into one reused buffer, handed on as pieces (a stream reader gets copies).
    return new PieceStream(async (each) => {
      const hash = createHash('sha256');
      await filePieces(file)((piece) => {
        hash.update(piece);
        return each(piece);
      });
      if (hash.digest('hex') !== sha256) {
        await fs.rm(file, { force: true }).catch(() => undefined);
        throw new CorruptBody(file);
      }
    });
  }

  /** Stores bytes under their sha256 (already computed by the caller, or computed here). */
  async putBody(bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')): Promise<string> {
    await this.atomicWrite(this.bodyPath(sha256), bytes);
    return sha256;
  }

  /**
   * A new body, taken piece by piece (each copied before `take` returns or its promise settles, so pieces may come
   * straight out of a connection's buffers), hashed as it comes; `commit` stores it under its sha256, `abandon` drops it.
   */
  async bodyWriter(): Promise<{ take(piece: Buffer): Promise<void> | undefined; commit(): Promise<{ sha256: string; size: number }>; abandon(): Promise<void> }> {
    const tmp = await this.tempPath();
    const hash = createHash('sha256');
    const out = new BatchedWriter(await fs.open(tmp, 'w'));
    let size = 0;
    return {
      take: (piece) => {
        hash.update(piece);
        size += piece.length;
        return out.put(piece);
      },
      commit: async () => {
        await out.close();
        const sha256 = hash.digest('hex');
        const final = this.bodyPath(sha256);
        await this.mkdir(path.dirname(final));
        await fs.rename(tmp, final);
        return { sha256, size };
      },
      abandon: async () => {
        await out.end();
        await fs.rm(tmp, { force: true }).catch(() => undefined);
      },
    };
  }

  private swept = false;

  private async tempPath(): Promise<string> {
    const dir = path.join(this.root, 'tmp');
    await this.mkdir(dir);
    if (!this.swept) {
      this.swept = true;
      await sweepParts(dir).catch(() => undefined);
    }
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

/** A part file this old with no live writer here is left over (its writer was killed); one a day old, whatever wrote it. */
const DEAD_WRITER_MS = 10 * 60_000;
const ANY_WRITER_MS = 24 * 3600_000;

/** Removes `<pid>-*.part` files a killed run (kill -9, a lost machine) left in the index cache's tmp folder. */
async function sweepParts(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await fs.readdir(dir)) {
    const m = /^(\d+)-[0-9a-f]+\.part$/.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    const st = await fs.stat(file).catch(() => undefined);
    if (!st) continue;
    const age = now - st.mtimeMs;
    if (age > ANY_WRITER_MS || (age > DEAD_WRITER_MS && !alive(Number(m[1])))) await fs.rm(file, { force: true }).catch(() => undefined);
  }
}
