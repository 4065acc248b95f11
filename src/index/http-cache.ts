// Index requests through the index cache: no request while a response is fresh (Cache-Control max-age), a conditional
// one (ETag / Last-Modified -> 304) after it, and a body kept only once it has arrived whole.
import type { Readable } from 'node:stream';
import { CorruptBody, type IndexCache, type IndexEntry } from '../cache/index-cache.js';
import { XpuError } from '../base/errors.js';
import type { IndexLimits } from '../net/config.js';
import type { Http } from '../net/http.js';
import { PieceStream, type PieceSink, type Pump } from '../base/pieces.js';

export interface IndexGetOptions {
  /** The Accept header; also tells cached answers to different Accepts apart. */
  accept?: string;
  /** Accept-Encoding (the body is kept as sent; the consumer decodes it). */
  acceptEncoding?: string;
  /** The most bytes the body may be as sent, and which limit that is (default: the index limit of the config). */
  maxBytes?: number;
  limit?: keyof IndexLimits;
}

/** What a consumer learns of the response besides its body. */
export interface BodyMeta {
  contentType: string;
  contentEncoding?: string;
  /** Where the body came from: the cache within max-age, the cache after a 304, or the network. */
  outcome: 'fresh' | 'not-modified' | 'downloaded';
  /** The sha256 of a body served from the cache (known before it is read). */
  sha256?: string;
  /** The body's size where known before it is read: a kept body's, or the response's Content-Length. */
  size?: number;
  /** A downloaded body's sha256 once it is kept in the cache, after the read (undefined: not kept). */
  stored?: Promise<string | undefined>;
}

/** What a run's index reads cost: requests made, bytes downloaded, answers from the cache. */
export interface IndexStats {
  requests: number;
  downloadedBytes: number;
  notModified: number;
  fresh: number;
}

/** How long a response may be used without asking again: max-age less Age; no-cache, no-store or none: 0. */
export function freshnessMs(headers: Record<string, string | undefined>): number {
  const cc = (headers['cache-control'] ?? '').toLowerCase();
  if (/(^|[\s,])(no-cache|no-store)([\s,=]|$)/.test(cc)) return 0;
  const m = /(^|[\s,])max-age\s*=\s*"?(\d+)/.exec(cc);
  if (!m) return 0;
  const age = Number(headers.age ?? 0);
  return Math.max(0, (Number(m[2]) - (Number.isFinite(age) ? age : 0)) * 1000);
}

/**
 * How a run uses what the caches hold, one value for the whole run (the gateway holds it):
 * - `use-cache`: a kept answer within its max-age is used without asking, an older one is asked about (304 or new);
 * - `cache-only` (`--offline`): nothing is asked of the network; what is kept is used whatever its age, and what is
 *   not is an OFFLINE error naming the URL;
 * - `refresh` (`--refresh`): every kept answer is asked about once, fresh or not; an unchanged body is not sent again.
 */
export type CachePolicy = 'use-cache' | 'cache-only' | 'refresh';

/** The error of a read the cache cannot answer under `cache-only`. */
export function offlineMiss(url: string): XpuError {
  return new XpuError('OFFLINE', `--offline: ${url} is not in the index cache, and nothing is asked of the network`, {
    details: { url },
    hints: ['run once with the network (same flags, without --offline) to fill the cache, or install from a lockfile or a bundle'],
  });
}

export class CachingHttp {
  readonly stats: IndexStats = { requests: 0, downloadedBytes: 0, notModified: 0, fresh: 0 };

  constructor(
    readonly http: Http,
    /** undefined: nothing is kept (no cache directory). */
    private readonly cache: IndexCache | undefined,
    private readonly now: () => number,
    readonly policy: CachePolicy = 'use-cache',
  ) {}

  /** Whether a response for url is kept and may be used now without asking (never under `refresh`). */
  async isFresh(url: string, opts: IndexGetOptions = {}): Promise<boolean> {
    if (this.policy === 'refresh' || !this.cache) return false;
    const entry = await this.cache.read(url, variantOf(opts));
    return !!entry && this.usable(entry);
  }

  /** The whole body of url (for documents of a few MB at most). */
  async bytes(url: string, opts: IndexGetOptions = {}): Promise<{ bytes: Buffer; meta: BodyMeta }> {
    return this.consume(url, opts, async (body, meta) => {
      const parts: Buffer[] = [];
      for await (const c of body) parts.push(c as Buffer);
      return { bytes: Buffer.concat(parts), meta };
    });
  }

  /**
   * Hands url's body to `consume` as it arrives (from the network or the cache); `consume` may run more than once
   * (a broken connection is retried, a damaged cached body is fetched again), so it must start afresh each time.
   */
  async consume<T>(url: string, opts: IndexGetOptions, consume: (body: Readable, meta: BodyMeta) => Promise<T>): Promise<T> {
    const variant = variantOf(opts);
    let entry = await this.cache?.read(url, variant);
    if (entry && this.policy !== 'refresh' && this.usable(entry)) {
      try {
        const r = await consume(this.cache!.openBody(entry.sha256), metaOf(entry, 'fresh'));
        this.stats.fresh++;
        return r;
      } catch (e) {
        if (!(e instanceof CorruptBody)) throw e;
        entry = undefined;
      }
    }
    if (this.policy === 'cache-only') throw offlineMiss(url);
    // One deadline for the read, whatever its attempts.
    const deadlineAt = this.http.clock.now() + this.http.config.indexDeadlineMs;
    const maxBytes = opts.maxBytes ?? this.http.config.limits.indexBytes;
    const limit = opts.maxBytes === undefined ? 'indexBytes' : opts.limit;
    return this.http.retry(async () => {
      const headers: Record<string, string> = {};
      if (opts.accept) headers.accept = opts.accept;
      if (opts.acceptEncoding) headers['accept-encoding'] = opts.acceptEncoding;
      if (entry?.etag) headers['if-none-match'] = entry.etag;
      if (entry?.lastModified) headers['if-modified-since'] = entry.lastModified;
      this.stats.requests++;
      const res = await this.http.open(url, { headers, index: true, deadlineAt, maxBytes, limit });
      if (res.status === 304) {
        await res.discard();
        if (!entry) throw badStatus(url, 304);
        this.stats.notModified++;
        const renewed: IndexEntry = { ...entry, ...validators(res.headers, entry), checkedAt: this.now(), maxAgeMs: freshnessMs(res.headers) };
        try {
          const r = await consume(this.cache!.openBody(entry.sha256), metaOf(entry, 'not-modified'));
          await this.cache!.write(renewed).catch(() => undefined);
          return r;
        } catch (e) {
          if (!(e instanceof CorruptBody)) throw e;
          // Asked again without validators, so the whole body comes back.
          entry = undefined;
          throw new XpuError('BAD_INDEX', `the cached copy of ${url} is damaged; fetching it again`, { details: { url, retryable: true } });
        }
      }
      if (res.status !== 200) {
        await res.discard();
        throw badStatus(url, res.status);
      }
      const keep = this.cache && !/no-store/i.test(res.headers['cache-control'] ?? '');
      const writer = keep ? await this.cache!.bodyWriter().catch(() => undefined) : undefined;
      let writerFailed = false;
      const tee = new TeeBody(res.pump, (piece) => {
        this.stats.downloadedBytes += piece.length;
        if (!writer || writerFailed) return undefined;
        // A cache that cannot be written (a full disk) costs the next run a download, not this run its index.
        const failed = () => void (writerFailed = true);
        try {
          return writer.take(piece)?.catch(failed);
        } catch {
          return failed();
        }
      });
      const out = new PieceStream((each) => tee.forward(each), () => tee.detach());
      let storedAs: (sha256?: string) => void = () => undefined;
      const stored = new Promise<string | undefined>((resolve) => (storedAs = resolve));
      const meta: BodyMeta = { contentType: res.headers['content-type'] ?? '', contentEncoding: res.headers['content-encoding'], outcome: 'downloaded', size: res.contentLength, stored };
      try {
        const r = await consume(out, meta);
        // The whole body goes to the cache even when the consumer stopped early.
        await tee.drain();
        if (writer && !writerFailed) {
          try {
            const { sha256, size } = await writer.commit();
            await this.cache!.write({
              url,
              variant,
              ...validators(res.headers),
              contentType: meta.contentType || undefined,
              ...(meta.contentEncoding ? { contentEncoding: meta.contentEncoding } : {}),
              checkedAt: this.now(),
              maxAgeMs: freshnessMs(res.headers),
              size,
              sha256,
            });
            storedAs(sha256);
          } catch {
            await writer.abandon();
          }
        } else await writer?.abandon();
        return r;
      } catch (e) {
        await writer?.abandon();
        throw e;
      } finally {
        storedAs(undefined);
        await res.discard();
      }
    });
  }

  /** A kept answer used without asking: within its max-age, or any under `cache-only`. */
  private usable(e: IndexEntry): boolean {
    if (this.policy === 'cache-only') return true;
    const age = this.now() - e.checkedAt;
    return age >= 0 && age < e.maxAgeMs;
  }
}

/**
 * A response body on its way to the cache and to a consumer: each piece goes to `keep` (the cache's writer, which
 * copies it), then to the consumer, straight out of the connection's buffer. A consumer that stops early stops
 * getting pieces and the rest still goes to `keep`; one that fails ends the read.
 */
class TeeBody {
  private running?: Promise<void>;
  private each?: PieceSink;

  constructor(
    private readonly pump: Pump,
    private readonly keep: PieceSink,
  ) {}

  /** The consumer's read: the body, piece by piece, to `keep` and to `each`. */
  forward(each: PieceSink): Promise<void> {
    if (this.running) return Promise.reject(new Error('the body was read twice'));
    this.each = each;
    this.running = this.pump(async (piece) => {
      await this.keep(piece);
      await this.each?.(piece);
    });
    return this.running;
  }

  detach(): void {
    this.each = undefined;
  }

  /** Reads what the consumer left (all of it, when it read none), for `keep` alone. */
  drain(): Promise<void> {
    this.each = undefined;
    return (this.running ??= this.pump(this.keep));
  }
}

function variantOf(opts: IndexGetOptions): string {
  return [opts.accept ?? '', opts.acceptEncoding ?? ''].join('|');
}

function validators(h: Record<string, string | undefined>, before?: IndexEntry): Pick<IndexEntry, 'etag' | 'lastModified' | 'cacheControl'> {
  const out: Pick<IndexEntry, 'etag' | 'lastModified' | 'cacheControl'> = {};
  const etag = h.etag ?? before?.etag;
  const lastModified = h['last-modified'] ?? before?.lastModified;
  const cacheControl = h['cache-control'];
  if (etag) out.etag = etag;
  if (lastModified) out.lastModified = lastModified;
  if (cacheControl) out.cacheControl = cacheControl;
  return out;
}

function metaOf(e: IndexEntry, outcome: BodyMeta['outcome']): BodyMeta {
  return { contentType: e.contentType ?? '', contentEncoding: e.contentEncoding, outcome, sha256: e.sha256, size: e.size };
}

function badStatus(url: string, status: number): XpuError {
  return new XpuError('HTTP_STATUS', `GET ${url} answered HTTP ${status}, which an index request does not expect`, {
    details: { url, status },
    hints: ['the server or a proxy between answers oddly; try again later or use another index'],
  });
}
