// Fault matrix, indexes: a sharded conda channel on 127.0.0.1 that names local paths, sends bombs, drips its bodies
// and depends on virtual packages; the CLI run as a process (peak RSS measured where memory is the point).
import { encode } from '@msgpack/msgpack';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, scrubbedEnv } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { serveLocal, type LocalServer } from '../support/static-server.js';
import { buildFixturePackages, zstdCompress, type FixtureArtifact, type FixturePackages } from '../support/packages.js';
import { compareSnapshots, FaultTable, makeSentinel, snapshotTree } from './matrix.js';

const table = new FaultTable('fault matrix: indexes (setup --no-smoke --no-probe --json, sharded channel on 127.0.0.1)');
const fx = withFixtureRun('faults-index', { noIndex: true });
let fixtures: FixturePackages;
let server: LocalServer;
let base: string;

/** Path -> what the server answers; `dripMs`: headers at once, then one byte every dripMs. */
interface Route {
  body: Buffer;
  headers?: Record<string, string>;
  dripMs?: number;
}
let routes = new Map<string, Route>();
const requests: string[] = [];
/** Requests as host, path and the Authorization they carried. */
const seen: Array<{ host: string; path: string; auth?: string }> = [];
/** When set, /ch/ paths asked for on 127.0.0.1 without this Authorization answer 401. */
let requireAuth: string | undefined;

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const L0: Array<(a: FixtureArtifact, f: FixturePackages) => boolean> = [
  (a, f) => a.format === 'conda' && a.name === 'level-zero' && a.version === f.l0Versions.bookworm && a.platform === 'linux-x64',
  (a, f) => a.format === 'conda' && a.name === 'level-zero-devel' && a.version === f.l0Versions.bookworm && a.platform === 'linux-x64',
];

beforeAll(async () => {
  fixtures = await buildFixturePackages();
  server = await serveLocal((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(p);
    seen.push({ host: req.headers.host ?? '', path: p, auth: req.headers.authorization });
    if (requireAuth && p.startsWith('/ch/') && req.headers.host?.startsWith('127.0.0.1') && req.headers.authorization !== requireAuth) {
      return void res.writeHead(401, { 'content-length': 0, 'www-authenticate': 'Basic realm="private channel"' }).end();
    }
    const r = routes.get(p);
    if (!r) return void res.writeHead(404, { 'content-length': 0 }).end();
    res.writeHead(200, { 'content-length': r.body.length, ...r.headers });
    if (!r.dripMs) return void res.end(r.body);
    let i = 0;
    const t = setInterval(() => {
      if (res.destroyed || i >= r.body.length) return void (clearInterval(t), res.end());
      res.write(r.body.subarray(i, ++i));
    }, r.dripMs);
    res.on('close', () => clearInterval(t));
  });
  base = server.url;
}, 300_000);

afterAll(async () => {
  table.print();
  await server?.close();
});

interface Record_ {
  filename: string;
  record: Record<string, unknown>;
}

/** The real level-zero + level-zero-devel records (bookworm's loader), served at /ch/linux-64/<file>; `edit` alters a copy. */
async function l0Records(edit: (r: Record<string, unknown>) => void = () => undefined): Promise<Record_[]> {
  const out: Record_[] = [];
  for (const pick of L0) {
    const a = fixtures.artifacts.find((x) => pick(x, fixtures))!;
    routes.set(`/ch/linux-64/${a.filename}`, { body: await fs.readFile(a.path) });
    const record: Record<string, unknown> = { ...a.conda, sha256: a.sha256, md5: a.md5, size: a.size };
    if (a.name === 'level-zero') edit(record);
    out.push({ filename: a.filename, record });
  }
  return out;
}

const bytesOf = (hex: string) => Buffer.from(hex, 'hex');

/** A CEP-16 sharded linux-64 subdir (noarch absent) from these records; `shardBytes` replaces a shard's compressed bytes. */
async function shardedChannel(
  records: Record_[],
  opts: { info?: Record<string, unknown>; shardBytes?: (name: string, real: Buffer) => Buffer | Promise<Buffer>; indexBytes?: Buffer } = {},
): Promise<void> {
  const shards: Record<string, Uint8Array> = {};
  for (const name of new Set(records.map((r) => String(r.record.name)))) {
    const table_: Record<string, unknown> = {};
    for (const r of records.filter((x) => x.record.name === name)) {
      table_[r.filename] = { ...r.record, sha256: bytesOf(String(r.record.sha256)), md5: bytesOf(String(r.record.md5)) };
    }
    const real = await zstdCompress(Buffer.from(encode({ packages: {}, 'packages.conda': table_, removed: [] })));
    const body = opts.shardBytes ? await opts.shardBytes(name, real) : real;
    shards[name] = bytesOf(sha(body));
    routes.set(`/ch/linux-64/shards/${sha(body)}.msgpack.zst`, { body, headers: { 'cache-control': 'public, max-age=31536000, immutable' } });
  }
  const index = { info: { subdir: 'linux-64', base_url: './', shards_base_url: './shards/', ...opts.info }, shards };
  routes.set('/ch/linux-64/repodata_shards.msgpack.zst', { body: opts.indexBytes ?? (await zstdCompress(Buffer.from(encode(index)))), headers: { 'cache-control': 'max-age=60' } });
}

/** The same subdir as a full repodata.json.zst (no shard index); `body` replaces the compressed document. */
async function fullChannel(records: Record_[], opts: { doc?: Record<string, unknown>; body?: Buffer; file?: string; headers?: Record<string, string> } = {}): Promise<void> {
  const doc = { info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': Object.fromEntries(records.map((r) => [r.filename, r.record])), ...opts.doc };
  routes.set(`/ch/linux-64/${opts.file ?? 'repodata.json.zst'}`, { body: opts.body ?? (await zstdCompress(Buffer.from(JSON.stringify(doc)))), headers: opts.headers });
}

let bomb64: Buffer | undefined;
/** `frames` zstd frames of 64 MiB of spaces each, concatenated (a valid zstd stream): about 1.5 KB on the wire per 64 MiB. */
async function zstdBomb(frames: number, head = Buffer.alloc(0), tail = Buffer.alloc(0)): Promise<Buffer> {
  bomb64 ??= await zstdCompress(Buffer.alloc(64 << 20, 0x20));
  return Buffer.concat([...(head.length ? [await zstdCompress(head)] : []), ...Array<Buffer>(frames).fill(bomb64), ...(tail.length ? [await zstdCompress(tail)] : [])]);
}

/** The same as gzip members (gunzip reads concatenated members as one stream). */
function gzipBomb(members: number, head: Buffer, tail: Buffer): Buffer {
  const spaces = zlib.gzipSync(Buffer.alloc(64 << 20, 0x20), { level: 9 });
  return Buffer.concat([zlib.gzipSync(head), ...Array<Buffer>(members).fill(spaces), zlib.gzipSync(tail)]);
}

interface Outcome {
  exit: number;
  code: string;
  stderr: string;
  stdout: string;
  home: string;
  doc: { ok?: boolean; error?: { code?: string; message?: string; hints?: string[]; details?: Record<string, unknown> } };
  /** Peak resident set of the CLI process (GNU time's maximum RSS), in MB. */
  rssMb: number;
  prefix: string;
  cache: string;
}

let caseNo = 0;

/** One setup run against the channel as the case left it; `--no-smoke --no-probe`, a sentinel tree beside it. */
async function runCase(
  name: string,
  env: Record<string, string> = {},
  extraArgs: string[] = [],
  channel = `${base}/ch`,
  source = ['--component', 'level-zero', '--source', 'conda', '--conda-channel', channel],
  /** A hosts file the run sees as /etc/hosts (bound over it in a mount namespace of its own; needs root). */
  hosts?: string,
): Promise<Outcome> {
  const dir = fx.at(`case-${caseNo++}`);
  await makeSentinel(path.join(dir, 'outside'));
  await fs.mkdir(path.join(dir, 'home'));
  const before = await snapshotTree(path.join(dir, 'outside'));
  const prefix = path.join(dir, 'prefix');
  const cache = path.join(dir, 'cache');
  const rssFile = path.join(dir, 'rss');
  const args = ['--json', '--no-smoke', '--no-probe', '--prefix', prefix, '--cache-dir', cache, ...source, ...extraArgs];
  const t0 = Date.now();
  const timed = ['/usr/bin/time', '-f', '%M', '-o', rssFile, process.execPath, BIN, ...args];
  const command = hosts ? ['unshare', '-m', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$@"', hosts, ...timed] : timed;
  const r = await execa(command[0]!, command.slice(1), {
    env: scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_HTTP_ATTEMPTS: '2', XPU_SETUP_HTTP_BACKOFF_SECONDS: '0.02', ...env }),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
  const ms = Date.now() - t0;
  const rssMb = Math.round(Number((await fs.readFile(rssFile, 'utf8').catch(() => '0')).trim().split('\n').pop()) / 1024);
  let doc: Outcome['doc'] = {};
  try {
    doc = JSON.parse(String(r.stdout));
  } catch {
    // a run killed by the timeout prints nothing
  }
  const exit = r.timedOut ? -1 : (r.exitCode ?? -1);
  const code = exit === 0 ? '-' : r.timedOut ? 'TIMEOUT' : (doc.error?.code ?? '?');
  const prefixExists = await fs.stat(prefix).then(() => true, () => false);
  let outside = compareSnapshots(before, await snapshotTree(path.join(dir, 'outside')));
  if (exit !== 0 && prefixExists) outside += '; PREFIX CREATED';
  table.add({ case: `${name} [${rssMb} MB]`, exit, code, ms, outside });
  expect(outside).toBe('unchanged');
  return { exit, code, stderr: String(r.stderr), stdout: String(r.stdout), doc, rssMb, prefix, cache, home: path.join(dir, 'home') };
}

const BOMB_RSS_MB = 200;

/** Binding a hosts file over /etc/hosts needs root and unshare. */
const canBindHosts = process.getuid?.() === 0 && (await execa('sh', ['-c', 'command -v unshare'], { reject: false })).exitCode === 0;

/** Whether the process is gone (or a zombie waiting for its reaper), giving a killed one a moment to go. */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined || / Z /.test(stat.slice(stat.lastIndexOf(')')))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** The text of every regular file under dir (for a secret that must not be written anywhere). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of await fs.readdir(dir, { recursive: true }).catch(() => [] as string[])) {
    const abs = path.join(dir, f);
    if ((await fs.lstat(abs)).isFile()) out.push((await fs.readFile(abs)).toString('latin1'));
  }
  return out;
}

describe('index fault matrix', () => {
  it('clean sharded channel (baseline)', async () => {
    routes = new Map();
    await shardedChannel(await l0Records());
    const o = await runCase('clean sharded channel (baseline)');
    expect([o.exit, o.code]).toEqual([0, '-']);
  });

  it('clean full-file channel (baseline)', async () => {
    routes = new Map();
    await fullChannel(await l0Records());
    const o = await runCase('clean repodata.json.zst (baseline)');
    expect([o.exit, o.code]).toEqual([0, '-']);
  });

  // ---- 1. URLs an index hands out ------------------------------------------------------------------------------

  it('shard index base_url file://<dir of FIFOs>/: refused at once, nothing opened', async () => {
    routes = new Map();
    const fifos = fx.at('fifos');
    await fs.mkdir(fifos, { recursive: true });
    const records = await l0Records();
    for (const r of records) await execa('mkfifo', [path.join(fifos, r.filename)]).catch(() => undefined);
    await shardedChannel(records, { info: { base_url: `file://${fifos}/` } });
    const o = await runCase('shard index base_url file:// (FIFOs)');
    expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
    expect(o.doc.error?.message).toMatch(/info\.base_url of .*repodata_shards\.msgpack\.zst names file:\/\//);
  });

  it('shard index base_url file://<dir of regular files>/: refused, not installed from the local path', async () => {
    routes = new Map();
    const local = fx.at('local-files');
    await fs.mkdir(local, { recursive: true });
    const records = await l0Records();
    for (const pick of L0) {
      const a = fixtures.artifacts.find((x) => pick(x, fixtures))!;
      await fs.copyFile(a.path, path.join(local, a.filename));
    }
    await shardedChannel(records, { info: { base_url: `file://${local}/` } });
    const o = await runCase('shard index base_url file:// (files)');
    expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
  });

  it('shard index shards_base_url file:: refused once, not retried as "cannot reach"', async () => {
    routes = new Map();
    await shardedChannel(await l0Records(), { info: { shards_base_url: 'file:///etc/' } });
    const before = requests.length;
    const o = await runCase('shard index shards_base_url file:', { XPU_SETUP_HTTP_ATTEMPTS: '6', XPU_SETUP_HTTP_RETRY_SECONDS: '60' });
    expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
    expect(o.doc.error?.message).toMatch(/info\.shards_base_url/);
    expect(requests.slice(before).filter((p) => p === '/ch/linux-64/repodata_shards.msgpack.zst')).toHaveLength(1);
  });

  it('shard index base_url at a link-local address: refused', async () => {
    routes = new Map();
    await shardedChannel(await l0Records(), { info: { base_url: 'http://169.254.169.254/latest/' } });
    const o = await runCase('shard index base_url http://169.254.169.254/');
    expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
    expect(o.doc.error?.message).toMatch(/link-local/);
  });

  it('base_url at a link-local address inside IPv6 (mapped, hex, NAT64): refused, never asked', async () => {
    for (const [name, baseUrl] of [
      ['shard index base_url http://[::ffff:169.254.170.2]/', 'http://[::ffff:169.254.170.2]/v2/'],
      ['shard index base_url http://[::ffff:a9fe:a9fe]:8080/', 'http://[::ffff:a9fe:a9fe]:8080/latest/'],
      ['shard index base_url http://[64:ff9b::169.254.169.254]/', 'http://[64:ff9b::169.254.169.254]/'],
    ]) {
      routes = new Map();
      await shardedChannel(await l0Records(), { info: { base_url: baseUrl } });
      const o = await runCase(name!);
      expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
      expect(o.doc.error?.message).toMatch(/info\.base_url of .* names http:\/\/\[.*a link-local address/);
    }
  });

  // A name the machine resolves to a link-local address (its /etc/hosts, in a mount namespace of the run's own).
  it.skipIf(!canBindHosts)('base_url naming a host that resolves to 169.254.x.x: refused at the connection, not retried', async () => {
    for (const [name, env] of [
      ['base_url host resolving to 169.254.77.77', {}],
      ['the same, reached past a proxy (NO_PROXY)', { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,metadata.xpu-test' }],
    ] as const) {
      routes = new Map();
      await shardedChannel(await l0Records(), { info: { base_url: `http://metadata.xpu-test:${new URL(base).port}/ch/linux-64/` } });
      const hosts = fx.at('hosts');
      await fs.writeFile(hosts, '127.0.0.1 localhost\n169.254.77.77 metadata.xpu-test\n');
      const t0 = Date.now();
      const o = await runCase(name, { ...env }, [], `${base}/ch`, undefined, hosts);
      expect([o.exit, o.code], o.stderr).toEqual([1, 'NETWORK']);
      expect(o.doc.error?.message).toMatch(/metadata\.xpu-test resolves to 169\.254\.77\.77, a link-local address; not connected/);
      expect(o.doc.error?.details?.code).toBe('LINK_LOCAL');
      expect(Date.now() - t0).toBeLessThan(3000);
    }
  });

  it('repodata.json v2 info.base_url file:: refused', async () => {
    routes = new Map();
    await fullChannel(await l0Records(), { doc: { repodata_version: 2, info: { subdir: 'linux-64', base_url: 'file:///tmp/' } } });
    const o = await runCase('repodata v2 info.base_url file:');
    expect([o.exit, o.code]).toEqual([1, 'URL_REFUSED']);
    expect(o.doc.error?.message).toMatch(/info\.base_url of .*repodata\.json/);
  });

  // ---- 2. decompression bombs ----------------------------------------------------------------------------------

  it('shard index: a zstd frame of 3 GiB of spaces, under 200 MB', async () => {
    routes = new Map();
    await shardedChannel(await l0Records(), { indexBytes: await zstdBomb(48) });
    const o = await runCase('shard index: 3 GiB zstd bomb');
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(o.doc.error?.message).toMatch(/repodata_shards\.msgpack\.zst decompresses to more than/);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  it('shard: 3 GiB of spaces behind its true sha256, under 200 MB', async () => {
    routes = new Map();
    const b = await zstdBomb(48);
    await shardedChannel(await l0Records(), { shardBytes: (name, real) => (name === 'level-zero' ? b : real) });
    const o = await runCase('shard: 3 GiB zstd bomb (true sha256)');
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  it('shard: 2,000,000 nested one-element arrays, under 200 MB', async () => {
    routes = new Map();
    const nested = await zstdCompress(Buffer.concat([Buffer.from([0x81, 0xa8]), Buffer.from('packages'), Buffer.alloc(2_000_000, 0x91), Buffer.from([0xc0])]));
    await shardedChannel(await l0Records(), { shardBytes: (name, real) => (name === 'level-zero' ? nested : real) });
    const o = await runCase('shard: 2,000,000 nested arrays');
    expect([o.exit, o.code]).toEqual([1, 'SOURCE_FAILED']);
    expect(o.doc.error?.message).toMatch(/nests arrays and maps more than 32 deep/);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  it('repodata.json.zst holding 4 GiB of whitespace: stopped at the limit', async () => {
    routes = new Map();
    const body = await zstdBomb(64, Buffer.from('{"info":{"subdir":"linux-64"},'), Buffer.from('"packages":{}}'));
    await fullChannel(await l0Records(), { body });
    const o = await runCase('repodata.json.zst: 4 GiB of whitespace');
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(o.doc.error?.message).toMatch(/repodata\.json\.zst decompresses to more than/);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  it('repodata.json, gzip-encoded, holding 4 GiB of whitespace: stopped at the limit', async () => {
    routes = new Map();
    const records = await l0Records();
    await fullChannel(records, { file: 'repodata.json', body: gzipBomb(64, Buffer.from('{"info":{"subdir":"linux-64"},'), Buffer.from('"packages":{}}')), headers: { 'content-encoding': 'gzip' } });
    const o = await runCase('repodata.json (gzip): 4 GiB of whitespace');
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  // ---- 3. deadlines and the minimum rate on index reads ---------------------------------------------------------

  it('repodata dripped at 1 byte every 0.5 s: the minimum rate stops it', async () => {
    routes = new Map();
    await fullChannel(await l0Records(), { headers: {} });
    routes.get('/ch/linux-64/repodata.json.zst')!.dripMs = 500;
    const o = await runCase('repodata.json.zst dripped (min rate)', { XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '100', XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS: '2', XPU_SETUP_HTTP_ATTEMPTS: '1' });
    expect([o.exit, o.code]).toEqual([1, 'TOO_SLOW']);
  });

  it('shard index dripped under the deadline for index reads', async () => {
    routes = new Map();
    await shardedChannel(await l0Records());
    routes.get('/ch/linux-64/repodata_shards.msgpack.zst')!.dripMs = 200;
    const o = await runCase('shard index dripped (index deadline)', { XPU_SETUP_INDEX_DEADLINE_SECONDS: '2', XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '0', XPU_SETUP_HTTP_ATTEMPTS: '1' });
    expect([o.exit, o.code]).toEqual([1, 'DEADLINE']);
    expect(o.doc.error?.message).toMatch(/reading .*repodata_shards\.msgpack\.zst did not finish within 2 s/);
  });

  // ---- 4. virtual packages ---------------------------------------------------------------------------------------

  for (const [dep, says] of [
    ['__glibc >=99', /__glibc >=99.*only __glibc 2\.\d+ can be had/],
    ['__cuda >=12', /__cuda >=12.*no __cuda/],
    ['__nonexistent', /__nonexistent.*no __nonexistent/],
    ['__glibc>=99', /__glibc.*99.*2\.\d+/],
  ] as const) {
    it(`a record depending on ${dep}: unmet, the host's value named`, async () => {
      routes = new Map();
      await shardedChannel(await l0Records((r) => (r.depends = [...(r.depends as string[]), dep])));
      const o = await runCase(`depends on ${dep}`);
      expect(o.exit).toBe(1);
      expect(o.code).toBe('RESOLUTION_CONFLICT');
      expect(`${o.doc.error?.message}\n${o.doc.error?.hints?.join('\n')}`).toMatch(says);
    });
  }

  // ---- 5. child processes -------------------------------------------------------------------------------------

  it('--match-torch with a python that forks a sleeper and hangs: stopped as a group at its time limit', async () => {
    routes = new Map();
    await shardedChannel(await l0Records());
    const py = fx.at('hanging-python');
    const pidFile = fx.at('sleeper.pid');
    await fs.writeFile(py, `#!/bin/sh\nsleep 3000 &\necho $! > '${pidFile}'\nsleep 3000\n`, { mode: 0o755 });
    const o = await runCase('--match-torch: python forks a sleeper, hangs', {}, [`--match-torch=${py}`]);
    expect([o.exit, o.code]).toEqual([1, 'MATCH_TORCH']);
    expect(await ended(Number(await fs.readFile(pidFile, 'utf8')))).toBe(true);
  });

  it('--match-torch with a python that prints 300 MB: output capped, under 200 MB', async () => {
    routes = new Map();
    await shardedChannel(await l0Records());
    const py = fx.at('flooding-python');
    await fs.writeFile(py, '#!/bin/sh\nhead -c 300000000 /dev/zero | tr "\\0" x\n', { mode: 0o755 });
    const o = await runCase('--match-torch: python prints 300 MB', {}, [`--match-torch=${py}`]);
    expect([o.exit, o.code]).toEqual([1, 'MATCH_TORCH']);
    expect(o.rssMb).toBeLessThan(BOMB_RSS_MB);
  });

  // ---- 7. cost bounds ----------------------------------------------------------------------------------------------

  it('a METADATA with 10,000 Requires-Dist names the index lacks: stopped at the first, a few requests', async () => {
    routes = new Map();
    const ur = fixtures.artifacts.find((a) => a.format === 'wheel' && a.name === 'intel-cmplr-lib-ur' && a.version === fixtures.urVersions.newer && a.platform === 'linux-x64')!;
    const names = Array.from({ length: 10_000 }, (_, i) => `Requires-Dist: missing-dependency-${i} >=1`);
    const metadata = Buffer.from(`Metadata-Version: 2.1\nName: intel-cmplr-lib-ur\nVersion: ${ur.version}\n${names.join('\n')}\n\n`);
    routes.set(`/files/${ur.filename}`, { body: await fs.readFile(ur.path) });
    routes.set(`/files/${ur.filename}.metadata`, { body: metadata });
    const page = { meta: { 'api-version': '1.1' }, name: 'intel-cmplr-lib-ur', files: [{ filename: ur.filename, url: `../../files/${ur.filename}`, hashes: { sha256: ur.sha256 }, size: ur.size, 'core-metadata': { sha256: sha(metadata) } }] };
    routes.set('/simple/intel-cmplr-lib-ur/', { body: Buffer.from(JSON.stringify(page)), headers: { 'content-type': 'application/vnd.pypi.simple.v1+json' } });
    const from = requests.length;
    const o = await runCase('METADATA: 10,000 names the index lacks', {}, [], '', ['--component', 'unified-runtime', '--source', 'pypi', '--index-url', `${base}/simple`]);
    expect([o.exit, o.code]).toEqual([1, 'RESOLUTION_CONFLICT']);
    expect(o.doc.error?.message).toMatch(/missing-dependency-0/);
    expect(requests.length - from).toBeLessThan(40);
  });

  it('a METADATA past the requirement limit: TOO_LARGE naming the limit', async () => {
    // The index of the case above, with a lower limit.
    const o = await runCase('METADATA: past XPU_SETUP_MAX_REQUIREMENTS=500', { XPU_SETUP_MAX_REQUIREMENTS: '500' }, [], '', ['--component', 'unified-runtime', '--source', 'pypi', '--index-url', `${base}/simple`]);
    expect([o.exit, o.code]).toEqual([1, 'TOO_LARGE']);
    expect(o.doc.error?.message).toMatch(/more than 500/);
  });

  // ---- 6. credentials in a channel URL ---------------------------------------------------------------------------

  it('a private channel http://alice:s3cret@host/: Basic auth to that host only, written nowhere', async () => {
    routes = new Map();
    const port = new URL(base).port;
    // Packages on another origin (localhost, not 127.0.0.1): the index names it, the credentials must not follow.
    await shardedChannel(await l0Records(), { info: { base_url: `http://localhost:${port}/files/linux-64/` } });
    for (const [p, r] of [...routes]) if (p.startsWith('/ch/linux-64/') && p.endsWith('.conda')) routes.set(p.replace('/ch/', '/files/'), r);
    requireAuth = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    const from = seen.length;
    try {
      const o = await runCase('private channel alice:s3cret@', {}, [], `http://alice:s3cret@127.0.0.1:${port}/ch`);
      expect([o.exit, o.code]).toEqual([0, '-']);
      const asked = seen.slice(from);
      expect(asked.filter((r) => r.path.startsWith('/ch/linux-64/')).every((r) => r.auth === requireAuth)).toBe(true);
      const elsewhere = asked.filter((r) => r.path.startsWith('/files/'));
      expect(elsewhere.length).toBeGreaterThan(0);
      expect(elsewhere.map((r) => r.auth)).toEqual(elsewhere.map(() => undefined));
      const doctor = await execa(process.execPath, [BIN, 'doctor', '--json', '--prefix', o.prefix, '--conda-channel', `http://alice:s3cret@127.0.0.1:${port}/ch`], { env: scrubbedEnv(o.home), extendEnv: false, reject: false });
      const written = [o.stdout, o.stderr, String(doctor.stdout), String(doctor.stderr), ...(await filesUnder(o.prefix)), ...(await filesUnder(o.cache))].join('\n');
      expect(written).not.toContain('s3cret');
      expect(o.stdout).toContain(`alice:***@127.0.0.1:${port}/ch`);
    } finally {
      requireAuth = undefined;
    }
  });

  // ---- a .conda and its .tar.bz2 twin (same name, version and build), each judged by its own record ---------------

  /** Debian 12's level-zero and level-zero-devel as .conda and as .tar.bz2, as a full repodata.json.zst; `needs` adds a depends. */
  async function twinChannel(needs: { conda?: string; tarbz2?: string }): Promise<void> {
    const tables: Record<'packages' | 'packages.conda', Record<string, Record<string, unknown>>> = { packages: {}, 'packages.conda': {} };
    for (const a of fixtures.artifacts.filter((x) => x.platform === 'linux-x64' && x.version === fixtures.l0Versions.bookworm && x.conda?.build_number === 0 && (x.name === 'level-zero' || x.name === 'level-zero-devel'))) {
      routes.set(`/ch/linux-64/${a.filename}`, { body: await fs.readFile(a.path) });
      const extra = a.name === 'level-zero' ? (a.format === 'conda' ? needs.conda : needs.tarbz2) : undefined;
      const record: Record<string, unknown> = { ...a.conda, sha256: a.sha256, md5: a.md5, size: a.size };
      if (extra) record.depends = [...((record.depends as string[]) ?? []), extra];
      tables[a.format === 'conda' ? 'packages.conda' : 'packages'][a.filename] = record;
    }
    await fullChannel([], { doc: tables });
  }

  for (const [name, needs, exit, installed] of [
    ['.conda needs __glibc >=99, its .tar.bz2 twin does not: the twin is installed', { conda: '__glibc >=99' }, 0, /level-zero-1\.8\.12-[^/]+\.tar\.bz2$/],
    ['.tar.bz2 needs __glibc >=99, the .conda does not: the .conda is installed', { tarbz2: '__glibc >=99' }, 0, /level-zero-1\.8\.12-[^/]+\.conda$/],
    ['both need __glibc >=99: nothing installed', { conda: '__glibc >=99', tarbz2: '__glibc >=99' }, 1, undefined],
  ] as const) {
    it(name, async () => {
      routes = new Map();
      await twinChannel(needs);
      const o = await runCase(name);
      expect([o.exit, o.code === '-' ? '-' : 'an error'], o.stderr).toEqual([exit, exit ? 'an error' : '-']);
      if (!installed) return;
      const receipt = JSON.parse(await fs.readFile(path.join(o.prefix, 'xpu-setup.receipt.json'), 'utf8')) as { archives: { package: string; url: string }[] };
      expect(receipt.archives.find((a) => a.package === 'level-zero')?.url).toMatch(installed);
    });
  }

  it('a record depending on __glibc >=2.17 and __unix: met, installed', async () => {
    routes = new Map();
    await shardedChannel(await l0Records((r) => (r.depends = [...(r.depends as string[]), '__unix', '__linux'])));
    const o = await runCase('depends on __glibc >=2.17, __unix, __linux');
    expect([o.exit, o.code]).toEqual([0, '-']);
  });
});
