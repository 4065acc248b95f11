// Benchmark: planning Level Zero against a channel of conda-forge's real size, served on 127.0.0.1, side by side in
// one run: cold sharded plan (bytes, time), warm plan within max-age (no request) and after it (304s), cold full-file
// plan against `curl | zstd -d > /dev/null` of the same files (as fast as 127.0.0.1 serves them, and through a
// 100 MB/s link), its peak memory, and a PyPI re-plan (304).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { BIN, REPO, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { realScaleChannel, type RealScaleChannel } from './real-scale-channel.js';
import { alternate, median, peakRssKiB, ratio, timeRun, writeResults, type Case } from './util.js';

const ROUNDS = Number(process.env.XPU_SETUP_BENCH_INDEX_ROUNDS ?? 5);
let work: string;
let channel: RealScaleChannel;
let server: http.Server;
let base: string;

/** What the server sent since the last reset: requests by status, body bytes. */
const sent = { requests: 0, notModified: 0, bytes: 0, paths: [] as string[] };
const resetSent = () => Object.assign(sent, { requests: 0, notModified: 0, bytes: 0, paths: [] });

/** Bytes per second that all `/link/` bodies share, as they would one network link (100 MB/s: about 1 Gbit/s). */
const LINK_BYTES_PER_S = 100e6;
/** When the link is next free (performance.now() ms). */
let linkFree = 0;

/** Waits for the link's next free slot, then books `n` bytes on it. */
function linkSlot(n: number): Promise<void> {
  const now = performance.now();
  const start = Math.max(linkFree, now);
  linkFree = start + (n / LINK_BYTES_PER_S) * 1000;
  return new Promise((r) => setTimeout(r, start - now));
}

const packs = new Map<string, { pack: string; table: Record<string, [number, number]> }>();

/**
 * Routes: `/sharded/` serves shard index + shards (index max-age 600 s, shards immutable); `/stale/` the same with
 * max-age 0 (every run revalidates); `/full/` no shard index, only repodata.json.zst (max-age 600 s); `/link/` the
same as `/full/` through a link of LINK_BYTES_PER_S; `/simple/`
 * PEP 691 pages for intel-cmplr-lib-ur, umf and tcmlib with max-age 0 and an ETag, as a re-plan meets them once
 * PyPI's 10 minutes passed, and `/files/` their wheels' metadata files (immutable).
 */
async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', base);
  const m = /^\/(sharded|stale|full|link)\/(linux-64|noarch)\/(.+)$/.exec(url.pathname);
  let body: { file?: string; range?: [number, number]; bytes?: Buffer; etag: string; maxAge: number; type: string } | undefined;
  if (m) {
    const [, route, subdir, file] = m as unknown as [string, string, string, string];
    const dir = path.join(channel.dir, subdir);
    const maxAge = route === 'stale' ? 0 : 600;
    const full = route === 'full' || route === 'link';
    if (file === 'repodata_shards.msgpack.zst' && !full) {
      const st = await fs.stat(path.join(dir, file));
      body = { file: path.join(dir, file), etag: `"${st.size}-${st.mtimeMs}"`, maxAge, type: 'application/octet-stream' };
    } else if (file.startsWith('shards/') && !full) {
      let p = packs.get(subdir);
      if (!p) {
        p = { pack: path.join(dir, 'shards.pack'), table: JSON.parse(await fs.readFile(path.join(dir, 'shards.json'), 'utf8')) as Record<string, [number, number]> };
        packs.set(subdir, p);
      }
      const at = p.table[file.slice('shards/'.length, -'.msgpack.zst'.length)];
      if (at) body = { file: p.pack, range: [at[0], at[0] + at[1] - 1], etag: `"${file}"`, maxAge: 31536000, type: 'application/octet-stream' };
    } else if (file === 'repodata.json.zst' || file === 'repodata.json') {
      const st = await fs.stat(path.join(dir, file));
      body = { file: path.join(dir, file), etag: `"${st.size}-${st.mtimeMs}"`, maxAge, type: file.endsWith('.zst') ? 'application/zstd' : 'application/json' };
    }
  } else if (/^\/simple\/[a-z-]+\/$/.test(url.pathname) && PYPI[url.pathname.split('/')[2]!]) {
    const name = url.pathname.split('/')[2]!;
    body = { bytes: pypiPage(name), etag: `"${name}-1"`, maxAge: 0, type: 'application/vnd.pypi.simple.v1+json' };
  } else if (url.pathname.startsWith('/files/') && url.pathname.endsWith('.whl.metadata')) {
    const meta = pypiMetadata(url.pathname.slice('/files/'.length, -'.metadata'.length));
    if (meta) body = { bytes: meta, etag: `"${url.pathname}"`, maxAge: 31536000, type: 'application/octet-stream' };
  }
  sent.requests++;
  sent.paths.push(url.pathname);
  if (!body) {
    res.writeHead(404, { 'content-length': '0' }).end();
    return;
  }
  const headers = { etag: body.etag, 'cache-control': `public, max-age=${body.maxAge}`, 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT', 'content-type': body.type };
  if (req.headers['if-none-match'] === body.etag) {
    sent.notModified++;
    res.writeHead(304, headers).end();
    return;
  }
  if (body.bytes) {
    sent.bytes += body.bytes.length;
    res.writeHead(200, { ...headers, 'content-length': String(body.bytes.length) }).end(body.bytes);
    return;
  }
  const [start, end] = body.range ?? [0, (await fs.stat(body.file!)).size - 1];
  res.writeHead(200, { ...headers, 'content-length': String(end - start + 1) });
  if (m?.[1] === 'link') {
    for await (const c of createReadStream(body.file!, { start, end, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      await linkSlot(c.length);
      sent.bytes += c.length;
      if (!res.write(c)) await once(res, 'drain');
    }
    res.end();
    return;
  }
  const src = createReadStream(body.file!, { start, end, highWaterMark: 1 << 20 });
  src.on('data', (c) => (sent.bytes += c.length));
  src.pipe(res);
}

/** The PyPI projects a UR plan reads, as they chain on PyPI: versions and each version's Requires-Dist. */
const PYPI: Record<string, Record<string, string[]>> = {
  'intel-cmplr-lib-ur': { '2025.3.2': ['umf ==1.0.*'], '2026.0.0': ['umf ==1.1.*'], '2026.1.0': ['umf ==1.1.*'] },
  umf: { '1.0.3': ['tcmlib >=1.4'], '1.1.0': ['tcmlib >=1.5'] },
  tcmlib: { '1.4.1': [], '1.5.0': [] },
};

const wheelOf = (name: string, version: string) => `${name.replace(/-/g, '_')}-${version}-py2.py3-none-manylinux_2_28_x86_64.whl`;

/** A PEP 691 page with a PEP 658 metadata file for every wheel. */
function pypiPage(name: string): Buffer {
  const files = Object.keys(PYPI[name]!).map((v) => {
    const filename = wheelOf(name, v);
    const hash = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
    return { filename, url: `../../files/${filename}`, hashes: { sha256: hash(filename) }, size: 32_000_000, 'core-metadata': { sha256: hash(pypiMetadata(filename)!) } };
  });
  return Buffer.from(JSON.stringify({ meta: { 'api-version': '1.1' }, name, files }));
}

function pypiMetadata(filename: string): Buffer | undefined {
  for (const [name, versions] of Object.entries(PYPI)) {
    for (const [v, requires] of Object.entries(versions)) {
      if (wheelOf(name, v) === filename) {
        return Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${v}\n${requires.map((r) => `Requires-Dist: ${r}\n`).join('')}\n`);
      }
    }
  }
  return undefined;
}

beforeAll(async () => {
  work = await tempDir('bench-index');
  channel = await realScaleChannel(path.join(REPO, '.cache'));
  server = http.createServer((req, res) => void answer(req, res).catch((e: unknown) => res.destroy(e as Error)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await fs.rm(work, { recursive: true, force: true });
});

it('index reads at conda-forge scale: shards, the full file against curl|zstd, warm plans, a PyPI re-plan', async () => {
  const env = scrubbedEnv(path.join(work, 'home'));
  const plan = (route: string, cache: string) => [
    process.execPath, BIN, 'setup', '--dry-run', '--quiet', '--component', 'level-zero', '--source', 'conda',
    '--conda-channel', `${base}/${route}`, '--cache-dir', cache, '--prefix', path.join(work, 'prefix'),
  ];
  const pypi = (cache: string) => [
    process.execPath, BIN, 'setup', '--dry-run', '--quiet', '--component', 'unified-runtime', '--source', 'pypi',
    '--index-url', `${base}/simple`, '--cache-dir', cache, '--prefix', path.join(work, 'prefix'),
  ];
  // A plan made minutes ago for the same request is reused by setup; these runs measure the index reads instead.
  const forgetPlans = (cache: string) => fs.rm(path.join(cache, 'plans'), { recursive: true, force: true });
  const dir = (name: string, i: number) => path.join(work, `${name}-${i}`);
  const bytes: Record<string, number[]> = {};
  const requests: Record<string, number[]> = {};
  const notModified: Record<string, number[]> = {};
  const measured = (name: string, run: (i: number) => Promise<{ wallMs: number; cpuMs: number }>, before?: (i: number) => Promise<void>): Case => ({
    name,
    before: async (i) => {
      await before?.(i);
      resetSent();
    },
    run: async (i) => {
      const t = await run(i);
      (bytes[name] ??= []).push(sent.bytes);
      (requests[name] ??= []).push(sent.requests);
      (notModified[name] ??= []).push(sent.notModified);
      return t;
    },
  });
  const zst = (subdir: string, route = 'full') => `${base}/${route}/${subdir}/repodata.json.zst`;
  const floor = (route: string) => ['bash', '-c', `(curl -sf ${zst('linux-64', route)} | zstd -dq > /dev/null) & (curl -sf ${zst('noarch', route)} | zstd -dq > /dev/null) & wait`];
  const cases: Case[] = [
    measured('cold sharded plan', (i) => timeRun(plan('sharded', dir('sharded', i)), { env })),
    measured('warm plan within max-age', (i) => timeRun(plan('sharded', dir('sharded', i)), { env }), (i) => forgetPlans(dir('sharded', i))),
    measured('warm plan after max-age', (i) => timeRun(plan('stale', dir('stale', i)), { env }), async (i) => {
      await timeRun(plan('stale', dir('stale', i)), { env });
      await forgetPlans(dir('stale', i));
    }),
    measured('cold full-file plan', (i) => timeRun(plan('full', dir('full', i)), { env })),
    measured('floor: curl | zstd -d, both files', () => timeRun(floor('full'))),
    measured('floor: curl | zstd -d, linux-64 only', () => timeRun(['bash', '-c', `curl -sf ${zst('linux-64')} | zstd -dq > /dev/null`])),
    measured('cold full-file plan, 100 MB/s link', (i) => timeRun(plan('link', dir('link', i)), { env })),
    measured('floor: curl | zstd -d, both files, 100 MB/s link', () => timeRun(floor('link'))),
    measured('PyPI re-plan', (i) => timeRun(pypi(dir('pypi', i)), { env }), async (i) => {
      await timeRun(pypi(dir('pypi', i)), { env });
      await forgetPlans(dir('pypi', i));
    }),
  ];
  const results = await alternate(cases, ROUNDS);
  const peak = await peakRssKiB(plan('full', dir('full-rss', 0)), { env });
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  const wall = (n: string) => byName[n]!.medianWallMs;
  const doc = {
    rounds: ROUNDS,
    channel: { ...channel.subdirs, levelZeroShardBytes: channel.levelZeroShardBytes },
    cases: results.map((r) => ({
      ...r,
      bytes: bytes[r.name],
      medianBytes: median(bytes[r.name]!),
      requests: requests[r.name],
      notModified: notModified[r.name],
    })),
    fullFileVsFloor: ratio(wall('cold full-file plan'), wall('floor: curl | zstd -d, both files')),
    fullFileVsLinuxFloor: ratio(wall('cold full-file plan'), wall('floor: curl | zstd -d, linux-64 only')),
    fullFileVsFloorAt100MBps: ratio(wall('cold full-file plan, 100 MB/s link'), wall('floor: curl | zstd -d, both files, 100 MB/s link')),
    fullFilePeakRssMiB: Math.round(peak.kib / 1024),
  };
  const out = await writeResults('index', doc);
  console.log(JSON.stringify(doc, null, 2));
  console.log(`written to ${out}`);
});
