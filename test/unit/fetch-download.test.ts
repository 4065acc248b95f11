// fetch/: resume with Range + If-Range, start over on a changed file, the declared size as a limit, apt's own hash check; no CLI.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../src/cache/store.js';
import type { Deps, Exec } from '../../src/base/deps.js';
import { aptOptions, fetchApt, fetchAptMany } from '../../src/kinds/apt.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { downloadToCache } from '../../src/net/download.js';
import { fetchPlan } from '../../src/fetch/fetch.js';
import { processStartTime } from '../../src/base/lock-owner.js';
import type { InstallPlan } from '../../src/records/plan.js';
import { silentReporter } from '../../src/base/reporter.js';
import { Http } from '../../src/net/http.js';
import type { RetryClock } from '../../src/net/retry.js';
import type { PlannedArchive } from '../../src/records/archive.js';
import { deadPort, sha256, startFaultyServer, type FaultyServer } from '../support/faulty-server.js';
import { failure } from '../support/failure.js';

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
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
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
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('a weak ETag is not used for If-Range; Last-Modified is', async () => {
    srv.script('/weak', FILE, [{ kind: 'cut', bytes: 10_000, etag: 'W/"weak"' }, { kind: 'ok', etag: 'W/"weak"' }]);
    const got = await downloadToCache(new Http({}, {}, instantClock), newCache(), `${srv.url}/weak`, { sha256: SHA, size: FILE.length });
    const last = requestsFor('/weak').at(-1)!;
    expect([last.range, last.ifRange, last.status]).toEqual(['bytes=10000-', 'Wed, 01 Jan 2025 00:00:00 GMT', 206]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
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
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('bytes kept under an unchanged validator but from another file fail the hash, and one whole download follows', async () => {
    const wrong = Buffer.alloc(FILE.length, 7);
    srv.script('/liar', wrong, [{ kind: 'cut', bytes: 50_000, etag: '"same"' }]);
    const cache = newCache();
    await failure(downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1' }, {}, instantClock), cache, `${srv.url}/liar`, { sha256: SHA, size: FILE.length }));
    srv.script('/liar', FILE, [{ kind: 'ok', etag: '"same"' }]);
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/liar`, { sha256: SHA, size: FILE.length });
    expect(requestsFor('/liar').slice(-2).map((r) => [r.range, r.status])).toEqual([['bytes=50000-', 206], [undefined, 200]]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
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
      expect(sha256(await fs.readFile(got.path))).toBe(SHA);
    } finally {
      await new Promise<void>((r) => (late ? late.close(() => r()) : r()));
    }
  });

  it('a hash mismatch keeps nothing, neither in the store nor as a partial file', async () => {
    srv.script('/corrupt', Buffer.alloc(FILE.length, 9), [{ kind: 'ok' }]);
    const cache = newCache();
    const e = await failure(downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/corrupt`, { sha256: SHA, size: FILE.length }));
    expect(e.code).toBe('HASH_MISMATCH');
    expect(e).toMatchObject({
      details: { url: `${srv.url}/corrupt`, expected: SHA, actual: createHash('sha256').update(Buffer.alloc(FILE.length, 9)).digest('hex') },
      hints: [expect.stringMatching(/corrupted in transit, or changed on the server/), expect.stringMatching(/^nothing was installed/)],
    });
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
    expect(await cache.lookup(SHA)).toBeUndefined();
    // Nothing was kept from before, so there is nothing to blame on old bytes: no second request.
    expect(requestsFor('/corrupt')).toHaveLength(1);
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
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
    expect(await fs.readFile(partial.file, 'utf8')).toBe('someone else is writing this');
    expect(await fs.readFile(partial.lock, 'utf8')).toBe(String(process.ppid));
  });

  it("a partial file's lock is taken over when its pid now belongs to another process, and kept while its owner lives", async () => {
    srv.script('/reused-pid', FILE, [{ kind: 'ok' }]);
    const cache = newCache();
    const partial = await cache.partialFor(SHA);
    // The parent is alive, but did not start when this lock says: its pid was given to it after the owner died.
    await fs.writeFile(partial.lock, JSON.stringify({ host: hostname(), pid: process.ppid, startTime: '1' }));
    await fs.writeFile(partial.file, 'left by a killed run');
    const got = await downloadToCache(new Http({}, {}, instantClock), cache, `${srv.url}/reused-pid`, { sha256: SHA, size: FILE.length });
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
    // The partial file was this download's own: adopted into the cache, and its lock released.
    expect(await fs.stat(partial.file).catch(() => undefined)).toBeUndefined();
    expect(await fs.stat(partial.lock).catch(() => undefined)).toBeUndefined();

    srv.script('/live-owner', FILE, [{ kind: 'ok' }]);
    const cache2 = newCache();
    const partial2 = await cache2.partialFor(SHA);
    const owner = JSON.stringify({ host: hostname(), pid: process.ppid, startTime: processStartTime(process.ppid) });
    await fs.writeFile(partial2.lock, owner);
    await fs.writeFile(partial2.file, 'someone else is writing this');
    expect(sha256(await fs.readFile((await downloadToCache(new Http({}, {}, instantClock), cache2, `${srv.url}/live-owner`, { sha256: SHA, size: FILE.length })).path))).toBe(SHA);
    expect(await fs.readFile(partial2.file, 'utf8')).toBe('someone else is writing this');
    expect(await fs.readFile(partial2.lock, 'utf8')).toBe(owner);
  });
});

/** A server whose answers the test writes by hand, one handler per request of a path (the last repeats). */
interface Scripted {
  url: string;
  seen: Array<{ path: string; range?: string; ifRange?: string }>;
  on(p: string, ...handlers: Array<(req: IncomingMessage, res: ServerResponse) => void>): void;
  close(): Promise<void>;
}

async function startScripted(): Promise<Scripted> {
  const routes = new Map<string, { handlers: Array<(req: IncomingMessage, res: ServerResponse) => void>; next: number }>();
  const seen: Scripted['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined });
    const r = routes.get(req.url ?? '');
    if (!r) return void res.writeHead(404, { 'content-length': 0 }).end();
    r.handlers[Math.min(r.next++, r.handlers.length - 1)]!(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    on: (p, ...handlers) => void routes.set(p, { handlers, next: 0 }),
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

const LM1 = 'Wed, 01 Jan 2025 00:00:00 GMT';
const LM2 = 'Thu, 02 Jan 2025 00:00:00 GMT';

/** Sends `body` with these headers; with `cutAfter`, only that many bytes, then the connection drops. */
const answer = (status: number, headers: Record<string, string | number>, body: Buffer, cutAfter?: number) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, headers);
  if (cutAfter === undefined) return void res.end(body);
  res.write(body.subarray(0, cutAfter), () => setTimeout(() => res.socket?.destroy(), 150));
};
const whole = (headers: Record<string, string | number> = { etag: '"v1"', 'last-modified': LM1 }) => answer(200, { ...headers, 'content-length': FILE.length }, FILE);
const rest = (from: number, headers: Record<string, string | number> = { etag: '"v1"', 'last-modified': LM1 }) =>
  answer(206, { ...headers, 'content-range': `bytes ${from}-${FILE.length - 1}/${FILE.length}`, 'content-length': FILE.length - from }, FILE.subarray(from));

describe('downloadToCache against a server that bends the rules', () => {
  let ss: Scripted;
  beforeAll(async () => {
    ss = await startScripted();
  });
  afterAll(() => ss.close());
  const seenFor = (p: string) => ss.seen.filter((r) => r.path === p).map((r) => [r.range, r.ifRange]);
  const oneTry = () => new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1' }, {}, instantClock);

  /** A cache holding the first `have` bytes of FILE as the kept partial download of url, with that meta record. */
  async function withPartial(have: number, meta?: Record<string, string>): Promise<DownloadCache> {
    const cache = newCache();
    const partial = await cache.partialFor(SHA);
    await fs.writeFile(partial.file, FILE.subarray(0, have));
    if (meta) await fs.writeFile(partial.meta, JSON.stringify(meta));
    return cache;
  }

  it('kept bytes without the validators the server gave are not resumed: the download starts over', async () => {
    ss.on('/no-meta', whole());
    const got = await downloadToCache(oneTry(), await withPartial(30_000), `${ss.url}/no-meta`, { sha256: SHA, size: FILE.length });
    expect(seenFor('/no-meta')).toEqual([[undefined, undefined]]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('a server that gives no validator: a cut is resumed within the run with Range alone, and the sha256 decides', async () => {
    const url = `${ss.url}/bare`;
    ss.on('/bare', answer(200, { 'content-length': FILE.length }, FILE, 40_000), rest(40_000, {}));
    const got = await downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '2' }, {}, instantClock), newCache(), url, { sha256: SHA, size: FILE.length });
    expect(seenFor('/bare')).toEqual([[undefined, undefined], ['bytes=40000-', undefined]]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('a body without a length that ends before the declared size is a cut, retried and resumed, not a hash mismatch', async () => {
    const url = `${ss.url}/close-delimited`;
    // HTTP/1.0 style: no Content-Length, no chunks, the body ends where the connection closes.
    const closeDelimited = (_req: IncomingMessage, res: ServerResponse) =>
      void res.socket!.end(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nETag: "v1"\r\nConnection: close\r\n\r\n'), FILE.subarray(0, 40_000)]));
    ss.on('/close-delimited', closeDelimited, rest(40_000));
    const got = await downloadToCache(new Http({ XPU_SETUP_HTTP_ATTEMPTS: '2' }, {}, instantClock), newCache(), url, { sha256: SHA, size: FILE.length });
    expect(seenFor('/close-delimited')).toEqual([[undefined, undefined], ['bytes=40000-', '"v1"']]);
    expect(await fs.readFile(got.path)).toEqual(FILE);
  });

  it('kept bytes from another URL start over, and the record then names this URL so the next run resumes', async () => {
    const url = `${ss.url}/mirror`;
    ss.on('/mirror', answer(200, { etag: '"v1"', 'last-modified': LM1, 'content-length': FILE.length }, FILE, 40_000), rest(40_000));
    const cache = await withPartial(30_000, { url: 'http://other-mirror.invalid/f', etag: '"v1"', lastModified: LM1 });
    await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length }));
    const got = await downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length });
    expect(seenFor('/mirror')).toEqual([[undefined, undefined], ['bytes=40000-', '"v1"']]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('kept bytes as many as the declared size start over', async () => {
    const url = `${ss.url}/full-part`;
    ss.on('/full-part', whole());
    const got = await downloadToCache(oneTry(), await withPartial(FILE.length, { url, etag: '"v1"', lastModified: LM1 }), url, { sha256: SHA, size: FILE.length });
    expect(seenFor('/full-part')).toEqual([[undefined, undefined]]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it.each([
    ['another start', `bytes 0-${FILE.length - 1}/${FILE.length}`],
    ['text before the range', `xbytes 30000-${FILE.length - 1}/${FILE.length}`],
    ['text after the range', `bytes 30000-${FILE.length - 1}/${FILE.length}/x`],
    ['no Content-Range', undefined],
  ])('a 206 with %s is not appended: the next attempt starts from zero', async (_what, contentRange) => {
    const p = `/bad-range-${n++}`;
    const url = `${ss.url}${p}`;
    const headers: Record<string, string | number> = { etag: '"v1"', 'content-length': FILE.length - 30_000 };
    if (contentRange) headers['content-range'] = contentRange;
    ss.on(p, answer(206, headers, FILE.subarray(30_000)), whole());
    const got = await downloadToCache(new Http({}, {}, instantClock), await withPartial(30_000, { url, etag: '"v1"' }), url, { sha256: SHA, size: FILE.length });
    expect(seenFor(p)).toEqual([['bytes=30000-', '"v1"'], [undefined, undefined]]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('a 206 to a request without Range is refused, and nothing is kept', async () => {
    const url = `${ss.url}/unasked`;
    ss.on('/unasked', answer(206, { etag: '"v1"', 'content-range': `bytes 0-${FILE.length - 1}/${FILE.length}`, 'content-length': FILE.length }, FILE));
    const cache = newCache();
    const e = await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length }));
    expect([e.code, e.message, e.details]).toEqual(['NETWORK', `resuming ${url} failed: the server sent a range other than bytes=0-`, expect.objectContaining({ url, retryable: true })]);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('a resumed answer whose length overshoots the declared size is refused before its body is read', async () => {
    const url = `${ss.url}/long-rest`;
    const tail = Buffer.alloc(200_000, 3);
    // Only the first bytes of the body ever come: a refusal that waited for the body would see a broken connection instead.
    ss.on('/long-rest', answer(206, { etag: '"v1"', 'content-range': `bytes 30000-229999/230000`, 'content-length': tail.length }, tail, 10_000));
    const cache = await withPartial(30_000, { url, etag: '"v1"' });
    const e = await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length }));
    // The whole announced length, not where reading would have crossed the limit: nothing of the body was read.
    expect([e.code, e.message, e.details]).toEqual(['TOO_LARGE', `${url} sent 230000 bytes or more where the index declares ${FILE.length}`, { url, expected: FILE.length, received: 230_000 }]);
    expect(e.hints).toEqual(['the server sends something other than the file the index describes; stopped reading. Try again later or use another index']);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('a resumed answer without Content-Length is stopped at the declared size', async () => {
    const url = `${ss.url}/chunked-rest`;
    const tail = Buffer.alloc(80_000, 3);
    ss.on('/chunked-rest', answer(206, { etag: '"v1"', 'content-range': `bytes 30000-109999/110000` }, tail), whole());
    const cache = await withPartial(30_000, { url, etag: '"v1"' });
    const e = await failure(downloadToCache(new Http({}, {}, instantClock), cache, url, { sha256: SHA, size: FILE.length }));
    expect(e.code).toBe('TOO_LARGE');
    expect(e.details.received as number).toBeGreaterThan(FILE.length);
    expect(seenFor('/chunked-rest')).toHaveLength(1);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('a success status other than 200 or 206 is an error', async () => {
    const url = `${ss.url}/203`;
    ss.on('/203', answer(203, { 'content-length': FILE.length }, FILE));
    const e = await failure(downloadToCache(oneTry(), newCache(), url, { sha256: SHA, size: FILE.length }));
    expect([e.code, e.message, e.details]).toEqual(['HTTP_STATUS', `GET ${url} answered HTTP 203`, { url, status: 203 }]);
  });

  it('a file whose hash matches but whose size is not the declared one is refused, and not kept', async () => {
    const url = `${ss.url}/size`;
    ss.on('/size', whole());
    const cache = newCache();
    const e = await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length + 10 }));
    expect([e.code, e.message, e.details]).toEqual(['SIZE_MISMATCH', `${url} is ${FILE.length} bytes, the index says ${FILE.length + 10}`, { url, expected: FILE.length + 10, actual: FILE.length }]);
    expect(e.hints).toEqual(['the index and the file disagree; run again later or use another index']);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
    expect(await cache.lookup(SHA)).toBeUndefined();
  });

  it('without a declared size the file is taken whole, and progress reports the length the server gave', async () => {
    ss.on('/no-size', whole());
    const progress: Array<{ received: number; total?: number }> = [];
    const got = await downloadToCache(oneTry(), newCache(), `${ss.url}/no-size`, { sha256: SHA }, { onProgress: (p) => progress.push(p) });
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
    expect(progress.at(-1)).toEqual({ received: FILE.length, total: FILE.length });
    // Without Content-Length either, the total is unknown.
    ss.on('/no-size-chunked', answer(200, { etag: '"v1"' }, FILE));
    const progress2: Array<{ received: number; total?: number }> = [];
    await downloadToCache(oneTry(), newCache(), `${ss.url}/no-size-chunked`, { sha256: SHA }, { onProgress: (p) => progress2.push(p) });
    expect(progress2.at(-1)).toEqual({ received: FILE.length, total: undefined });
  });

  it('a write the cache refuses is said as such: no space left, or a path that cannot be opened', async () => {
    ss.on('/disk', whole());
    const full = newCache();
    const partial = await full.partialFor(SHA);
    // Writing to /dev/full fails with ENOSPC, as a full disk would.
    await fs.symlink('/dev/full', partial.file);
    const e = await failure(downloadToCache(oneTry(), full, `${ss.url}/disk`, { sha256: SHA, size: FILE.length }));
    expect([e.code, e.message]).toEqual(['NO_SPACE', `no space left on the device holding the download cache ${full.root} while writing ${partial.file}`]);
    expect(e.hints).toEqual(['free some space there, or choose another location (--prefix, --cache-dir); the prefix was not changed']);

    const dangling = newCache();
    const partial2 = await dangling.partialFor(SHA);
    await fs.symlink(path.join(root, 'no-such-dir', 'f'), partial2.file);
    const e2 = await failure(downloadToCache(oneTry(), dangling, `${ss.url}/disk`, { sha256: SHA, size: FILE.length }));
    expect([e2.code, e2.message, e2.details]).toEqual(['INSTALL', `the download cache ${dangling.root} cannot be written: cannot write ${partial2.file}`, { path: partial2.file, errno: 'ENOENT', cacheDir: dangling.root }]);
    expect(e2.hints).toEqual([`check the cache directory ${dangling.root} (it must be writable: its permissions, or the file system it is on), or choose another with --cache-dir or XPU_SETUP_CACHE_DIR; the prefix was not changed`]);
  });

  it('a server that sends only an ETag still lets the next run resume', async () => {
    const url = `${ss.url}/etag-only`;
    ss.on('/etag-only', answer(200, { etag: '"e"', 'content-length': FILE.length }, FILE, 40_000), rest(40_000, { etag: '"e"' }));
    const cache = newCache();
    await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length }));
    const got = await downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length });
    expect(seenFor('/etag-only')).toEqual([[undefined, undefined], ['bytes=40000-', '"e"']]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it.each([
    ['ETag', { etag: '"v2"', 'last-modified': LM1 }, { url: '', etag: '"v1"', lastModified: LM1 }, '"v2"'],
    ['Last-Modified', { etag: 'W/"w"', 'last-modified': LM2 }, { url: '', etag: 'W/"w"', lastModified: LM1 }, LM2],
  ])('a resumed answer with a new %s is recorded, and the next run asks with it', async (_what, headers, meta, next) => {
    const p = `/new-validator-${n++}`;
    const url = `${ss.url}${p}`;
    const cut = (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(206, { ...headers, 'content-range': `bytes 30000-${FILE.length - 1}/${FILE.length}`, 'content-length': FILE.length - 30_000 });
      res.write(FILE.subarray(30_000, 50_000), () => setTimeout(() => res.socket?.destroy(), 150));
    };
    ss.on(p, cut, rest(50_000, headers));
    const cache = await withPartial(30_000, { ...meta, url });
    await failure(downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length }));
    const got = await downloadToCache(oneTry(), cache, url, { sha256: SHA, size: FILE.length });
    expect(seenFor(p)).toEqual([['bytes=30000-', meta.etag.startsWith('W/') ? LM1 : '"v1"'], ['bytes=50000-', next]]);
    expect(sha256(await fs.readFile(got.path))).toBe(SHA);
  });

  it('a download slower than the minimum rate is stopped', async () => {
    srv.script('/drip', FILE, [{ kind: 'drip', intervalMs: 20 }]);
    const http = new Http({ XPU_SETUP_HTTP_ATTEMPTS: '1', XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND: '100000', XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS: '0.3' }, {}, instantClock);
    const e = await failure(downloadToCache(http, newCache(), `${srv.url}/drip`, { sha256: SHA, size: FILE.length }));
    expect(e.code).toBe('TOO_SLOW');
  });
});

/** The machine seam of the apt tests: apt-get's double, on a machine whose apt keeps no binary cache (as Docker's Debian images). */
const deps = (exec: Exec) => ({ env: {}, exec: noSystemPkgcache(exec) }) as unknown as Deps;
/** apt-config's answer where `Dir::Cache::pkgcache ""` is set; every other program is `exec`. */
const noSystemPkgcache = (exec: Exec): Exec => async (file, args, opts) => (file === 'apt-config' ? { exitCode: 0, stdout: "P=''\n", stderr: '' } : exec(file, args, opts));
/** The options that point apt at the binary cache kept in `cacheDir`. */
const ownPkgcache = (cacheDir: string) => ['-o', `Dir::Cache::pkgcache=${path.join(cacheDir, 'index', 'apt', 'pkgcache.bin')}`, '-o', 'Dir::Cache::srcpkgcache='];

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

  it('runs apt-get download for the package=version, in a fresh work directory in the cache', async () => {
    const cache = newCache();
    const calls: Array<{ file: string; args: string[]; cwd?: string }> = [];
    /** Test double for apt-get: records the call, writes the .deb and a stray non-.deb file beside it. */
    const exec: Exec = async (file, args, opts) => {
      calls.push({ file, args, cwd: opts?.cwd });
      await fs.writeFile(path.join(opts!.cwd!, 'libze1_1.8.12-1_amd64.deb'), deb);
      await fs.writeFile(path.join(opts!.cwd!, 'apt-log.txt'), 'not a package');
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const got = await fetchApt(archive(sha256(deb)), cache, deps(exec));
    expect(await fs.readFile(got.path)).toEqual(deb);
    expect(calls.map((c) => [c.file, c.args])).toEqual([['apt-get', ['download', '-q', '-o', 'APT::Sandbox::User=root', ...ownPkgcache(cache.root), 'libze1=1.8.12-1']]]);
    expect(path.dirname(calls[0]!.cwd!)).toBe(path.join(cache.root, 'tmp'));
    expect(path.basename(calls[0]!.cwd!)).toMatch(/^apt-/);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('takes a verified copy from the cache without running apt-get', async () => {
    const cache = newCache();
    const tmp = await cache.tempFile('pre.deb');
    await fs.writeFile(tmp, deb);
    await cache.adopt(tmp, sha256(deb), deb.length);
    /** Test double for apt-get that must not be reached. */
    const never: Exec = async () => {
      throw new Error('apt-get ran for a cached file');
    };
    expect(await fetchApt(archive(sha256(deb)), cache, deps(never))).toMatchObject({ sha256: sha256(deb), cached: true });
  });

  it.each([
    ['fails and brings nothing', 100, 0, 'E: Unable to locate package libze1', undefined],
    ['fails after writing a .deb', 100, 1, 'E: Failed to fetch', undefined],
    ['succeeds without a .deb', 0, 0, '', 'apt-get: not found'],
  ])('apt-get that %s is a NETWORK error naming apt, and nothing is kept', async (_what, exitCode, debs, stderr, failedToStart) => {
    const cache = newCache();
    /** Test double for apt-get with the given outcome. */
    const exec: Exec = async (_file, _args, opts) => {
      for (let i = 0; i < debs; i++) await fs.writeFile(path.join(opts!.cwd!, `libze1_${i}_amd64.deb`), deb);
      return { exitCode, stdout: '', stderr, ...(failedToStart ? { failedToStart } : {}) };
    };
    const e = await failure(fetchApt(archive(sha256(deb)), cache, deps(exec)));
    expect([e.code, e.message, e.details]).toEqual(['NETWORK', 'apt-get download libze1=1.8.12-1 failed', { url: 'apt:libze1=1.8.12-1', stderr: stderr || failedToStart }]);
    expect(e.hints).toEqual(['check that apt can reach its archive (apt-get update), or choose another source with --source']);
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
    const got = await fetchPlan(plan, deps(exec), silentReporter, { http: new Http({}), policy: 'use-cache' });
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

describe('fetchAptMany: every apt archive of a plan in one apt-get download', () => {
  const debs = ['intel-opencl-icd', 'libigc1', 'libigdgmm12'].map((p) => ({ p, bytes: Buffer.from(`!<arch>\n${p} fixture\n`) }));
  const archive = (p: string, bytes: Buffer, version = '1.0-1'): PlannedArchive => ({
    package: p, version, filename: `${p}_${version}_amd64.deb`, url: `apt:${p}=${version}`, sha256: sha256(bytes), size: bytes.length, format: 'deb', map: [],
  });
  /** Test double for apt-get download: writes a .deb for each package=version it has, fails (as apt does) for the rest. */
  const aptGet = (have: Map<string, Buffer>, calls: string[][]): Exec => async (file, args, opts) => {
    calls.push([file, ...args]);
    // What follows `download` that is neither a flag nor an option's value.
    const asked = args.slice(1).filter((a, i, rest) => !a.startsWith('-') && rest[i - 1] !== '-o');
    const unknown = asked.filter((a) => !have.has(a.split('=')[0]!));
    if (unknown.length) return { exitCode: 100, stdout: '', stderr: `E: Can't find a source to download version '${unknown[0]!.split('=')[1]}' of '${unknown[0]!.split('=')[0]}:amd64'\n` };
    for (const a of asked) await fs.writeFile(path.join(opts!.cwd!, `${a.replace('=', '_')}_amd64.deb`), have.get(a.split('=')[0]!)!);
    return { exitCode: 0, stdout: '', stderr: '' };
  };

  it('runs apt-get once for every archive the cache lacks, and maps each sha256 to its verified file', async () => {
    const cache = newCache();
    const pre = await cache.tempFile('pre.deb');
    await fs.writeFile(pre, debs[2]!.bytes);
    await cache.adopt(pre, sha256(debs[2]!.bytes), debs[2]!.bytes.length);
    const calls: string[][] = [];
    const got = await fetchAptMany(debs.map((d) => archive(d.p, d.bytes)), cache, deps(aptGet(new Map(debs.map((d) => [d.p, d.bytes])), calls)));
    expect(calls).toEqual([['apt-get', 'download', '-q', '-o', 'APT::Sandbox::User=root', ...ownPkgcache(cache.root), 'intel-opencl-icd=1.0-1', 'libigc1=1.0-1']]);
    expect(debs.map((d) => got.get(sha256(d.bytes))!.cached)).toEqual([false, false, true]);
    for (const d of debs) expect(await fs.readFile(got.get(sha256(d.bytes))!.path)).toEqual(d.bytes);
  });

  it('names the package apt could not bring, and keeps none of the others', async () => {
    const cache = newCache();
    const have = new Map(debs.slice(0, 2).map((d) => [d.p, d.bytes]));
    const e = await failure(fetchAptMany(debs.map((d) => archive(d.p, d.bytes)), cache, deps(aptGet(have, []))));
    expect([e.code, e.message]).toEqual(['NETWORK', 'apt-get download libigdgmm12=1.0-1 failed (one call for 3 packages)']);
    expect(e.details).toMatchObject({ url: 'apt:libigdgmm12=1.0-1', stderr: expect.stringContaining("of 'libigdgmm12:amd64'") });
    for (const d of debs) expect(await cache.lookup(sha256(d.bytes))).toBeUndefined();
  });

  it('names the package whose file has another hash', async () => {
    const cache = newCache();
    const have = new Map(debs.map((d) => [d.p, d.p === 'libigc1' ? Buffer.from('tampered') : d.bytes]));
    const e = await failure(fetchAptMany(debs.map((d) => archive(d.p, d.bytes)), cache, deps(aptGet(have, []))));
    expect(e.code).toBe('HASH_MISMATCH');
    expect(e.message).toContain(`sha256 mismatch for apt:libigc1=1.0-1: expected ${sha256(debs[1]!.bytes)}, got ${sha256(Buffer.from('tampered'))}`);
  });

  it('fetchPlan asks the apt kind once for all the apt archives of every component', async () => {
    const cacheDir = path.join(root, `plan-cache-${n++}`);
    const calls: string[][] = [];
    const plan = {
      cacheDir,
      components: [
        { name: 'a', status: 'planned', archives: [archive(debs[0]!.p, debs[0]!.bytes)] },
        { name: 'b', status: 'planned', archives: debs.slice(1).map((d) => archive(d.p, d.bytes)) },
      ],
    } as unknown as InstallPlan;
    const got = await fetchPlan(plan, deps(aptGet(new Map(debs.map((d) => [d.p, d.bytes])), calls)), silentReporter, { http: new Http({}), policy: 'use-cache' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.slice(-3)).toEqual(debs.map((d) => `${d.p}=1.0-1`));
    expect(got.map((g) => [g.component, g.archive.package, g.file.cached])).toEqual([['a', 'intel-opencl-icd', false], ['b', 'libigc1', false], ['b', 'libigdgmm12', false]]);
  });
});

describe("aptOptions: apt's binary cache", () => {
  /** A seam whose apt-config names `file` as apt's binary cache, and whose writable paths are `writable`. */
  const seam = (file: string, writable: string[], asked: string[] = []) =>
    ({
      env: {},
      exec: async (program: string, args: string[]) => (asked.push([program, ...args].join(' ')), { exitCode: 0, stdout: `P='${file}'\n`, stderr: '' }),
      accessRW: async (p: string) => (writable.includes(p) ? undefined : 'ENOENT'),
    }) as unknown as Deps;
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(tmpdir(), 'apt-options-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("is the system's where apt keeps one this process may write: apt keeps it current, and every apt command shares it", async () => {
    const asked: string[] = [];
    const deps = seam('/var/cache/apt/pkgcache.bin', ['/var/cache/apt/pkgcache.bin'], asked);
    expect(await aptOptions(deps, path.join(dir, 'a'))).toEqual([]);
    expect(await aptOptions(deps, path.join(dir, 'a'))).toEqual([]);
    expect(asked).toEqual(['apt-config shell P Dir::Cache::pkgcache/f', 'apt-config dump --format %f=%v%n APT::Architectures']);
    // Not there yet, where apt may make it (apt-get clean removed it): apt makes it on its first start.
    expect(await aptOptions(seam('/var/cache/apt/pkgcache.bin', ['/var/cache/apt']), path.join(dir, 'b'))).toEqual([]);
    await expect(fs.readdir(dir)).resolves.toEqual([]);
  });

  it("hands every start the architectures apt-config gives, so that none asks dpkg for them again", async () => {
    const archs: Deps = {
      ...seam('/var/cache/apt/pkgcache.bin', ['/var/cache/apt/pkgcache.bin']),
      exec: async (_program: string, args: string[]) => ({
        exitCode: 0,
        stdout: args[0] === 'dump' ? 'APT::Architectures=\nAPT::Architectures::=amd64\nAPT::Architectures::=i386\n' : "P='/var/cache/apt/pkgcache.bin'\n",
        stderr: '',
      }),
    } as unknown as Deps;
    expect(await aptOptions(archs, path.join(dir, 'd'))).toEqual(['-o', 'APT::Architectures::=amd64', '-o', 'APT::Architectures::=i386']);
    // This machine's apt-config gives its native architecture first, as dpkg names it.
    const native = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
    expect((await aptOptions(realDeps(), path.join(dir, 'e'))).slice(0, 2)).toEqual(['-o', `APT::Architectures::=${native}`]);
  });

  it.each([
    ['apt keeps none (Dir::Cache::pkgcache "")', seam('', ['/var/cache/apt'])],
    ['the system\'s cannot be written by this process', seam('/var/cache/apt/pkgcache.bin', [])],
  ])('is one kept in the index cache when %s', async (_why, deps) => {
    const cacheDir = path.join(dir, 'c');
    expect(await aptOptions(deps, cacheDir)).toEqual(ownPkgcache(cacheDir));
    expect((await fs.stat(path.join(cacheDir, 'index', 'apt'))).isDirectory()).toBe(true);
  });
});
