// Sharded conda repodata (CEP-16): the shard index (package name -> sha256 of its shard) and the shards themselves,
// msgpack documents whose records are those of repodata.json with sha256 and md5 as bytes.
import { XpuError } from '../errors.js';
import { zstdDecompressBytes } from '../formats/decompress.js';
import type { Repodata, RepodataRecord } from './conda.js';

export const SHARD_INDEX_FILE = 'repodata_shards.msgpack.zst';

export interface ShardIndex {
  /** Where package files are, absolute. */
  baseUrl: string;
  /** Where shards are, absolute, ending in `/`. */
  shardsBaseUrl: string;
  /** Package name -> sha256 (hex) of its shard file. */
  shards: Map<string, string>;
}

type Msgpack = typeof import('@msgpack/msgpack');
let msgpack: Msgpack | undefined;

/** The msgpack decoder loads with the first sharded channel, not with every plan. */
async function decodeMsgpack(bytes: Uint8Array): Promise<unknown> {
  msgpack ??= await import('@msgpack/msgpack');
  return msgpack.decode(bytes);
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

async function decodeZstdMsgpack(bytes: Uint8Array, url: string): Promise<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = await decodeMsgpack(await zstdDecompressBytes(bytes));
  } catch (e) {
    throw bad(url, (e as Error).message, e);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw bad(url, 'not a msgpack map');
  return doc as Record<string, unknown>;
}

/** A directory URL (ending in `/`) resolved against the shard index's own URL. */
function dirUrl(value: unknown, indexUrl: string): string {
  const base = new URL('./', indexUrl).href;
  if (typeof value !== 'string' || !value) return base;
  const abs = new URL(value, base).href;
  return abs.endsWith('/') ? abs : `${abs}/`;
}

/** Reads `repodata_shards.msgpack.zst` (as fetched, zstd-compressed). */
export async function parseShardIndex(bytes: Uint8Array, url: string): Promise<ShardIndex> {
  const doc = await decodeZstdMsgpack(bytes, url);
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const table = doc.shards;
  if (!table || typeof table !== 'object') throw bad(url, 'no "shards" map');
  const shards = new Map<string, string>();
  for (const [name, digest] of Object.entries(table as Record<string, unknown>)) {
    const h = hex(digest);
    if (!h || !/^[0-9a-f]{64}$/.test(h)) throw bad(url, `the shard of ${name} has no sha256`);
    shards.set(name, h);
  }
  return { baseUrl: dirUrl(info.base_url, url), shardsBaseUrl: dirUrl(info.shards_base_url, url), shards };
}

export function shardUrl(index: ShardIndex, sha256: string): string {
  return `${index.shardsBaseUrl}${sha256}.msgpack.zst`;
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
export async function parseShard(bytes: Uint8Array, url: string): Promise<Repodata> {
  const doc = await decodeZstdMsgpack(bytes, url);
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
