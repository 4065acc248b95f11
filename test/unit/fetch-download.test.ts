// fetch/: resume with Range + If-Range, start over on a changed file, the declared size as a limit, apt's own hash check; no CLI.
import * as fs from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../src/cache/store.js';
import type { Deps, Exec } from '../../src/deps.js';
import { XpuError } from '../../src/errors.js';
import { fetchApt } from '../../src/fetch/apt.js';
import { downloadToCache } from '../../src/fetch/download.js';
import { fetchPlan } from '../../src/fetch/fetch.js';
import type { InstallPlan } from '../../src/plan/plan.js';
import { silentReporter } from '../../src/reporter.js';
import { Http } from '../../src/net/http.js';
import type { RetryClock } from '../../src/net/retry.js';
import type { PlannedArchive } from '../../src/sources/types.js';
import { deadPort, sha256, startFaultyServer, type FaultyServer } from '../support/faulty-server.js';

/** Test double for the retry clock: real time, waits return at once. */
const instantClock: RetryClock = { now: () => Date.now(), sleep: async () => undefined, random: () => 0.5 };

const FILE = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 13 + (i >> 8)) % 256));
const SHA = sha256(FILE);

let srv: FaultyServer;
let root: string;
beforeAll(async () => {
  srv = await startFaultyServer();
  root = mkdtempSync(path.join(tmpdir(), 'xpu-fetch-'));
});
afterAll(async () => {
  await srv.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const newCache = () => new DownloadCache(path.join(root, `cache-${n++}`));
const requestsFor = (p: string) => srv.requests.filter((r) => r.path === p);

async function failure(p: Promise<unknown>): Promise<XpuError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof XpuError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('downloadToCache', () => {
  it('resumes a cut download with Range and If-Range, and verifies the whole file', async () => {
    srv.script('/resume', FILE, [{ kind: 'cut', bytes: 30_000 }, { kind: 'ok' }]);
    const cache = newCache();
    const progress: number[] = [];
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/resume`, { sha256: SHA, size: FILE.length }, { onProgress: (p) => progress.push(p.received) });
    const reqs = requestsFor('/resume');
    expect(reqs.map((r) => [r.status, r.range, r.ifRange])).toEqual([
      [200, undefined, undefined],
      [206, 'bytes=30000-', `"${SHA.slice(0, 16)}"`],
    ]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
    expect(progress.at(-1)).toBe(FILE.length);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('keeps the partial file for the next run, which asks only for the rest', async () => {
    srv.script('/next-run', FILE, [{ kind: 'cut', bytes: 64_000 }, { kind: 'ok' }]);
    const cache = newCache();
    const e = await failure(downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1' }, {}, instantClock), cache, `${srv.url}/next-run`, { sha256: SHA, size: FILE.length }));
    expect(e.message).toMatch(/broke after 64000 bytes/);
    expect((await fs.stat(path.join(cache.root, 'tmp', `${SHA}.part`))).size).toBe(64_000);
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/next-run`, { sha256: SHA, size: FILE.length });
    expect(requestsFor('/next-run').at(-1)!.range).toBe('bytes=64000-');
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('a weak ETag is not used for If-Range; Last-Modified is', async () => {
    srv.script('/weak', FILE, [{ kind: 'cut', bytes: 10_000, etag: 'W/"weak"' }, { kind: 'ok', etag: 'W/"weak"' }]);
    const got = await downloadToCache(new Http({}, {}, instantClock), newCache(), `${srv.url}/weak`, { sha256: SHA, size: FILE.length });
    const last = requestsFor('/weak').at(-1)!;
    expect([last.range, last.ifRange, last.status]).toEqual(['bytes=10000-', 'Wed, 01 Jan 2025 00:00:00 GMT', 206]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('starts over when the file changed on the server (a new ETag: 200 to If-Range)', async () => {
    const older = Buffer.from(FILE).fill(1, 0, 1000);
    srv.script('/changed', older, [{ kind: 'cut', bytes: 20_000, etag: '"old"' }]);
    const cache = newCache();
    await failure(downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1' }, {}, instantClock), cache, `${srv.url}/changed`, { sha256: SHA, size: FILE.length }));
    srv.script('/changed', FILE, [{ kind: 'ok', etag: '"new"' }]);
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/changed`, { sha256: SHA, size: FILE.length });
    const last = requestsFor('/changed').at(-1)!;
    expect([last.range, last.ifRange, last.status]).toEqual(['bytes=20000-', '"old"', 200]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('bytes kept under an unchanged validator but from another file fail the hash, and one whole download follows', async () => {
    const wrong = Buffer.alloc(FILE.length, 7);
    srv.script('/liar', wrong, [{ kind: 'cut', bytes: 50_000, etag: '"same"' }]);
    const cache = newCache();
    await failure(downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1' }, {}, instantClock), cache, `${srv.url}/liar`, { sha256: SHA, size: FILE.length }));
    srv.script('/liar', FILE, [{ kind: 'ok', etag: '"same"' }]);
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/liar`, { sha256: SHA, size: FILE.length });
    expect(requestsFor('/liar').slice(-2).map((r) => [r.range, r.status])).toEqual([['bytes=50000-', 206], [undefined, 200]]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('a refused connection while downloading is tried again (a mirror restarting)', async () => {
    const port = await deadPort();
    let late: Server | undefined;
    /** Test double for the retry clock: the first wait is when the mirror comes back. */
    const clock: RetryClock = {
      now: () => Date.now(),
      random: () => 0.5,
      sleep: async () => {
        if (late) return;
        late = createServer((_req, res) => res.end(FILE));
        await new Promise<void>((r) => late!.listen(port, '127.0.0.1', r));
      },
    };
    try {
      const got = await downloadToCache(new Http({}, {}, clock), newCache(), `http://127.0.0.1:${port}/f`, { sha256: SHA, size: FILE.length });
      expect(await fs.readFile(got.path)).toEqual(FILE);
    } finally {
      await new Promise<void>((r) => (late ? late.close(() => r()) : r()));
    }
  });

  it('a hash mismatch keeps nothing, neither in the store nor as a partial file', async () => {
    srv.script('/corrupt', Buffer.alloc(FILE.length, 9), [{ kind: 'ok' }]);
    const cache = newCache();
    const e = await failure(downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/corrupt`, { sha256: SHA, size: FILE.length }));
    expect(e.code).toBe('HASH_MISMATCH');
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
    expect(await cache.lookup(SHA)).toBeUndefined();
  });

  it('a body larger than the declared size fails at once, with Content-Length or without', async () => {
    srv.script('/flood', FILE, [{ kind: 'flood', bytes: 200 * 1024 * 1024 }]);
    const cache = newCache();
    const e = await failure(downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/flood`, { sha256: SHA, size: 55 * 1024 }));
    expect(e.code).toBe('TOO_LARGE');
    expect(requestsFor('/flood')[0]!.sent).toBeLessThan(20 * 1024 * 1024);
    srv.script('/big', FILE, [{ kind: 'ok' }]);
    const e2 = await failure(downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/big`, { sha256: SHA, size: 55 * 1024 }));
    expect([e2.code, requestsFor('/big').length]).toEqual(['TOO_LARGE', 1]);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('a second process downloading the same file does not share the first one\'s partial file', async () => {
    srv.script('/shared', FILE, [{ kind: 'ok' }]);
    const cache = newCache();
    const partial = await cache.partialFor(SHA);
    await fs.writeFile(partial.lock, String(process.ppid));
    await fs.writeFile(partial.file, 'someone else is writing this');
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/shared`, { sha256: SHA, size: FILE.length });
    expect(await fs.readFile(got.path)).toEqual(FILE);
    expect(await fs.readFile(partial.file, 'utf8')).toBe('someone else is writing this');
  });
});

describe('fetchApt checks the SHA256 apt-cache listed', () => {
  const deb = Buffer.from('!<arch>\ndebian-binary   fixture\n');
  const archive = (sha: string): PlannedArchive => ({
    package: 'libze1', version: '1.8.12-1', filename: 'libze1_1.8.12-1_amd64.deb', url: 'apt:libze1=1.8.12-1', sha256: sha, size: deb.length, format: 'deb', map: [],
  });
  /** Test double for apt-get: `download` writes the given bytes as a .deb into its working directory. */
  const fakeAptGet = (bytes: Buffer): Exec => async (file, args, opts) => {
    expect([file, args[0]]).toEqual(['apt-get', 'download']);
    await fs.writeFile(path.join(opts!.cwd!, 'libze1_1.8.12-1_amd64.deb'), bytes);
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  const deps = (exec: Exec) => ({ exec }) as unknown as Deps;

  it('adopts a file whose hash matches', async () => {
    const cache = newCache();
    const got = await fetchApt(archive(sha256(deb)), cache, deps(fakeAptGet(deb)));
    expect(await fs.readFile(got.path)).toEqual(deb);
  });

  it('refuses a file apt-get brought with another hash, and keeps nothing', async () => {
    const cache = newCache();
    const e = await failure(fetchApt(archive(sha256(deb)), cache, deps(fakeAptGet(Buffer.from('tampered')))));
    expect(e.code).toBe('HASH_MISMATCH');
    expect(e.message).toContain(`sha256 mismatch for apt:libze1=1.8.12-1: expected ${sha256(deb)}, got ${sha256(Buffer.from('tampered'))}`);
    expect(await cache.lookup(sha256(deb))).toBeUndefined();
    expect(await cache.lookup(sha256(Buffer.from('tampered')))).toBeUndefined();
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });
});

describe('fetchPlan: the fetch stage over every source kind', () => {
  it('fetches http and apt archives of a plan at once, reuses a cached one, and returns them in plan order', async () => {
    const files = [0, 1, 2].map((i) => Buffer.alloc(30_000 + i, 65 + i));
    files.forEach((f, i) => srv.script(`/plan/${i}.conda`, f, [{ kind: 'ok' }]));
    const deb = Buffer.from('deb payload for the plan test');
    const cacheDir = path.join(root, `plan-cache-${n++}`);
    const cache = new DownloadCache(cacheDir);
    // The third archive is already cached: no request for it.
    const pre = await cache.tempFile('pre');
    await fs.writeFile(pre, files[2]!);
    await cache.adopt(pre, sha256(files[2]!), files[2]!.length);
    const http = (i: number): PlannedArchive => ({
      package: `p${i}`, version: '1', filename: `${i}.conda`, url: `${srv.url}/plan/${i}.conda`, sha256: sha256(files[i]!), size: files[i]!.length, format: 'conda', map: [],
    });
    const apt: PlannedArchive = { package: 'libze1', version: '1.8.12-1', filename: 'libze1.deb', url: 'apt:libze1=1.8.12-1', sha256: sha256(deb), size: deb.length, format: 'deb', map: [] };
    const plan = {
      cacheDir,
      components: [
        { name: 'a', status: 'planned', archives: [http(0), apt] },
        { name: 'b', status: 'planned', archives: [http(1), http(2)] },
        { name: 'c', status: 'unavailable', archives: [] },
      ],
    } as unknown as InstallPlan;
    /** Test double for apt-get download: writes the .deb into its working directory. */
    const exec: Exec = async (_file, _args, opts) => {
      await fs.writeFile(path.join(opts!.cwd!, 'libze1_1.8.12-1_amd64.deb'), deb);
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const before = srv.requests.length;
    const got = await fetchPlan(plan, { env: {}, exec } as unknown as Deps, silentReporter);
    expect(got.map((g) => [g.component, g.archive.package, g.file.cached])).toEqual([
      ['a', 'p0', false],
      ['a', 'libze1', false],
      ['b', 'p1', false],
      ['b', 'p2', true],
    ]);
    for (const g of got) expect(sha256(await fs.readFile(g.file.path))).toBe(g.archive.sha256);
    expect(srv.requests.slice(before).map((r) => r.path).sort()).toEqual(['/plan/0.conda', '/plan/1.conda']);
  });
});
