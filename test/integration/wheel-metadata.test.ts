// A wheel's METADATA when the index serves no metadata file: read by HTTP Range requests (a few KB of a large wheel),
// or from the whole wheel, downloaded into the download cache, when the server ignores Range; kept in the index cache.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DownloadCache } from '../../src/cache/store.js';
import { Http } from '../../src/net/http.js';
import { Gateway } from '../../src/index/gateway.js';
import { readRemoteWheelMetadata, ZIP_TAIL } from '../../src/index/wheel-metadata.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { buildWheel, zipBuffer, type FixtureArtifact } from '../support/packages.js';

let big: FixtureArtifact;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A wheel of the size the real SYCL runtime's is (tens of MB, its library incompressible), with its real Requires-Dist. */
async function bigWheel(work: string): Promise<FixtureArtifact[]> {
  const lib = Buffer.alloc(12 * 1024 * 1024);
  for (let i = 0; i < lib.length; i += 4) lib.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, i);
  const built = await buildWheel({
    name: 'intel-sycl-rt',
    version: '2025.3.1',
    tag: 'py2.py3-none-manylinux_2_28_x86_64',
    summary: 'Intel® oneAPI DPC++/C++ SYCL Compiler Runtime',
    requiresDist: ['intel-cmplr-lib-rt==2025.3.1', 'intel-cmplr-lib-ur==2025.3.1', 'intel-cmplr-lic-rt==2025.3.1', 'umf==1.0.*', 'tcmlib==1.4.*'],
    files: [{ path: 'intel_sycl_rt-2025.3.1.data/data/lib/libsycl.so.8', data: lib, mode: 0o755 }],
  });
  const file = path.join(work, built.filename);
  await fs.writeFile(file, built.bytes);
  big = {
    format: 'wheel',
    name: 'intel-sycl-rt',
    version: '2025.3.1',
    platform: 'linux-x64',
    filename: built.filename,
    path: file,
    sha256: sha256(built.bytes),
    md5: createHash('md5').update(built.bytes).digest('hex'),
    size: built.bytes.length,
    members: built.members,
    wheel: { metadata: built.metadata, metadataSha256: sha256(built.metadata) },
  };
  return [big];
}

const fx = withFixtureRun('wheel-metadata', { more: bigWheel });

const gatewayIn = (cacheDir: string | undefined, debug: string[] = []) =>
  new Gateway(new Http({}), { cacheDir, reporter: { info() {}, warn() {}, debug: (m: string) => debug.push(m), task: () => ({ update() {}, done() {} }) } as never });

/** The requests for one file of the index, with their Range headers. */
const asked = (filename: string) => fx.index.requests.filter((r) => r.path.endsWith(`/${filename}`)).map((r) => r.headers.range ?? 'whole');

describe('an index without metadata files (PEP 503 HTML, no data-core-metadata)', () => {
  it('reads METADATA from the wheel by Range requests: the end, and nothing else of a 12 MB wheel', async () => {
    const cacheDir = fx.at('range-cache');
    const debug: string[] = [];
    const gw = gatewayIn(cacheDir, debug);
    const files = await gw.pypiProjectFiles(fx.index.noMetadataSimpleUrl, 'intel-sycl-rt');
    expect(files[0]).toMatchObject({ filename: big.filename, sha256: big.sha256 });
    expect(files[0]!.coreMetadata).toBeUndefined();
    fx.index.requests.length = 0;
    const before = gw.stats.downloadedBytes;
    expect(await gw.coreMetadata(files[0]!)).toBe(big.wheel!.metadata);
    const fetched = gw.stats.downloadedBytes - before;
    expect(big.size).toBeGreaterThan(12 * 1024 * 1024);
    expect(fetched).toBeLessThanOrEqual(ZIP_TAIL);
    expect(asked(big.filename)).toEqual([`bytes=-${ZIP_TAIL}`]);
    expect(debug).toContain(`${big.filename}: no metadata file on the index; METADATA read from the wheel by Range requests (${fetched} of ${big.size} bytes)`);
    // Nothing of the wheel went into the download cache: only its METADATA was read.
    expect(await new DownloadCache(cacheDir).lookup(big.sha256)).toBeUndefined();

    // Kept in the index cache under the wheel's sha256: the next run asks the server nothing for it.
    fx.index.requests.length = 0;
    expect(await gatewayIn(cacheDir).coreMetadata(files[0]!)).toBe(big.wheel!.metadata);
    expect(asked(big.filename)).toEqual([]);
  });

  it('fetches METADATA by one more range when it is not in the end read first (a wheel written dist-info first)', async () => {
    const metadata = 'Metadata-Version: 2.1\nName: late\nVersion: 1.0\nRequires-Dist: umf==1.1.*\n\n';
    const bytes = await zipBuffer(
      [
        { path: 'late-1.0.dist-info/METADATA', data: Buffer.from(metadata) },
        { path: 'late-1.0.dist-info/WHEEL', data: Buffer.from('Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n') },
        { path: 'late-1.0.data/data/lib/libpad.so', data: Buffer.alloc(256 * 1024, 7) },
      ],
      false,
    );
    const served = await serveBytes(bytes);
    try {
      const stats = { requests: 0, downloadedBytes: 0, notModified: 0, fresh: 0 };
      const file = { filename: 'late-1.0-py3-none-any.whl', url: served.url, sha256: sha256(bytes), yanked: false };
      const got = await readRemoteWheelMetadata(new Http({}), file, stats, undefined);
      expect(got.metadata.toString()).toBe(metadata);
      expect(got.read).toEqual({ how: 'range', fetched: stats.downloadedBytes, size: bytes.length });
      // The end (central directory included), then one request from METADATA's local header on; the padding between is never fetched.
      expect(served.ranges).toEqual([`bytes=-${ZIP_TAIL}`, `bytes=0-${16 * 1024 - 1}`]);
      expect(stats).toMatchObject({ requests: 2, downloadedBytes: ZIP_TAIL + 16 * 1024 });
    } finally {
      await served.close();
    }
  });

  it("refuses METADATA whose bytes fail the CRC-32 the wheel's directory declares", async () => {
    const metadata = 'Metadata-Version: 2.1\nName: late\nVersion: 1.0\nRequires-Dist: umf==1.1.*\n\n';
    const bytes = await zipBuffer([{ path: 'late-1.0.dist-info/METADATA', data: Buffer.from(metadata) }], false);
    const at = bytes.indexOf('umf==1.1.*');
    bytes.write('umf==9.9.*', at);
    const served = await serveBytes(bytes);
    try {
      const file = { filename: 'late-1.0-py3-none-any.whl', url: served.url, sha256: sha256(bytes), yanked: false };
      const stats = { requests: 0, downloadedBytes: 0, notModified: 0, fresh: 0 };
      expect(await readRemoteWheelMetadata(new Http({}), file, stats, undefined).catch((e: unknown) => e)).toMatchObject({
        code: 'BAD_ARCHIVE',
        message: expect.stringMatching(/^http:.*late-1\.0-py3-none-any\.whl: member late-1\.0\.dist-info\/METADATA fails its CRC-32 check/),
      });
    } finally {
      await served.close();
    }
  });

  it('a server that answers a later range with another range is BAD_INDEX naming the URL and what it sent', async () => {
    const bytes = await zipBuffer(
      [
        { path: 'late-1.0.dist-info/METADATA', data: Buffer.from('Metadata-Version: 2.1\nName: late\nVersion: 1.0\n\n') },
        { path: 'late-1.0.data/data/lib/libpad.so', data: Buffer.alloc(256 * 1024, 7) },
      ],
      false,
    );
    const served = await serveBytes(bytes, { startAt: 100 });
    try {
      const file = { filename: 'late-1.0-py3-none-any.whl', url: served.url, sha256: sha256(bytes), yanked: false };
      const stats = { requests: 0, downloadedBytes: 0, notModified: 0, fresh: 0 };
      expect(await readRemoteWheelMetadata(new Http({}), file, stats, undefined).catch((e: unknown) => e)).toMatchObject({
        code: 'BAD_INDEX',
        message: `${served.url}: reading the wheel's METADATA by Range requests failed: the server answered bytes=0-16383 with HTTP 206 and Content-Range "bytes 100-16383/${bytes.length}"`,
      });
    } finally {
      await served.close();
    }
  });

  it('downloads the wheel whole into the download cache when its server ignores Range, verified by the index sha256', async () => {
    const cacheDir = fx.at('whole-cache');
    const debug: string[] = [];
    const gw = gatewayIn(cacheDir, debug);
    const files = await gw.pypiProjectFiles(fx.index.noRangeSimpleUrl, 'intel-sycl-rt');
    fx.index.requests.length = 0;
    expect(await gw.coreMetadata(files[0]!)).toBe(big.wheel!.metadata);
    // The Range request answered whole (200) is dropped, then the download that setup would make is made.
    expect(asked(big.filename)).toEqual([`bytes=-${ZIP_TAIL}`, 'whole']);
    expect(debug).toContain(`${big.filename}: no metadata file on the index and no Range requests on its server; the wheel was downloaded whole (${big.size} bytes) for its METADATA`);
    const kept = await new DownloadCache(cacheDir).lookup(big.sha256);
    expect(kept?.size).toBe(big.size);
  });

  it('a wheel whose bytes differ from the index sha256 is refused on the whole-download path, and nothing is kept', async () => {
    const cacheDir = fx.at('bad-cache');
    const gw = gatewayIn(cacheDir);
    const files = await gw.pypiProjectFiles(fx.index.noRangeSimpleUrl, 'intel-sycl-rt');
    const wrong = { ...files[0]!, sha256: 'f'.repeat(64) };
    expect(await gw.coreMetadata(wrong).catch((e: unknown) => e)).toMatchObject({ code: 'HASH_MISMATCH' });
    expect(await new DownloadCache(cacheDir).lookup(big.sha256)).toBeUndefined();
    expect(await new DownloadCache(cacheDir).lookup(wrong.sha256)).toBeUndefined();
  });
});

/**
 * One file served with Range support (suffix and start-end ranges), recording each request's Range header. `startAt`:
 * a broken server that starts every start-end range no earlier than this byte.
 */
async function serveBytes(body: Buffer, broken: { startAt?: number } = {}): Promise<{ url: string; ranges: string[]; close(): Promise<void> }> {
  const ranges: string[] = [];
  const server = createServer((req, res) => {
    const range = String(req.headers.range ?? '');
    ranges.push(range);
    const m = /^bytes=(\d*)-(\d*)$/.exec(range)!;
    const start = m[1] ? Math.max(Number(m[1]), broken.startAt ?? 0) : Math.max(0, body.length - Number(m[2]));
    const end = m[1] && m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end + 1 - start });
    res.end(body.subarray(start, end + 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/late-1.0-py3-none-any.whl`, ranges, close: () => new Promise((r) => server.close(() => r())) };
}
