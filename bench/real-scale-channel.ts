// A synthetic conda channel of today's conda-forge size (linux-64 and noarch: records, bytes, names; repodata.json,
// repodata.json.zst, CEP-16 shard index and one shard per name), generated once and kept under .cache/. The shards of
// the names a Level Zero plan can read (and of the most common names) are compressed by the zstd program as a channel
// would; the tens of thousands of others are zstd frames of raw blocks (valid, hashed and served like the rest, only
// not smaller), because starting zstd for each of them would take minutes on 2 cores. All shards of a subdir live in
// one pack file (`shards.pack` + `shards.json`: sha256 -> offset, length), served as `shards/<sha256>.msgpack.zst`.
import { encode } from '@msgpack/msgpack';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { once } from 'node:events';

export interface SubdirStats {
  records: number;
  names: number;
  jsonBytes: number;
  zstBytes: number;
  shardIndexBytes: number;
  shardBytes: number;
}

export interface RealScaleChannel {
  dir: string;
  subdirs: Record<'linux-64' | 'noarch', SubdirStats>;
  /** The compressed sizes of the shards of the names a Level Zero plan reads. */
  levelZeroShardBytes: number;
}

/** Today's conda-forge (../FACTS: 717k linux-64 records, 405 MB of JSON; noarch 298k, 164 MB). */
const SIZES = {
  'linux-64': { records: Number(process.env.XPU_SETUP_BENCH_LINUX_RECORDS ?? 717_000), names: 27_000 },
  noarch: { records: Number(process.env.XPU_SETUP_BENCH_NOARCH_RECORDS ?? 298_000), names: 24_000 },
} as const;
const VERSION = 2;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ab', 'ac', 'al', 'an', 'ar', 'ba', 'be', 'bi', 'ca', 'co', 'cu', 'da', 'de', 'di', 'el', 'en', 'er', 'fa', 'fi', 'ga', 'ge', 'go', 'ha', 'he', 'in', 'io', 'is', 'ka', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no', 'op', 'or', 'pa', 'pe', 'pi', 'po', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'si', 'so', 'ta', 'te', 'ti', 'to', 'un', 'ur', 'va', 've', 'xy', 'zo'];
const PREFIXES = { 'linux-64': ['lib', 'r-', 'py', 'ros-humble-', 'perl-', '', '', '', 'go-', 'rust-'], noarch: ['r-', 'py', '', '', '', 'sphinx-', 'pytest-', 'types-', 'jupyter-', 'mkdocs-'] };
const COMMON = ['python', 'numpy', 'openssl', 'zlib', 'libzlib', 'ca-certificates', 'libffi', 'ncurses', 'readline', 'xz', 'bzip2', 'tk', 'sqlite', 'libuuid', 'libnsl', 'libsqlite', 'libexpat', 'pip', 'setuptools', 'wheel'];
const L0_NAMES = ['level-zero', 'level-zero-devel'];
const L0_DEPS = ['libgcc', 'libstdcxx', 'libgomp', '_openmp_mutex', '_libgcc_mutex', 'libgcc-ng', 'libstdcxx-ng'];
const COMPRESSED = new Set([...L0_NAMES, ...L0_DEPS, ...COMMON]);

/**
 * The GCC runtime packages level-zero depends on, with conda-forge's versions and depends chain (libstdcxx -> libgcc
 * -> _openmp_mutex -> _libgcc_mutex, libgomp), so a plan that follows them reads what it would read on conda-forge.
 */
function runtimeRecord(name: string, k: number): { version: string; build?: string; depends: string[] } {
  const gcc = `${11 + Math.floor(k / 8)}.${Math.floor(k / 2) % 4}.0`;
  const glibc = '__glibc >=2.17,<3.0.a0';
  switch (name) {
    case '_libgcc_mutex':
      return { version: '0.1', build: k % 2 ? 'main' : 'conda_forge', depends: [] };
    case '_openmp_mutex':
      return { version: '4.5', build: `${k % 4}_gnu`, depends: ['_libgcc_mutex 0.1 conda_forge', 'libgomp >=7.5.0'] };
    case 'libgomp':
      return { version: gcc, depends: [glibc] };
    case 'libgcc':
      return { version: gcc, depends: [glibc, '_openmp_mutex >=4.5'] };
    case 'libstdcxx':
      return { version: gcc, depends: [glibc, `libgcc ${gcc}.*`] };
    default:
      return { version: gcc, depends: [`${name.replace(/-ng$/, '')} ${gcc}.*`] };
  }
}

/** A valid zstd frame holding `data` in raw blocks (no compression): magic, header with content size, blocks. */
export function rawZstdFrame(data: Buffer): Buffer {
  const BLOCK = 128 * 1024;
  const parts: Buffer[] = [];
  const head = Buffer.alloc(4 + 1 + 8);
  head.writeUInt32LE(0xfd2fb528, 0);
  // Frame header descriptor: single segment, 8-byte content size, no checksum, no dictionary.
  head[4] = 0b11100000;
  head.writeBigUInt64LE(BigInt(data.length), 5);
  parts.push(head);
  for (let off = 0; off < data.length || off === 0; off += BLOCK) {
    const chunk = data.subarray(off, off + BLOCK);
    const last = off + BLOCK >= data.length ? 1 : 0;
    const bh = Buffer.alloc(3);
    // Block header: last flag, type 0 (raw), size.
    bh.writeUIntLE((chunk.length << 3) | last, 0, 3);
    parts.push(bh, chunk);
    if (last) break;
  }
  return Buffer.concat(parts);
}

function namesFor(subdir: 'linux-64' | 'noarch', n: number, r: () => number): string[] {
  const names = new Set<string>(subdir === 'linux-64' ? [...COMMON, ...L0_DEPS] : ['tzdata', 'certifi', 'packaging', 'typing_extensions']);
  const pre = PREFIXES[subdir];
  while (names.size < n - (subdir === 'linux-64' ? L0_NAMES.length : 0)) {
    const parts = 1 + Math.floor(r() * 4);
    let w = pre[Math.floor(r() * pre.length)]!;
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]!;
    if (r() < 0.15) w += `-${SYLLABLES[Math.floor(r() * SYLLABLES.length)]!}`;
    names.add(w);
  }
  // The Level Zero names sit among the rest, not first.
  const out = [...names];
  if (subdir === 'linux-64') out.splice(n >> 1, 0, ...L0_NAMES);
  return out;
}

const hexBuf = Buffer.alloc(32);
function hex(r: () => number, bytes: number): string {
  for (let i = 0; i < bytes; i += 4) hexBuf.writeUInt32LE(Math.floor(r() * 4294967296), i);
  return hexBuf.toString('hex', 0, bytes);
}

interface Rec {
  filename: string;
  record: Record<string, unknown>;
}

/** Records per name on a power law (python has thousands, most names a few), summing to about `total`. */
function* recordsOf(subdir: 'linux-64' | 'noarch', names: string[], total: number, r: () => number): Generator<[string, Rec[]]> {
  const w = names.map((_, i) => 1 / Math.pow(i + 20, 0.85));
  const sum = w.reduce((a, b) => a + b, 0);
  // level-zero-devel pins the level-zero of its own build, as conda-forge's pin_subpackage(exact=True) does.
  const levelZeroBuilds = new Map<string, string>();
  for (const [i, name] of names.entries()) {
    const l0 = L0_NAMES.includes(name);
    const runtime = L0_DEPS.includes(name) && subdir === 'linux-64';
    const count = l0 || runtime ? 40 : Math.max(1, Math.round((total * w[i]!) / sum));
    const recs: Rec[] = [];
    for (let k = 0; k < count; k++) {
      const rt = runtime ? runtimeRecord(name, k) : undefined;
      const version = rt?.version ?? (l0 ? `1.${20 + Math.floor(k / 4)}.${k % 4}` : `${Math.floor(k / 25)}.${Math.floor(k / 5) % 5}.${k % 5}`);
      const build = rt?.build ?? (subdir === 'noarch' ? `pyhd8ed1ab_${k % 3}` : `h${hex(r, 4)}_${k % 3}`);
      if (name === 'level-zero') levelZeroBuilds.set(version, build);
      const conda = k >= count / 3;
      const depends = rt
        ? rt.depends
        : l0
        ? name === 'level-zero-devel'
          ? [`level-zero ==${version} ${levelZeroBuilds.get(version)!}`]
          : ['__glibc >=2.17,<3.0.a0', 'libgcc >=14', 'libstdcxx >=14']
        : subdir === 'noarch'
          ? ['python >=3.9', ...Array.from({ length: 1 + Math.floor(r() * 5) }, () => `${names[Math.floor(r() * names.length)]!} >=1.${Math.floor(r() * 9)}`)]
          : ['__glibc >=2.17,<3.0.a0', 'libgcc >=13', ...Array.from({ length: Math.floor(r() * 6) }, () => `${names[Math.floor(r() * names.length)]!} >=${Math.floor(r() * 4)}.${Math.floor(r() * 20)},<${Math.floor(r() * 4) + 1}.0a0`)];
      const record: Record<string, unknown> = {
        build,
        build_number: k % 3,
        ...(r() < 0.2 ? { constrains: [`${names[Math.floor(r() * names.length)]!} >=1.0`] } : {}),
        depends,
        license: r() < 0.5 ? 'MIT' : 'BSD-3-Clause',
        license_family: r() < 0.5 ? 'MIT' : 'BSD',
        md5: hex(r, 16),
        name,
        ...(subdir === 'noarch' ? { noarch: 'python' } : {}),
        sha256: hex(r, 32),
        size: 10_000 + Math.floor(r() * 5_000_000),
        subdir,
        timestamp: 1_600_000_000_000 + Math.floor(r() * 170_000_000_000),
        version,
      };
      recs.push({ filename: `${name}-${version}-${build}${conda ? '.conda' : '.tar.bz2'}`, record });
    }
    yield [name, recs];
  }
}

/** conda-index's layout: one space per level, keys sorted. */
function entry(filename: string, record: Record<string, unknown>): string {
  return `  ${JSON.stringify(filename)}: ${JSON.stringify(record, null, 1).replace(/\n/g, '\n  ')}`;
}

async function generateSubdir(root: string, subdir: 'linux-64' | 'noarch'): Promise<SubdirStats> {
  const dir = path.join(root, subdir);
  await fs.mkdir(dir, { recursive: true });
  const pack = createWriteStream(path.join(dir, 'shards.pack'));
  const packed: Record<string, [number, number]> = {};
  const hashes: Record<string, Uint8Array> = {};
  let packedBytes = 0;
  const addShard = async (name: string, frame: Buffer) => {
    const sha = createHash('sha256').update(frame).digest();
    hashes[name] = sha;
    packed[sha.toString('hex')] = [packedBytes, frame.length];
    packedBytes += frame.length;
    if (!pack.write(frame)) await once(pack, 'drain');
  };
  const r = rng(subdir === 'noarch' ? 2 : 1);
  const names = namesFor(subdir, SIZES[subdir].names, r);
  const json = createWriteStream(path.join(dir, 'repodata.json'));
  const write = async (s: string) => {
    if (!json.write(s)) await once(json, 'drain');
  };
  // Two tables: .tar.bz2 in "packages", .conda in "packages.conda"; each name's records go to both and to its shard.
  const conda: string[] = [];
  let records = 0;
  let firstPkg = true;
  await write(`{\n "info": {\n  "subdir": "${subdir}"\n },\n "packages": {\n`);
  for (const [name, recs] of recordsOf(subdir, names, SIZES[subdir].records, r)) {
    const shard = { packages: {} as Record<string, unknown>, 'packages.conda': {} as Record<string, unknown>, removed: [] };
    for (const { filename, record } of recs) {
      records++;
      const bin = { ...record, md5: Buffer.from(record.md5 as string, 'hex'), sha256: Buffer.from(record.sha256 as string, 'hex') };
      if (filename.endsWith('.conda')) {
        conda.push(entry(filename, record));
        shard['packages.conda'][filename] = bin;
      } else {
        await write(`${firstPkg ? '' : ',\n'}${entry(filename, record)}`);
        firstPkg = false;
        shard.packages[filename] = bin;
      }
    }
    const msgpack = Buffer.from(encode(shard));
    await addShard(name, COMPRESSED.has(name) ? Buffer.from((await execa('zstd', ['-q', '-c', '-12'], { input: msgpack, encoding: 'buffer' })).stdout) : rawZstdFrame(msgpack));
    if (conda.length > 20_000) {
      await fs.appendFile(path.join(dir, 'conda.part'), conda.splice(0).join(',\n') + ',\n');
    }
  }
  await fs.appendFile(path.join(dir, 'conda.part'), conda.join(',\n'));
  await write('\n },\n "packages.conda": {\n');
  json.end();
  await once(json, 'finish');
  await execa('sh', ['-c', 'cat conda.part >> repodata.json && rm conda.part && printf \'\\n },\\n "removed": [],\\n "repodata_version": 1\\n}\\n\' >> repodata.json'], { cwd: dir });
  await execa('zstd', ['-q', '-f', '-T2', '-10', 'repodata.json', '-o', 'repodata.json.zst'], { cwd: dir });
  pack.end();
  await once(pack, 'finish');
  await fs.writeFile(path.join(dir, 'shards.json'), JSON.stringify(packed));
  const shardBytes = packedBytes;
  const index = encode({ version: 1, info: { subdir, base_url: './', shards_base_url: './shards/', created_at: '2026-12-01T00:00:00Z' }, shards: hashes });
  await fs.writeFile(path.join(dir, 'repodata_shards.msgpack'), index);
  await execa('zstd', ['-q', '-f', '--rm', '-19', 'repodata_shards.msgpack'], { cwd: dir });
  const size = async (f: string) => (await fs.stat(path.join(dir, f))).size;
  return { records, names: names.length, jsonBytes: await size('repodata.json'), zstBytes: await size('repodata.json.zst'), shardIndexBytes: await size('repodata_shards.msgpack.zst'), shardBytes };
}

/** The channel, generated on first use (a few minutes on 2 cores) and reused while its parameters are the same. */
export async function realScaleChannel(cacheRoot: string): Promise<RealScaleChannel> {
  const key = `v${VERSION}-${SIZES['linux-64'].records}-${SIZES.noarch.records}`;
  const dir = path.resolve(cacheRoot, `bench-channel-${key}`);
  const stamp = path.join(dir, 'channel.json');
  try {
    return { ...(JSON.parse(await fs.readFile(stamp, 'utf8')) as RealScaleChannel), dir };
  } catch {
    // not generated yet
  }
  await fs.rm(dir, { recursive: true, force: true });
  const [linux, noarch] = [await generateSubdir(dir, 'linux-64'), await generateSubdir(dir, 'noarch')];
  // The shards a Level Zero plan reads: found by name through the shard index itself.
  const { decode } = await import('@msgpack/msgpack');
  const { zstdDecompressBytes } = await import('../src/formats/decompress.js');
  const idx = decode(await zstdDecompressBytes(await fs.readFile(path.join(dir, 'linux-64', 'repodata_shards.msgpack.zst')))) as { shards: Record<string, Uint8Array> };
  let levelZeroShardBytes = 0;
  const packed = JSON.parse(await fs.readFile(path.join(dir, 'linux-64', 'shards.json'), 'utf8')) as Record<string, [number, number]>;
  for (const n of L0_NAMES) levelZeroShardBytes += packed[Buffer.from(idx.shards[n]!).toString('hex')]![1];
  const channel: RealScaleChannel = { dir, subdirs: { 'linux-64': linux, noarch }, levelZeroShardBytes };
  await fs.writeFile(stamp, JSON.stringify(channel, null, 2));
  return channel;
}
