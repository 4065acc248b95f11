// The index gateway against a local server: CEP-16 shards (checked, cached for good, noarch skipped), the HTTP cache
// (fresh, stale + 304, stale + 200, damaged, two runs at once, --refresh), and which failures fall back to what.
import { encode } from '@msgpack/msgpack';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/cache/index-cache.js';
import { Http } from '../../src/net/http.js';
import type { PieceStream } from '../../src/base/pieces.js';
import { CONDA_RUNTIME_PACKAGES } from '../../src/index/repodata.js';
import { Gateway, type CachePolicy } from '../../src/index/gateway.js';
import type { Reporter } from '../../src/base/reporter.js';
import { silentReporter } from '../../src/base/reporter.js';
import { zstdCompress } from '../support/packages.js';

interface Served {
  status?: number;
  body: Buffer;
  headers?: Record<string, string>;
}

/** Path -> what the test server answers; a function answers per request (and may wait before it answers). */
let routes: Record<string, Served | ((req: http.IncomingMessage) => Served | Promise<Served>)> = {};
let seen: { url: string; headers: http.IncomingHttpHeaders; status: number }[] = [];
let server: http.Server;
let base: string;
let cacheDir: string;
let clock = 0;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const r = routes[req.url ?? ''];
    let a: Served = typeof r === 'function' ? await r(req) : r ?? { status: 404, body: Buffer.from('no') };
    const etag = a.headers?.etag;
    if (etag && req.headers['if-none-match'] === etag && (a.status ?? 200) === 200) a = { status: 304, body: Buffer.alloc(0), headers: a.headers };
    seen.push({ url: req.url ?? '', headers: req.headers, status: a.status ?? 200 });
    res.writeHead(a.status ?? 200, { 'content-length': String(a.body.length), ...a.headers });
    res.end(a.status === 304 ? undefined : a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(async () => {
  routes = {};
  seen = [];
  clock = 1_000_000;
  cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-gateway-'));
});
afterEach(() => fs.rm(cacheDir, { recursive: true, force: true }));

const client = () => new Http({}, { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 });
const run = (opts: { policy?: CachePolicy; reporter?: Reporter } = {}) => new Gateway(client(), { cacheDir, now: () => clock, reporter: silentReporter, ...opts });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const requested = (p: string) => seen.filter((s) => s.url === p);

function record(name: string, version: string, extra: Record<string, unknown> = {}) {
  return { name, version, build: 'h0_0', build_number: 0, depends: [], sha256: Buffer.alloc(32, 7), md5: Buffer.alloc(16, 1), size: 10, ...extra };
}

/** A sharded subdir: the shard index and one shard per name, all as the server sends them. */
async function shardedSubdir(subdir: string, packages: Record<string, Record<string, unknown>[]>, maxAge = 60): Promise<Record<string, string>> {
  const shards: Record<string, Buffer> = {};
  const hashes: Record<string, string> = {};
  for (const [name, recs] of Object.entries(packages)) {
    const table = Object.fromEntries(recs.map((r) => [`${name}-${String(r.version)}-${String(r.build)}.conda`, r]));
    const shard = await zstdCompress(Buffer.from(encode({ packages: {}, 'packages.conda': table, removed: [] })));
    hashes[name] = sha(shard);
    shards[name] = shard;
    routes[`/ch/${subdir}/shards/${hashes[name]}.msgpack.zst`] = { body: shard, headers: { 'cache-control': 'public, max-age=31536000, immutable' } };
  }
  const index = { version: 1, info: { subdir, base_url: `../${subdir}/`, shards_base_url: './shards/' }, shards: Object.fromEntries(Object.entries(hashes).map(([n, h]) => [n, Buffer.from(h, 'hex')])) };
  routes[`/ch/${subdir}/repodata_shards.msgpack.zst`] = {
    body: await zstdCompress(Buffer.from(encode(index))),
    headers: { 'cache-control': `public, max-age=${maxAge}`, etag: `"idx-${subdir}"` },
  };
  return hashes;
}

async function fullRepodata(subdir: string, names: string[], headers: Record<string, string> = {}): Promise<Buffer> {
  const packages = Object.fromEntries(names.map((n) => [`${n}-1.0-h0_0.conda`, { ...record(n, '1.0'), sha256: 'a'.repeat(64), md5: 'b'.repeat(32) }]));
  const json = Buffer.from(JSON.stringify({ info: { subdir }, packages: {}, 'packages.conda': packages, repodata_version: 1 }));
  routes[`/ch/${subdir}/repodata.json.zst`] = { body: await zstdCompress(json), headers };
  return json;
}

describe('sharded repodata', () => {
  it('fetches the shard index and only the wanted shards; noarch gives nothing without a wanted name in its index', async () => {
    const hashes = await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6'), record('level-zero', '1.21.0')], libgcc: [record('libgcc', '14.2.0')], python: [record('python', '3.12')] });
    await shardedSubdir('noarch', { tzdata: [record('tzdata', '2025a')] });
    const gw = run();
    const [arch, noarch] = await Promise.all([gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero', 'libgcc', 'nothing-here']), gw.condaRecords(`${base}/ch`, 'noarch', ['level-zero', 'libgcc'], { optional: true })]);
    expect(arch.map((c) => `${c.name} ${c.version}`).sort()).toEqual(['level-zero 1.20.6', 'level-zero 1.21.0', 'libgcc 14.2.0']);
    expect(arch[0]).toMatchObject({ url: `${base}/ch/linux-64/${arch[0]!.filename}`, sha256: '07'.repeat(32), md5: '01'.repeat(16) });
    expect(noarch).toEqual([]);
    expect(seen.map((s) => s.url).sort()).toEqual(
      ['/ch/linux-64/repodata_shards.msgpack.zst', '/ch/noarch/repodata_shards.msgpack.zst', `/ch/linux-64/shards/${hashes['level-zero']}.msgpack.zst`, `/ch/linux-64/shards/${hashes.libgcc}.msgpack.zst`].sort(),
    );
    // Asked again in the same run: nothing new is requested.
    await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    expect(seen).toHaveLength(4);
  });

  it('keeps shards for good and asks nothing while the shard index is fresh; after max-age one conditional request', async () => {
    await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')] });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    seen = [];
    const again = run();
    expect((await again.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.version)).toEqual(['1.20.6']);
    expect(seen).toEqual([]);
    expect(again.stats).toMatchObject({ requests: 0, downloadedBytes: 0 });
    clock += 61_000;
    const later = run();
    await later.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    expect(seen.map((s) => [s.url, s.status, s.headers['if-none-match']])).toEqual([['/ch/linux-64/repodata_shards.msgpack.zst', 304, '"idx-linux-64"']]);
    expect(later.stats).toMatchObject({ requests: 1, downloadedBytes: 0, notModified: 1 });
  });

  it('refuses a shard whose sha256 is not the one the index lists', async () => {
    const hashes = await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')] });
    const p = `/ch/linux-64/shards/${hashes['level-zero']}.msgpack.zst`;
    routes[p] = { body: await zstdCompress(Buffer.from(encode({ packages: {}, 'packages.conda': { 'level-zero-6.6.6-evil_0.conda': record('level-zero', '6.6.6') } }))) };
    const err = await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HASH_MISMATCH', message: expect.stringContaining('the shard of level-zero') });
    expect(await fs.readdir(path.join(cacheDir, 'index', 'bodies', hashes['level-zero']!.slice(0, 2))).catch(() => [])).toEqual([]);
  });

  it('names a shard the index lists but the server does not have', async () => {
    const hashes = await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')] });
    delete routes[`/ch/linux-64/shards/${hashes['level-zero']}.msgpack.zst`];
    const err = await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_INDEX', message: expect.stringMatching(/the shard of level-zero .* is missing: .*\.msgpack\.zst answered HTTP 404/) });
  });

  it('answers names looked up before from what was kept: neither the shard index nor the shards are read again', async () => {
    const hashes = await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')], python: [record('python', '3.12')] });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero', 'nothing-here']);
    // Everything kept but what was learnt from it is damaged (same sizes): the index body, its decompressed form, the shard.
    const dir = path.join(cacheDir, 'index', 'bodies');
    const kept = (await fs.readdir(dir, { recursive: true })).filter((f) => /[0-9a-f]{64}(\.msgpack)?$/.test(f));
    expect(kept).toHaveLength(3);
    for (const f of kept) await fs.writeFile(path.join(dir, f), Buffer.alloc((await fs.stat(path.join(dir, f))).size, 0x55));
    seen = [];
    const gw = run();
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero', 'nothing-here'])).map((c) => `${c.name} ${c.version}`)).toEqual(['level-zero 1.20.6']);
    expect(seen).toEqual([]);
    // A name not looked up before opens the index: the damage is noticed and the index fetched again, whole.
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['python'])).map((c) => c.name)).toEqual(['python']);
    expect(seen.map((s) => [s.url, s.status, s.headers['if-none-match']])).toEqual([
      ['/ch/linux-64/repodata_shards.msgpack.zst', 200, undefined],
      [`/ch/linux-64/shards/${hashes.python}.msgpack.zst`, 200, undefined],
    ]);
    // Both names are now known to the next run.
    seen = [];
    expect((await run().condaRecords(`${base}/ch`, 'linux-64', ['python', 'level-zero'])).map((c) => c.name)).toEqual(['python', 'level-zero']);
    expect(seen).toEqual([]);
  });

  it('fetches the shards of the GCC runtime chain with the first names, so the closure asking for them reads nothing more', async () => {
    const runtime = { libstdcxx: [record('libstdcxx', '15.2.0')], libgcc: [record('libgcc', '15.2.0')], _openmp_mutex: [record('_openmp_mutex', '4.5')], _libgcc_mutex: [record('_libgcc_mutex', '0.1')], libgomp: [record('libgomp', '15.2.0')] };
    const hashes = await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')], python: [record('python', '3.12')], ...runtime });
    const shardPath = (n: string) => `/ch/linux-64/shards/${hashes[n]}.msgpack.zst`;
    // level-zero's shard is answered only once every runtime shard has been asked for: without them, no answer at all.
    let asked = 0;
    let allAsked!: () => void;
    const gate = new Promise<void>((r) => (allAsked = r));
    for (const n of Object.keys(runtime)) {
      const served = routes[shardPath(n)] as Served;
      routes[shardPath(n)] = () => {
        if (++asked === Object.keys(runtime).length) allAsked();
        return served;
      };
    }
    const levelZero = routes[shardPath('level-zero')] as Served;
    routes[shardPath('level-zero')] = () => gate.then(() => levelZero);
    const gw = run();
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.name)).toEqual(['level-zero']);
    const shards = () => seen.filter((s) => s.url.includes('/shards/')).map((s) => s.url).sort();
    const expected = ['level-zero', ...Object.keys(runtime)].map(shardPath).sort();
    await gw.condaRecords(`${base}/ch`, 'linux-64', ['libstdcxx', 'libgcc']);
    await gw.condaRecords(`${base}/ch`, 'linux-64', ['_openmp_mutex', '_libgcc_mutex', 'libgomp']);
    expect(shards()).toEqual(expected);
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['python'])).map((c) => c.name)).toEqual(['python']);
    expect(shards()).toEqual([...expected, shardPath('python')].sort());
  });

  it('refuses a shard index that is not zstd-compressed msgpack, naming it', async () => {
    await shardedSubdir('linux-64', { 'level-zero': [record('level-zero', '1.20.6')] });
    routes['/ch/linux-64/repodata_shards.msgpack.zst'] = { body: Buffer.alloc(200_000, 0x55) };
    const err = await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_INDEX', message: expect.stringContaining(`${base}/ch/linux-64/repodata_shards.msgpack.zst is not a conda shard index`) });
  });

  it('reads the full repodata.json.zst only when there is no shard index', async () => {
    await fullRepodata('linux-64', ['level-zero', 'other']);
    const gw = run();
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.name)).toEqual(['level-zero']);
    expect(seen.map((s) => s.url)).toEqual(['/ch/linux-64/repodata_shards.msgpack.zst', '/ch/linux-64/repodata.json.zst']);
    expect(await gw.condaSubdirKind(`${base}/ch`, 'linux-64')).toBe('full');
  });
});

describe('the HTTP cache of index responses', () => {
  it('serves a fresh response without a request', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=600', etag: '"v1"' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    seen = [];
    clock += 599_000;
    const gw = run();
    expect(await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).toHaveLength(1);
    // Neither the repodata nor the shard index it was read for lack of is asked again.
    expect(seen).toEqual([]);
    expect(gw.stats).toMatchObject({ requests: 0, downloadedBytes: 0 });
  });

  it('asks conditionally once stale, and uses the kept body on a 304', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=60', etag: '"v1"', 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    clock += 61_000;
    seen = [];
    const gw = run();
    expect(await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).toHaveLength(1);
    const [r] = requested('/ch/linux-64/repodata.json.zst');
    expect(r).toMatchObject({ status: 304, headers: { 'if-none-match': '"v1"', 'if-modified-since': 'Mon, 01 Dec 2025 00:00:00 GMT' } });
    expect(gw.stats).toMatchObject({ downloadedBytes: 0, notModified: 1 });
  });

  it('takes the new body when the server changed it (stale + 200)', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=0', etag: '"v1"' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    await fullRepodata('linux-64', ['level-zero', 'level-zero-devel'], { 'cache-control': 'max-age=0', etag: '"v2"' });
    seen = [];
    const names = (await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero', 'level-zero-devel'])).map((c) => c.name);
    expect(names).toEqual(['level-zero', 'level-zero-devel']);
    expect(requested('/ch/linux-64/repodata.json.zst')).toMatchObject([{ status: 200, headers: { 'if-none-match': '"v1"' } }]);
    // The old body is gone: one body per URL.
    const bodies = await fs.readdir(path.join(cacheDir, 'index', 'bodies'), { recursive: true });
    expect(bodies.filter((b) => /[0-9a-f]{64}$/.test(b))).toHaveLength(1);
  });

  it('fetches a damaged cached body again, whole', async () => {
    const json = await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=600', etag: '"v1"' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    const dir = path.join(cacheDir, 'index', 'bodies');
    const [body] = (await fs.readdir(dir, { recursive: true })).filter((b) => /[0-9a-f]{64}$/.test(b));
    const file = path.join(dir, body!);
    // What the first plan found is kept beside the body; without it, the next plan reads the body.
    for (const f of await fs.readdir(dir, { recursive: true })) if (f.includes('.records-')) await fs.rm(path.join(dir, f));
    const bytes = await fs.readFile(file);
    bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0xff;
    await fs.writeFile(file, bytes);
    seen = [];
    expect(await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).toHaveLength(1);
    expect(requested('/ch/linux-64/repodata.json.zst')).toMatchObject([{ status: 200 }]);
    expect(requested('/ch/linux-64/repodata.json.zst')[0]!.headers['if-none-match']).toBeUndefined();
    expect(json.length).toBeGreaterThan(0);
  });

  it('keeps what a scan of a body found, downloaded or cached, so the next plan does not scan it again; a new body drops it', async () => {
    await fullRepodata('linux-64', ['level-zero', 'other'], { 'cache-control': 'max-age=0', etag: '"v1"' });
    const files = async () => (await fs.readdir(path.join(cacheDir, 'index', 'bodies'), { recursive: true })).filter((f) => /[0-9a-f]{64}/.test(f)).sort();
    const names = async () => (await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.name);
    // The plan that downloads the body keeps what it found beside it.
    expect(await names()).toEqual(['level-zero']);
    const [body, kept] = await files();
    const scanned = ['level-zero', ...CONDA_RUNTIME_PACKAGES].sort().join('\n');
    expect(kept).toBe(`${body}.records-${createHash('sha256').update(scanned).digest('hex').slice(0, 16)}`);
    // The answer comes from what was kept: the body is not read again (a damaged one would be noticed otherwise).
    await fs.writeFile(path.join(cacheDir, 'index', 'bodies', kept!), JSON.stringify({ packages: {}, 'packages.conda': { 'level-zero-9.9-h0_0.conda': { ...record('level-zero', '9.9'), sha256: 'a'.repeat(64), md5: 'b'.repeat(32) } } }));
    expect((await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.version)).toEqual(['9.9']);
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=0', etag: '"v2"' });
    expect(await names()).toEqual(['level-zero']);
    const [body2, kept2] = await files();
    expect(body2).not.toBe(body);
    expect(kept2).toBe(`${body2}.records-${createHash('sha256').update(scanned).digest('hex').slice(0, 16)}`);
    expect(await files()).toHaveLength(2);
  });

  it('one scan also takes the GCC runtime packages a closure asks for next: asking for them reads nothing more', async () => {
    await fullRepodata('linux-64', ['level-zero', 'libstdcxx', 'libgcc', '_openmp_mutex', 'python'], { 'cache-control': 'max-age=600' });
    const gw = run();
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.name)).toEqual(['level-zero']);
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['libstdcxx', 'libgcc', '_openmp_mutex', '_libgcc_mutex'])).map((c) => c.name)).toEqual(['libstdcxx', 'libgcc', '_openmp_mutex']);
    expect(requested('/ch/linux-64/repodata.json.zst')).toHaveLength(1);
    // A name outside that set is a scan of the kept body, not a download.
    expect((await gw.condaRecords(`${base}/ch`, 'linux-64', ['python'])).map((c) => c.name)).toEqual(['python']);
    expect(requested('/ch/linux-64/repodata.json.zst')).toHaveLength(1);
  });

  it('a damaged entry record is an absent one', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=600', etag: '"v1"' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    const dir = path.join(cacheDir, 'index', 'entries');
    for (const f of (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith('.json'))) await fs.writeFile(path.join(dir, f), '{"url": 3');
    seen = [];
    expect(await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).toHaveLength(1);
    expect(requested('/ch/linux-64/repodata.json.zst')).toMatchObject([{ status: 200 }]);
  });

  it('two runs at once both answer, and leave one intact entry behind', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=600', etag: '"v1"' });
    await shardedSubdir('win-64', { 'level-zero': [record('level-zero', '1.20.6')] });
    const both = await Promise.all([run(), run()].map((g) => Promise.all([g.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']), g.condaRecords(`${base}/ch`, 'win-64', ['level-zero'])])));
    expect(both.map(([a, b]) => [a.length, b.length])).toEqual([[1, 1], [1, 1]]);
    expect(await fs.readdir(path.join(cacheDir, 'index', 'tmp'))).toEqual([]);
    seen = [];
    const third = run();
    await third.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    await third.condaRecords(`${base}/ch`, 'win-64', ['level-zero']);
    expect(third.stats).toMatchObject({ downloadedBytes: 0, fresh: 3 });
  });

  it('writes on when directories it made were removed meanwhile (a cache clean at the same time)', async () => {
    const cache = new IndexCache(path.join(cacheDir, 'index'));
    await cache.putDerived('a'.repeat(64), 'json', Buffer.from('{}'));
    await fs.rm(path.join(cacheDir, 'index'), { recursive: true });
    await cache.putDerived('a'.repeat(64), 'json', Buffer.from('{"x":1}'));
    expect((await cache.readDerived('a'.repeat(64), 'json'))?.toString()).toBe('{"x":1}');
  });

  it('--refresh revalidates a fresh response and does not download it again', async () => {
    await fullRepodata('linux-64', ['level-zero'], { 'cache-control': 'max-age=600', etag: '"v1"' });
    await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    seen = [];
    const gw = run({ policy: 'refresh' });
    await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);
    expect(requested('/ch/linux-64/repodata.json.zst')).toMatchObject([{ status: 304 }]);
  });

  it('keeps PyPI pages too: the re-plan is a 304', async () => {
    const page = { meta: { 'api-version': '1.1' }, name: 'umf', files: [{ filename: 'umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl', url: 'umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl', hashes: { sha256: 'c'.repeat(64) }, 'core-metadata': { sha256: sha(Buffer.from('Name: umf\n')) } }] };
    routes['/simple/umf/'] = { body: Buffer.from(JSON.stringify(page)), headers: { 'content-type': 'application/vnd.pypi.simple.v1+json', 'cache-control': 'max-age=600', etag: '"p1"' } };
    routes['/simple/umf/umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl.metadata'] = { body: Buffer.from('Name: umf\n') };
    const files = await run().pypiProjectFiles(`${base}/simple`, 'UMF');
    expect(files[0]).toMatchObject({ filename: page.files[0]!.filename, coreMetadata: sha(Buffer.from('Name: umf\n')) });
    clock += 601_000;
    seen = [];
    const gw = run();
    expect(await gw.pypiProjectFiles(`${base}/simple`, 'umf')).toEqual(files);
    expect(seen.map((s) => [s.url, s.status])).toEqual([['/simple/umf/', 304]]);
    expect(await gw.coreMetadata(files[0]!)).toBe('Name: umf\n');
    routes['/simple/umf/umf-1.0.2-py2.py3-none-manylinux_2_28_x86_64.whl.metadata'] = { body: Buffer.from('Name: evil\n') };
    expect(await run().coreMetadata(files[0]!).catch((e: unknown) => e)).toMatchObject({ code: 'HASH_MISMATCH' });
  });
});

describe('a body on its way to the cache and to its reader', () => {
  const body = randomBytes(3_000_000);
  const headers = { 'cache-control': 'max-age=600', etag: '"b1"' };
  const kept = async () => {
    const again = run();
    const got = await again.client.bytes(`${base}/big`);
    expect(again.stats).toMatchObject({ requests: 0, fresh: 1 });
    return got.bytes;
  };

  it('reaches a reader of pieces and one of the stream whole, and is kept whole', async () => {
    routes['/big'] = { body, headers };
    const gw = run();
    const parts: Buffer[] = [];
    await gw.client.consume(`${base}/big`, {}, (b) => (b as PieceStream).pump((piece) => void parts.push(Buffer.from(piece))));
    expect(Buffer.concat(parts).equals(body)).toBe(true);
    expect((await kept()).equals(body)).toBe(true);
    expect(gw.stats.downloadedBytes).toBe(body.length);
  });

  it('is kept whole when its reader stops part-way, or reads none of it', async () => {
    routes['/big'] = { body, headers };
    await run().client.consume(`${base}/big`, {}, async (b) => {
      for await (const c of b) {
        void c;
        b.destroy();
        break;
      }
    });
    expect((await kept()).equals(body)).toBe(true);
    await fs.rm(path.join(cacheDir, 'index'), { recursive: true });
    await run().client.consume(`${base}/big`, {}, async () => undefined);
    expect((await kept()).equals(body)).toBe(true);
  });
});

describe('server errors and missing files', () => {
  it('retries a 5xx on repodata.json.zst and never asks for the uncompressed file', async () => {
    const json = await fullRepodata('linux-64', ['level-zero']);
    const good = routes['/ch/linux-64/repodata.json.zst'] as Served;
    routes['/ch/linux-64/repodata.json'] = { body: json };
    let n = 0;
    routes['/ch/linux-64/repodata.json.zst'] = () => (n++ === 0 ? { status: 503, body: Buffer.from('busy') } : good);
    expect(await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).toHaveLength(1);
    expect(requested('/ch/linux-64/repodata.json.zst').map((s) => s.status)).toEqual([503, 200]);
    routes['/ch/linux-64/repodata.json.zst'] = { status: 503, body: Buffer.from('busy') };
    await fs.rm(cacheDir, { recursive: true, force: true });
    const err = await run().condaRecords(`${base}/ch`, 'linux-64', ['level-zero']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'HTTP_STATUS', details: { status: 503 } });
    expect(requested('/ch/linux-64/repodata.json')).toEqual([]);
  });

  it('tries repodata.json, gzip-encoded, only after a 404 on the .zst, and says so', async () => {
    const packages = { 'level-zero-1.0-h0_0.conda': { ...record('level-zero', '1.0'), sha256: 'a'.repeat(64), md5: 'b'.repeat(32) } };
    const json = Buffer.from(JSON.stringify({ info: { subdir: 'linux-64' }, 'packages.conda': packages }));
    routes['/ch/linux-64/repodata.json'] = (req) =>
      /gzip/.test(String(req.headers['accept-encoding'])) ? { body: gzipSync(json), headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } } : { body: json };
    const said: string[] = [];
    const reporter: Reporter = { ...silentReporter, note: (m) => said.push(m) };
    expect((await run({ reporter }).condaRecords(`${base}/ch`, 'linux-64', ['level-zero'])).map((c) => c.name)).toEqual(['level-zero']);
    expect(requested('/ch/linux-64/repodata.json')[0]!.headers['accept-encoding']).toBe('gzip');
    expect(said).toEqual([expect.stringMatching(/repodata\.json\.zst is not there \(HTTP 404\); reading .*repodata\.json instead/)]);
  });

  it('an absent noarch is no error; an absent platform subdir is', async () => {
    await fullRepodata('linux-64', ['level-zero']);
    const gw = run();
    expect(await gw.condaRecords(`${base}/ch`, 'noarch', ['level-zero'], { optional: true })).toEqual([]);
    expect(await gw.condaRecords(`${base}/ch`, 'win-64', ['level-zero']).catch((e: unknown) => e)).toMatchObject({ code: 'NOT_FOUND' });
  });
});
