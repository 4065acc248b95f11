// Sharded conda repodata (CEP-16): the shard index (package name -> sha256 of its shard) and the shards themselves,
// msgpack documents whose records are those of repodata.json with sha256 and md5 as bytes.
import { XpuError } from '../base/errors.js';
import type { Readable } from 'node:stream';
import { collectCapped, OutputTooLarge, zstdDecompressBytes, zstdDecompressor } from '../formats/decompress.js';
import { DEFAULT_INDEX_LIMITS, LIMIT_ENV, overLimit, type IndexLimits } from '../net/config.js';
import { urlFromIndex } from '../net/url-rule.js';
import type { Repodata, RepodataRecord } from './repodata.js';

export const SHARD_INDEX_FILE = 'repodata_shards.msgpack.zst';

export interface ShardIndex {
  /** Where package files are, absolute. */
  baseUrl: string;
  /** Where shards are, absolute, ending in `/`. */
  shardsBaseUrl: string;
  /** The index's own `info` directories, as written (kept with lookups: the same index may be read from another URL). */
  info: ShardIndexInfo;
  /** The sha256 (hex) of a package name's shard file; undefined when the subdir has no such name. */
  shardOf(name: string): string | undefined;
  readonly size: number;
}

export interface ShardIndexInfo {
  base_url?: string;
  shards_base_url?: string;
}

type Msgpack = typeof import('@msgpack/msgpack');
let msgpack: Msgpack | undefined;

/** The msgpack decoder loads with the first sharded channel, not with every plan. */
async function decodeMsgpack(bytes: Uint8Array): Promise<unknown> {
  msgpack ??= await import('@msgpack/msgpack');
  // Without the key cache: a shard index's tens of thousands of distinct names only miss it, at twice the cost.
  return new msgpack.Decoder({ keyDecoder: null }).decode(bytes);
}

function hex(v: unknown): string | undefined {
  if (typeof v === 'string') return v.toLowerCase();
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  return undefined;
}

function bad(url: string, what: string, cause?: unknown): XpuError {
  return new XpuError('BAD_INDEX', `${url} is not a conda shard${url.endsWith(SHARD_INDEX_FILE) ? ' index' : ''}: ${what}`, {
    cause,
    details: { url },
    hints: ['the channel serves a damaged sharded index; try again later, or report it to the channel owner'],
  });
}

/** Nesting deeper than the limit, found by walking the bytes (with recursion no deeper than the limit) before decoding. */
function checkNesting(raw: Buffer, url: string, limits: IndexLimits): void {
  const r = new MsgpackReader(raw, url, limits.nesting);
  r.skip();
}

async function decodeZstdMsgpack(bytes: Uint8Array, url: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): Promise<Record<string, unknown>> {
  let doc: unknown;
  let raw: Buffer;
  try {
    raw = await zstdDecompressBytes(bytes, limits.shardDecoded);
  } catch (e) {
    if (e instanceof OutputTooLarge) throw overLimit(url, 'decompresses to', e.limit, 'shardDecoded', bytes.length);
    throw bad(url, (e as Error).message, e);
  }
  checkNesting(raw, url, limits);
  try {
    doc = await decodeMsgpack(raw);
  } catch (e) {
    throw bad(url, (e as Error).message, e);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw bad(url, 'not a msgpack map');
  return doc as Record<string, unknown>;
}

/** A directory URL (ending in `/`) resolved against the shard index's own URL, under the rule for URLs an index names. */
function dirUrl(value: unknown, indexUrl: string, field: string): string {
  if (typeof value !== 'string' || !value) return new URL('./', indexUrl).href;
  const abs = urlFromIndex(value, indexUrl, field);
  return abs.endsWith('/') ? abs : `${abs}/`;
}

export async function decompressShardIndex(bytes: Uint8Array, url: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): Promise<Buffer> {
  try {
    return await zstdDecompressBytes(bytes, limits.shardIndexDecoded);
  } catch (e) {
    if (e instanceof OutputTooLarge) throw overLimit(url, 'decompresses to', e.limit, 'shardIndexDecoded', bytes.length);
    throw bad(url, (e as Error).message, e);
  }
}

/**
 * A shard index's body as it arrives, and its decompressed bytes: the decompressor (the zstd program on Node 20) starts
 * while the index downloads and is done soon after its last byte, instead of starting then.
 */
export async function readShardIndex(body: Readable, url: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): Promise<{ bytes: Buffer; raw: Buffer }> {
  const d = await zstdDecompressor();
  const decoded = collectCapped(d, limits.shardIndexDecoded);
  decoded.catch(() => undefined);
  const parts: Buffer[] = [];
  try {
    for await (const c of body) {
      parts.push(c as Buffer);
      // A decompressor that failed (or stopped at the limit) takes no more: its error is told below.
      if (d.destroyed) break;
      if (!d.write(c)) await Promise.race([new Promise((r) => d.once('drain', r)), decoded.catch(() => undefined)]);
    }
    d.end();
  } catch (e) {
    d.destroy();
    throw e;
  }
  try {
    return { bytes: Buffer.concat(parts), raw: await decoded };
  } catch (e) {
    if (e instanceof OutputTooLarge) throw overLimit(url, 'decompresses to', e.limit, 'shardIndexDecoded', parts.reduce((n, p) => n + p.length, 0));
    throw bad(url, (e as Error).message, e);
  }
}

/**
 * The shard index from its msgpack bytes (decompressed). The `shards` map is walked once without making a string or
 * an object per entry, noting where each entry starts; a name asked for is then found with a native search for its
 * bytes followed by a digest's header, accepted only where its key starts an entry.
 */
export async function decodeShardIndex(raw: Buffer, url: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): Promise<ShardIndex> {
  const r = new MsgpackReader(raw, url, limits.nesting);
  const top = r.mapLength();
  let info: Record<string, unknown> = {};
  let starts: Int32Array | undefined;
  for (let i = 0; i < top; i++) {
    const key = r.str();
    if (key === 'shards') starts = r.entryStarts();
    else if (key === 'info') {
      const start = r.pos;
      r.skip();
      const v = await decodeMsgpack(raw.subarray(start, r.pos));
      if (v && typeof v === 'object') info = v as Record<string, unknown>;
    } else r.skip();
  }
  if (!starts) throw bad(url, 'no "shards" map');
  const entries = starts;
  const isEntry = (at: number): boolean => {
    let lo = 0;
    let hi = entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (entries[mid] === at) return true;
      if (entries[mid]! < at) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  const dirs: ShardIndexInfo = {};
  for (const k of ['base_url', 'shards_base_url'] as const) if (typeof info[k] === 'string') dirs[k] = info[k];
  return {
    ...shardUrls(dirs, url),
    info: dirs,
    size: entries.length,
    shardOf: (name) => {
      const b = Buffer.from(name);
      const n = b.length;
      const pattern = Buffer.concat([b, DIGEST_HEADER]);
      for (let at = raw.indexOf(pattern, entries[0]); at !== -1; at = raw.indexOf(pattern, at + 1)) {
        // The key's header, in any of the lengths an encoder may write, must start an entry.
        const fix = n < 32 && raw[at - 1] === (0xa0 | n);
        const str8 = n < 256 && raw[at - 2] === 0xd9 && raw[at - 1] === n;
        const str16 = raw[at - 3] === 0xda && raw.readUInt16BE(at - 2) === n;
        if ((fix && isEntry(at - 1)) || (str8 && isEntry(at - 2)) || (str16 && isEntry(at - 3))) return raw.toString('hex', at + pattern.length, at + pattern.length + 32);
      }
      return undefined;
    },
  };
}

/** A digest's msgpack header: bin 8 of 32 bytes. */
const DIGEST_HEADER = Buffer.from([0xc4, 32]);

/** Where packages and shards are, from a shard index's `info` (directories relative to the index's own URL). */
export function shardUrls(info: ShardIndexInfo, url: string): { baseUrl: string; shardsBaseUrl: string } {
  return { baseUrl: dirUrl(info.base_url, url, 'info.base_url'), shardsBaseUrl: dirUrl(info.shards_base_url, url, 'info.shards_base_url') };
}

/** Just enough msgpack to walk a shard index: map and string headers, 32-byte digests, and skipping anything else. */
class MsgpackReader {
  pos = 0;

  constructor(
    private readonly b: Buffer,
    private readonly url: string,
    /** Arrays and maps inside each other deeper than this are refused (recursion stays this shallow). */
    private readonly maxDepth: number,
  ) {}

  private need(n: number): void {
    if (this.pos + n > this.b.length) throw bad(this.url, 'the msgpack data ends early');
  }

  private byte(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }

  private uint(bytes: 1 | 2 | 4): number {
    this.need(bytes);
    const v = bytes === 1 ? this.b[this.pos]! : bytes === 2 ? this.b.readUInt16BE(this.pos) : this.b.readUInt32BE(this.pos);
    this.pos += bytes;
    return v;
  }

  mapLength(): number {
    const t = this.byte();
    if (t >= 0x80 && t <= 0x8f) return t & 0x0f;
    if (t === 0xde) return this.uint(2);
    if (t === 0xdf) return this.uint(4);
    throw bad(this.url, `a map was expected at byte ${this.pos - 1}`);
  }

  /**
   * The `shards` map: where each entry starts. Keys as fixstr or str 8 and 32-byte digests are read inline (a shard
   * index is tens of thousands of them); anything else goes through the general readers, which name what is wrong.
   */
  entryStarts(): Int32Array {
    const n = this.mapLength();
    const starts = new Int32Array(n);
    const b = this.b;
    let p = this.pos;
    for (let k = 0; k < n; k++) {
      starts[k] = p;
      const t = b[p]!;
      const end = t >= 0xa0 && t <= 0xbf ? p + 1 + (t & 0x1f) : t === 0xd9 && p + 1 < b.length ? p + 2 + b[p + 1]! : -1;
      if (end !== -1 && end + 34 <= b.length && b[end] === 0xc4 && b[end + 1] === 32) {
        p = end + 34;
        continue;
      }
      this.pos = p;
      this.skipStr();
      this.digest();
      p = this.pos;
    }
    this.pos = p;
    return starts;
  }

  private strLength(t: number): number | undefined {
    if (t >= 0xa0 && t <= 0xbf) return t & 0x1f;
    if (t === 0xd9) return this.uint(1);
    if (t === 0xda) return this.uint(2);
    if (t === 0xdb) return this.uint(4);
    return undefined;
  }

  str(): string {
    const end = this.skipStr();
    return this.b.toString('utf8', end[0], end[1]);
  }

  /** Passes over a string; answers where its bytes are. */
  skipStr(): [number, number] {
    const len = this.strLength(this.byte());
    if (len === undefined) throw bad(this.url, `a string was expected at byte ${this.pos - 1}`);
    this.need(len);
    this.pos += len;
    return [this.pos - len, this.pos];
  }

  /** A sha256 as 32 bytes (bin 8). */
  digest(): void {
    const at = this.pos;
    const len = this.byte() === 0xc4 ? this.uint(1) : undefined;
    if (len !== 32) throw bad(this.url, `the shard of ${this.b.toString('utf8', ...this.keyBefore(at))} has no sha256`);
    this.need(32);
    this.pos += 32;
  }

  /** For messages: the bytes of the key just before `at` (short keys, as shard indexes have). */
  private keyBefore(at: number): [number, number] {
    for (let n = 0; n < 32 && at - n - 1 >= 0; n++) if (this.b[at - n - 1] === (0xa0 | n)) return [at - n, at];
    return [at, at];
  }

  skip(depth = 0): void {
    const t = this.byte();
    const str = this.strLength(t);
    if (str !== undefined) return this.advance(str);
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) return;
    const container = (t >= 0x80 && t <= 0x9f) || (t >= 0xdc && t <= 0xdf);
    if (container && depth >= this.maxDepth) {
      throw new XpuError('BAD_INDEX', `${this.url} nests arrays and maps more than ${this.maxDepth} deep (at byte ${this.pos - 1}); refused before decoding`, {
        details: { url: this.url, limit: this.maxDepth, variable: LIMIT_ENV.nesting },
        hints: ['no conda index nests that deep (a shard is 4 levels); the channel serves something hostile or damaged. Report it to the channel owner'],
      });
    }
    if (t >= 0x80 && t <= 0x8f) return this.skipMany((t & 0x0f) * 2, depth + 1);
    if (t >= 0x90 && t <= 0x9f) return this.skipMany(t & 0x0f, depth + 1);
    const fixed: Record<number, number> = { 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, 0xca: 4, 0xcb: 8, 0xd4: 2, 0xd5: 3, 0xd6: 5, 0xd7: 9, 0xd8: 17 };
    if (fixed[t] !== undefined) return this.advance(fixed[t]);
    if (t === 0xc4 || t === 0xc5 || t === 0xc6) return this.advance(this.uint(t === 0xc4 ? 1 : t === 0xc5 ? 2 : 4));
    if (t === 0xc7 || t === 0xc8 || t === 0xc9) return this.advance(this.uint(t === 0xc7 ? 1 : t === 0xc8 ? 2 : 4) + 1);
    if (t === 0xdc || t === 0xdd) return this.skipMany(this.uint(t === 0xdc ? 2 : 4), depth + 1);
    if (t === 0xde || t === 0xdf) return this.skipMany(this.uint(t === 0xde ? 2 : 4) * 2, depth + 1);
    throw bad(this.url, `byte ${this.pos - 1} is not msgpack`);
  }

  private advance(n: number): void {
    this.need(n);
    this.pos += n;
  }

  private skipMany(n: number, depth: number): void {
    for (let i = 0; i < n; i++) this.skip(depth);
  }
}

export function shardUrl(shardsBaseUrl: string, sha256: string): string {
  return `${shardsBaseUrl}${sha256}.msgpack.zst`;
}

function record(v: unknown): RepodataRecord {
  const r = { ...(v as Record<string, unknown>) };
  for (const k of ['sha256', 'md5'] as const) {
    const h = hex(r[k]);
    if (h) r[k] = h;
    else delete r[k];
  }
  return r as unknown as RepodataRecord;
}

/** One shard (as fetched, zstd-compressed) as a repodata document of that package's records. */
export async function parseShard(bytes: Uint8Array, url: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): Promise<Repodata> {
  const doc = await decodeZstdMsgpack(bytes, url, limits);
  const out: Repodata = { packages: {}, 'packages.conda': {}, removed: [] };
  for (const t of ['packages', 'packages.conda'] as const) {
    const table = doc[t];
    if (table === undefined) continue;
    if (!table || typeof table !== 'object') throw bad(url, `"${t}" is not a map`);
    for (const [filename, rec] of Object.entries(table as Record<string, unknown>)) out[t]![filename] = record(rec);
  }
  if (Array.isArray(doc.removed)) out.removed = doc.removed.filter((x): x is string => typeof x === 'string');
  return out;
}
