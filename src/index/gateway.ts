// The one owner of index reads in a run: conda subdirs (sharded repodata when the channel offers it, else the full
// repodata.json.zst), PyPI project pages and what they point at (METADATA files, JSON API releases), each read once
// per run and kept with its HTTP validators across runs, under the run's cache policy.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { CorruptBody, IndexCache, indexCacheDir } from '../cache/index-cache.js';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { collectCapped, gzipDecompressor, OutputTooLarge, zstdDecompressBytes, zstdDecompressor } from '../formats/decompress.js';
import { systemZstd, type ZstdLibrary } from '../formats/zstd-lib.js';
import { overLimit } from '../net/config.js';
import { Http } from '../net/http.js';
import type { Reporter } from '../base/reporter.js';
import { CONDA_RUNTIME_PACKAGES, parseRepodata, type CondaCandidate, type Repodata } from './repodata.js';
import { CachingHttp, offlineMiss, type BodyMeta, type CachePolicy, type IndexStats } from './http-cache.js';
import { parseProjectPage, projectPageRequest, type IndexFile } from './simple-index.js';
import { DecodedTooLarge, RepodataScanner } from './repodata-scan.js';
import { scanZstdRepodata } from './full-scan.js';
import { readRemoteWheelMetadata } from './wheel-metadata.js';
import { decodeShardIndex, decompressShardIndex, parseShard, readShardIndex, SHARD_INDEX_FILE, shardUrl, shardUrls, type ShardIndex, type ShardIndexInfo } from './shards.js';

export type { CachePolicy } from './http-cache.js';

export interface GatewayOptions {
  /** The download cache directory; the index cache is its `index/` folder. None: nothing is kept across runs. */
  cacheDir?: string;
  /** How the run uses what is cached (default `use-cache`; `--refresh`: `refresh`; `--offline`: `cache-only`). */
  policy?: CachePolicy;
  reporter?: Reporter;
  now?: () => number;
}

/** What a reader of one index is handed: the caching client (and through it the HTTP client) and the index cache. */
interface IndexIo {
  readonly client: CachingHttp;
  /** undefined: nothing is kept across runs. */
  readonly cache?: IndexCache;
}

/** One conda subdir as the gateway reads it: by shard, or by scans of the full file. */
interface SubdirReader {
  kind: 'sharded' | 'full';
  /** NOT_FOUND when the subdir has no index at all. */
  records(names: readonly string[]): Promise<Map<string, CondaCandidate[]>>;
}

export class Gateway {
  readonly client: CachingHttp;
  readonly cache?: IndexCache;
  readonly policy: CachePolicy;
  private readonly io: IndexIo;
  private readonly subdirs = new Map<string, Promise<SubdirReader>>();
  private readonly projects = new Map<string, Promise<IndexFile[]>>();
  private readonly documents = new Map<string, Promise<unknown>>();
  private readonly metadata = new Map<string, Promise<string>>();
  private readonly reporter?: Reporter;

  readonly cacheDir?: string;

  constructor(
    readonly http: Http,
    opts: GatewayOptions = {},
  ) {
    this.cacheDir = opts.cacheDir;
    this.policy = opts.policy ?? 'use-cache';
    this.cache = opts.cacheDir ? new IndexCache(indexCacheDir(opts.cacheDir)) : undefined;
    this.client = new CachingHttp(http, this.cache, opts.now ?? Date.now, this.policy);
    this.io = { client: this.client, cache: this.cache };
    this.reporter = opts.reporter;
  }

  get stats(): IndexStats {
    return this.client.stats;
  }

  /**
   * The records of exactly these package names in one channel subdir (none for a name the subdir lacks). A subdir
   * that does not exist answers nothing when `optional` (noarch may be absent), else NOT_FOUND.
   */
  async condaRecords(channel: string, subdir: string, names: readonly string[], opts: { optional?: boolean } = {}): Promise<CondaCandidate[]> {
    const unique = [...new Set(names)];
    let found: Map<string, CondaCandidate[]>;
    try {
      found = await (await this.subdir(channel, subdir)).records(unique);
    } catch (e) {
      if (opts.optional && e instanceof XpuError && e.code === 'NOT_FOUND') return [];
      throw e;
    }
    return unique.flatMap((n) => found.get(n) ?? []);
  }

  /** Whether the subdir is read through shards (known once a query has been made, or made now). */
  async condaSubdirKind(channel: string, subdir: string): Promise<SubdirReader['kind']> {
    return (await this.subdir(channel, subdir)).kind;
  }

  private subdir(channel: string, subdir: string): Promise<SubdirReader> {
    const dir = `${channel.replace(/\/+$/, '')}/${subdir}`;
    return once(this.subdirs, dir, () => this.openSubdir(dir));
  }

  private async openSubdir(dir: string): Promise<SubdirReader> {
    const indexUrl = `${dir}/${SHARD_INDEX_FILE}`;
    const full = () => new FullFileReader(this.io, `${dir}/repodata.json`, this.reporter);
    // A full file still fresh in the cache was read because there was no shard index: no need to ask again yet.
    if (await this.client.isFresh(`${dir}/repodata.json.zst`)) return full();
    let index: ShardLookups | undefined;
    try {
      index = await shardLookups(this.io, indexUrl);
    } catch (e) {
      if (!(e instanceof XpuError) || e.code !== 'NOT_FOUND') throw e;
    }
    return index ? new ShardedReader(this.io, `${dir}/repodata.json`, index) : full();
  }

  /** The files of one project on a PyPI-style index (`/pypi` URLs: the JSON API; others: the simple API). */
  pypiProjectFiles(indexUrl: string, project: string): Promise<IndexFile[]> {
    const { url, accept, jsonApi } = projectPageRequest(indexUrl, project);
    return once(this.projects, url, () => this.client.bytes(url, { accept }).then(({ bytes, meta }) => parseProjectPage(bytes.toString('utf8'), url, meta.contentType, jsonApi)));
  }

  /**
   * A small JSON document of an index (a PyPI JSON API release: `…/pypi/<project>/<version>/json`), read once per run
   * and kept with its validators like every other index answer.
   */
  json<T>(url: string): Promise<T> {
    return once(this.documents, url, () =>
      this.client.bytes(url, { accept: 'application/json' }).then(({ bytes }) => {
        try {
          return JSON.parse(bytes.toString('utf8')) as T;
        } catch (e) {
          throw new XpuError('BAD_INDEX', `${url} did not return valid JSON`, {
            cause: e,
            details: { url },
            hints: ['check that the URL points at the index itself (not a web page or a login portal)'],
          });
        }
      }),
    ) as Promise<T>;
  }

  /**
   * A wheel's core metadata: the METADATA file the index serves beside it as `<url>.metadata` (PEP 658), checked against
   * the hash the index gives for it; else read from the wheel itself (wheel-metadata.ts) and kept in the index cache
   * under the wheel's sha256.
   */
  coreMetadata(file: IndexFile): Promise<string> {
    if (!file.coreMetadata) return this.metadataFromWheel(file);
    const url = `${file.url}.metadata`;
    return once(this.metadata, url, () =>
      this.client.bytes(url, { maxBytes: this.http.config.limits.metadataBytes, limit: 'metadataBytes' }).then(({ bytes }) => {
        const want = file.coreMetadata === true ? undefined : file.coreMetadata;
        const got = createHash('sha256').update(bytes).digest('hex');
        if (want && got !== want) {
          throw new XpuError('HASH_MISMATCH', `sha256 mismatch for ${url}: the index promised ${want}, the server sent ${got}`, {
            details: { url, expected: want, actual: got },
            hints: ['the index and the file server disagree; try again later, or report it to the index owner'],
          });
        }
        return bytes.toString('utf8');
      }),
    );
  }

  private metadataFromWheel(file: IndexFile): Promise<string> {
    return once(this.metadata, file.url, async () => {
      const sha256 = file.sha256;
      if (!sha256) throw new XpuError('BAD_INDEX', `${file.url}: the index gives no sha256 for it, so it is not read`, { details: { url: file.url } });
      const kept = await this.cache?.readDerived(sha256, 'wheel-metadata');
      if (kept) {
        this.client.stats.fresh++;
        return kept.toString('utf8');
      }
      if (this.policy === 'cache-only') throw offlineMiss(file.url);
      const { metadata, read } = await readRemoteWheelMetadata(this.http, { ...file, sha256 }, this.client.stats, this.cacheDir);
      this.reporter?.debug(
        read.how === 'range'
          ? `${file.filename}: no metadata file on the index; METADATA read from the wheel by Range requests (${read.fetched} of ${read.size} bytes)`
          : `${file.filename}: no metadata file on the index and no Range requests on its server; the wheel was downloaded whole (${read.size} bytes) for its METADATA`,
      );
      await this.cache?.putDerived(sha256, 'wheel-metadata', metadata).catch(() => undefined);
      return metadata.toString('utf8');
    });
  }
}

/** The run's one answer for `key`: made once, and made again by a later ask when it failed (unreachable, say). */
function once<T>(memo: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = memo.get(key);
  if (!p) {
    p = make();
    memo.set(key, p);
    p.catch(() => memo.delete(key));
  }
  return p;
}

/**
 * A shard index as the run looks names up in it. What earlier runs looked up in the same index body is kept beside
 * it: a plan whose names were all looked up before neither reads nor decodes the index (a MB, tens of thousands of
 * names). The index itself is kept decompressed: starting the zstd program for a MB costs more than a warm plan.
 */
function shardLookups(io: IndexIo, url: string): Promise<ShardLookups> {
  const limits = io.client.http.config.limits;
  return io.client.consume(url, { maxBytes: limits.shardIndexDecoded, limit: 'shardIndexDecoded' }, async (body, meta) => {
    if (meta.sha256 && io.cache) {
      const kept = parseLookups(await io.cache.readDerived(meta.sha256, 'lookups'));
      if (kept) {
        body.destroy();
        return new ShardLookups(io, url, meta.sha256, kept);
      }
    }
    const { bytes, raw } = await readShardIndex(body, url, limits);
    const sha = meta.sha256 ?? createHash('sha256').update(bytes).digest('hex');
    const index = await decodeShardIndex(raw, url, limits);
    await io.cache?.putDerived(sha, 'msgpack', raw).catch(() => undefined);
    return new ShardLookups(io, url, sha, { info: index.info, shards: {} }, index);
  });
}

/** The shard index whose body has this sha256: its kept decompressed form, or its kept body decompressed again. */
async function decodedShardIndex(io: IndexIo, url: string, sha: string): Promise<ShardIndex> {
  const limits = io.client.http.config.limits;
  const kept = await io.cache?.readDerived(sha, 'msgpack');
  if (kept) {
    try {
      return await decodeShardIndex(kept, url, limits);
    } catch {
      // damaged: decompressed again below
    }
  }
  let bytes = await io.cache?.readBody(sha).catch(() => undefined);
  if (!bytes) {
    // The body went away since this run found it (a `cache clean` in between): fetched again, whatever it is now.
    bytes = (await io.client.bytes(url, { maxBytes: limits.shardIndexDecoded, limit: 'shardIndexDecoded' })).bytes;
    sha = createHash('sha256').update(bytes).digest('hex');
  }
  const raw = await decompressShardIndex(bytes, url, limits);
  const index = await decodeShardIndex(raw, url, limits);
  await io.cache?.putDerived(sha, 'msgpack', raw).catch(() => undefined);
  return index;
}

/**
 * One shard as repodata: a content-addressed document, kept for good once its sha256 is checked, and kept decoded
 * beside it (decompressing and decoding msgpack cost a warm plan more than reading a few KB of JSON).
 */
async function readShardDoc(io: IndexIo, url: string, sha256: string, what: string): Promise<Repodata> {
  const kept = parseKeptRepodata(await io.cache?.readDerived(sha256, 'json'));
  if (kept) {
    io.client.stats.fresh++;
    return kept;
  }
  const doc = await parseShard(await immutable(io, url, sha256, what), url, io.client.http.config.limits);
  await io.cache?.putDerived(sha256, 'json', Buffer.from(JSON.stringify(doc))).catch(() => undefined);
  return doc;
}

/** A content-addressed document (a shard): from the cache when there, else downloaded, checked, kept for good. */
async function immutable(io: IndexIo, url: string, sha256: string, what: string): Promise<Buffer> {
  const { client, cache } = io;
  const http = client.http;
  try {
    const kept = await cache?.readBody(sha256);
    if (kept) {
      client.stats.fresh++;
      return kept;
    }
  } catch {
    // a damaged copy was removed; download it again
  }
  if (client.policy === 'cache-only') throw offlineMiss(url);
  const deadlineAt = http.clock.now() + http.config.indexDeadlineMs;
  const bytes = await http.retry(async () => {
    client.stats.requests++;
    const res = await http.open(url, { index: true, deadlineAt, maxBytes: http.config.limits.shardDecoded, limit: 'shardDecoded' });
    const parts: Buffer[] = [];
    try {
      for await (const c of res.body) {
        parts.push(c as Buffer);
        client.stats.downloadedBytes += (c as Buffer).length;
      }
    } finally {
      await res.discard();
    }
    return Buffer.concat(parts);
  }).catch((e: unknown) => {
    if (e instanceof XpuError && e.code === 'NOT_FOUND') {
      throw new XpuError('BAD_INDEX', `${what} is missing: ${url} answered HTTP ${String(e.details.status)}`, {
        cause: e,
        details: { url, status: e.details.status },
        hints: ['the channel lists a shard it does not serve; try again later (it may be mid-update), or report it to the channel owner'],
      });
    }
    throw e;
  });
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== sha256) {
    throw new XpuError('HASH_MISMATCH', `sha256 mismatch for ${what} (${url}): the shard index promised ${sha256}, got ${got}`, {
      details: { url, expected: sha256, actual: got },
      hints: ['the shard differs from what the channel\'s shard index lists; nothing was used. Try again later, or report it to the channel owner'],
    });
  }
  await cache?.putBody(bytes, sha256).catch(() => undefined);
  return bytes;
}

/** What was looked up in one shard index body: its `info` directories, and name -> shard sha256 (null: no such name). */
interface Lookups {
  info: ShardIndexInfo;
  shards: Record<string, string | null>;
}

function parseLookups(kept: Buffer | undefined): Lookups | undefined {
  if (!kept) return undefined;
  try {
    const v = JSON.parse(kept.toString('utf8')) as Lookups;
    const dirsOk = v?.info && typeof v.info === 'object' && Object.values(v.info).every((d) => typeof d === 'string');
    const shardsOk = v?.shards && typeof v.shards === 'object' && Object.values(v.shards).every((h) => h === null || (typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)));
    return dirsOk && shardsOk ? v : undefined;
  } catch {
    return undefined;
  }
}

function parseKeptRepodata(kept: Buffer | undefined): Repodata | undefined {
  if (!kept) return undefined;
  try {
    const v = JSON.parse(kept.toString('utf8')) as Repodata;
    return v && typeof v === 'object' && (v.packages || v['packages.conda']) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Name lookups in one shard index: answered from what earlier runs looked up, the index opened only for a new name. */
class ShardLookups {
  readonly urls: { baseUrl: string; shardsBaseUrl: string };
  private index?: Promise<ShardIndex>;
  private saving = Promise.resolve();

  constructor(
    private readonly io: IndexIo,
    readonly url: string,
    private readonly sha256: string,
    private readonly kept: Lookups,
    index?: ShardIndex,
  ) {
    this.urls = shardUrls(kept.info, url);
    if (index) this.index = Promise.resolve(index);
  }

  /** The shard sha256 of each name (undefined: the subdir has no such name). */
  async shardsOf(names: readonly string[]): Promise<Map<string, string | undefined>> {
    const fresh = names.filter((n) => !(n in this.kept.shards));
    if (fresh.length) {
      this.index ??= decodedShardIndex(this.io, this.url, this.sha256);
      this.index.catch(() => (this.index = undefined));
      const index = await this.index;
      for (const n of fresh) this.kept.shards[n] = index.shardOf(n) ?? null;
      const doc = Buffer.from(JSON.stringify(this.kept));
      this.saving = this.saving.then(() => this.io.cache?.putDerived(this.sha256, 'lookups', doc).catch(() => undefined));
      await this.saving;
    }
    return new Map(names.map((n) => [n, this.kept.shards[n] ?? undefined]));
  }
}

/** A subdir with a shard index: one shard per wanted name, each fetched once per run and cached forever. */
class ShardedReader implements SubdirReader {
  readonly kind = 'sharded';
  private readonly byName = new Map<string, Promise<CondaCandidate[]>>();

  constructor(
    private readonly io: IndexIo,
    private readonly repodataUrl: string,
    private readonly index: ShardLookups,
  ) {}

  async records(names: readonly string[]): Promise<Map<string, CondaCandidate[]>> {
    // The GCC runtime packages a closure asks for next come along with the first names: one round of requests for the
    // whole runtime chain (libstdcxx -> libgcc -> _openmp_mutex -> ...) instead of one per level of it.
    const ahead = this.byName.size ? [] : CONDA_RUNTIME_PACKAGES;
    const fresh = [...new Set([...names, ...ahead])].filter((n) => !this.byName.has(n));
    if (fresh.length) {
      const shas = this.index.shardsOf(fresh);
      for (const n of fresh) {
        const p = shas.then((m) => this.load(n, m.get(n)));
        this.byName.set(n, p);
        p.catch(() => this.byName.delete(n));
      }
    }
    const out = new Map<string, CondaCandidate[]>();
    await Promise.all(names.map(async (n) => out.set(n, await this.byName.get(n)!)));
    return out;
  }

  private async load(name: string, sha: string | undefined): Promise<CondaCandidate[]> {
    if (!sha) return [];
    const url = shardUrl(this.index.urls.shardsBaseUrl, sha);
    const doc = await readShardDoc(this.io, url, sha, `the shard of ${name} in ${this.index.url}`);
    const all = parseRepodata({ ...doc, info: { base_url: this.index.urls.baseUrl }, repodata_version: 2 }, this.repodataUrl, url);
    return all.filter((c) => c.name === name);
  }
}

/**
 * A subdir without shards: repodata.json.zst scanned for the wanted names. Names asked for while a scan runs wait
 * for the next one, which takes all of them at once; later scans read the cached body, not the network.
 */
class FullFileReader implements SubdirReader {
  readonly kind = 'full';
  private readonly known = new Map<string, CondaCandidate[]>();
  private pending = new Set<string>();
  private running?: Promise<void>;
  /** Set when the .zst is absent and the plain file is read instead. */
  private plain = false;
  /** The subdir has no repodata at all (both files answered 404): kept for the run. */
  private missing?: XpuError;

  constructor(
    private readonly io: IndexIo,
    private readonly url: string,
    private readonly reporter?: Reporter,
  ) {}

  async records(names: readonly string[]): Promise<Map<string, CondaCandidate[]>> {
    if (this.missing) throw this.missing;
    for (const n of names) if (!this.known.has(n)) this.pending.add(n);
    while (names.some((n) => !this.known.has(n))) {
      if (!this.running) {
        // A scan reads hundreds of MB for any number of names: the runtime packages a closure asks for next come along.
        for (const n of CONDA_RUNTIME_PACKAGES) if (!this.known.has(n)) this.pending.add(n);
        const batch = [...this.pending];
        this.pending = new Set();
        this.running = this.scan(batch).finally(() => (this.running = undefined));
      }
      await this.running;
    }
    return new Map(names.map((n) => [n, this.known.get(n)!]));
  }

  private async scan(batch: string[]): Promise<void> {
    let scanned: Scanned;
    if (!this.plain) {
      try {
        scanned = await this.io.client.consume(`${this.url}.zst`, {}, (body, meta) => this.scanKept(body, meta, batch, () => scanBody(body, `${this.url}.zst`, batch, 'zstd', { size: meta.size, maxBytes: this.io.client.http.config.limits.repodataDecoded })));
      } catch (e) {
        if (!(e instanceof XpuError) || e.code !== 'NOT_FOUND') throw e;
        this.plain = true;
        this.reporter?.note(`${this.url}.zst is not there (HTTP 404); reading ${this.url} instead, gzip-compressed where the server can`);
      }
    }
    if (this.plain) {
      try {
        scanned = await this.io.client.consume(this.url, { acceptEncoding: 'gzip' }, (body, meta) => this.scanKept(body, meta, batch, () => scanBody(body, this.url, batch, encodingOf(meta), { size: meta.size, maxBytes: this.io.client.http.config.limits.repodataDecoded })));
      } catch (e) {
        if (e instanceof XpuError && e.code === 'NOT_FOUND') this.missing = e;
        throw e;
      }
    }
    await scanned!.keeping;
    const found = parseRepodata(scanned!.doc, this.url);
    for (const n of batch) this.known.set(n, []);
    for (const c of found) this.known.get(c.name)?.push(c);
  }

  /**
   * A cached body already scanned for these names answers from what that scan found (kept beside the body), so a
   * warm plan does not decompress and search hundreds of MB again; otherwise it is scanned and the answer kept, for a
   * downloaded body once the body itself is kept (after `consume` returns: `keeping`).
   */
  private async scanKept(body: Readable, meta: BodyMeta, names: string[], scan: () => Promise<Repodata>): Promise<Scanned> {
    const cache = this.io.cache;
    if (!cache) return { doc: await scan() };
    const form = `records-${createHash('sha256').update([...names].sort().join('\n')).digest('hex').slice(0, 16)}` as const;
    if (!meta.sha256) {
      // A downloaded body: what was found goes beside it once it is kept, so the next plan reads none of it either.
      const doc = await scan();
      return { doc, keeping: meta.stored?.then((sha) => (sha ? cache.putDerived(sha, form, Buffer.from(JSON.stringify(doc))) : undefined)).catch(() => undefined) };
    }
    const kept = parseKeptRepodata(await cache.readDerived(meta.sha256, form));
    if (kept) {
      body.destroy();
      return { doc: kept };
    }
    const doc = await scan();
    await cache.putDerived(meta.sha256, form, Buffer.from(JSON.stringify(doc))).catch(() => undefined);
    return { doc };
  }
}

/** What one scan of a subdir's body found, and what of it is still on its way into the cache. */
interface Scanned {
  doc: Repodata;
  keeping?: Promise<unknown>;
}

function encodingOf(meta: BodyMeta): 'gzip' | 'identity' {
  return /gzip/i.test(meta.contentEncoding ?? '') ? 'gzip' : 'identity';
}

/**
 * A zstd body of this size or less (a channel of a few packages) is decoded whole (zstdDecompressBytes: Node's own
 * zstd, or on Node 20 fzstd for one of 64 KiB or less), not by the zstd library's binding, which costs about 20 ms
 * to load (koffi).
 */
const SMALL_ZSTD = 256 * 1024;
/** ...and held whole only while it decodes to this much at most. */
const SMALL_ZSTD_DECODED = 16 << 20;

/**
 * Streams one repodata document (zstd, gzip or plain) through the scanner, keeping only wanted records. zstd goes to
 * the zstd this process can call when there is one (`zstd` says which; false: the stream decompressors), in a worker
 * thread when the body is large or of unknown `size`; a small one is decoded whole (SMALL_ZSTD).
 */
async function scanBody(
  body: Readable,
  url: string,
  names: readonly string[],
  encoding: 'zstd' | 'gzip' | 'identity',
  opts: { zstd?: ZstdLibrary | false; size?: number; maxBytes?: number } = {},
): Promise<Repodata> {
  try {
    const small = encoding === 'zstd' && opts.size !== undefined && opts.size <= SMALL_ZSTD;
    const lib = encoding === 'zstd' && opts.zstd !== false ? (opts.zstd ?? (small ? undefined : systemZstd())) : undefined;
    if (lib) return await scanZstdRepodata(body, names, lib, { size: opts.size, maxBytes: opts.maxBytes });
    const scanner = new RepodataScanner(names, opts.maxBytes);
    if (small) {
      const bytes = await collectCapped(body, SMALL_ZSTD);
      const whole = await zstdDecompressBytes(bytes, Math.min(SMALL_ZSTD_DECODED, opts.maxBytes ?? Infinity)).catch((e: unknown) => {
        if (e instanceof OutputTooLarge) return undefined;
        throw e;
      });
      if (whole) {
        scanner.push(whole);
        return scanner.result();
      }
      // More than a small document holds (a bomb, or mostly whitespace): scanned as it decodes, never held whole.
      body = Readable.from([bytes]);
    }
    const bytes = encoding === 'zstd' ? body.pipe(batches()).pipe(await zstdDecompressor()) : encoding === 'gzip' ? body.pipe(gzipDecompressor()) : body;
    if (bytes !== body) body.on('error', (e) => bytes.destroy(e));
    try {
      for await (const chunk of bytes) scanner.push(chunk as Buffer);
    } catch (e) {
      // As the zstd scan does: the rest of the body is read (no reader left waiting on it), and a body that fails
      // itself (a cached copy whose sha256 is checked at its end) is the better cause.
      if (bytes !== body) {
        body.unpipe();
        for await (const _ of body) void _;
      }
      throw e;
    }
    return scanner.result();
  } catch (e) {
    if (e instanceof XpuError || e instanceof CorruptBody) throw e;
    if (e instanceof DecodedTooLarge) throw overLimit(url, encoding === 'identity' ? 'is' : 'decompresses to', e.limit, 'repodataDecoded', opts.size);
    throw new XpuError('BAD_INDEX', `${url} is not valid${encoding === 'identity' ? '' : ` ${encoding}-compressed`} repodata JSON: ${(e as Error).message}`, {
      cause: e,
      details: { url },
      hints: ['check that the channel URL points at a conda channel (the directory holding <subdir>/repodata.json)'],
    });
  }
}

/**
 * Network chunks gathered into 1 MiB writes: a decompressor in another process (the zstd program) otherwise costs a
 * pipe write per socket read, which took more CPU than the scan on a loaded machine.
 */
function batches(): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      parts.push(chunk);
      size += chunk.length;
      if (size < 1 << 20) return cb();
      const out = Buffer.concat(parts);
      parts = [];
      size = 0;
      cb(null, out);
    },
    flush(cb) {
      cb(null, parts.length ? Buffer.concat(parts) : undefined);
    },
  });
}

/**
 * The run's gateway, built once where a run starts (pipeline/) and handed to every plan, lock and fetch of that run:
 * one HTTP client (one connection pool) and one index cache, so several platforms share every index read.
 */
export function openGateway(deps: Pick<Deps, 'env' | 'now'>, opts: Omit<GatewayOptions, 'now'> = {}): Gateway {
  return new Gateway(new Http(deps.env), { ...opts, now: () => deps.now() });
}
