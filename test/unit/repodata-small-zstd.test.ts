// A channel's repodata.json.zst: a small one (a channel of a few packages) is decoded whole by the decoder at hand,
// without loading the zstd library binding; a large one goes to that library. systemZstd is wrapped by a spy (a test
// double that counts calls and answers as the real one does).
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentReporter } from '../../src/base/reporter.js';
import { Gateway } from '../../src/index/gateway.js';
import { Http } from '../../src/net/http.js';
import { zstdCompress } from '../support/packages.js';

const spy = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../src/formats/zstd-lib.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/formats/zstd-lib.js')>();
  return { ...real, systemZstd: (...a: Parameters<typeof real.systemZstd>) => (spy.calls++, real.systemZstd(...a)) };
});

let body: Buffer = Buffer.alloc(0);
let server: http.Server;
let base: string;
let cacheDir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const found = req.url === '/ch/linux-64/repodata.json.zst';
    res.writeHead(found ? 200 : 404, { 'content-length': String(found ? body.length : 2) });
    res.end(found ? body : 'no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(async () => {
  spy.calls = 0;
  cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-small-zstd-'));
});
afterEach(() => fs.rm(cacheDir, { recursive: true, force: true }));

/**
 * repodata.json with conda-forge's level-zero 1.29.0 (its run_exports as depends) and `others` filler records of random
 * names and hashes, which compress poorly: they stand for a channel's size, not for any package.
 */
function repodata(others: number): Buffer {
  const record = (name: string) => ({ name, version: '1.0', build: 'h0_0', build_number: 0, depends: [], subdir: 'linux-64', sha256: createHash('sha256').update(name).digest('hex'), size: 1 });
  const packages: Record<string, unknown> = {
    'level-zero-1.29.0-hb700be7_0.conda': { ...record('level-zero'), version: '1.29.0', build: 'hb700be7_0', depends: ['__glibc >=2.17,<3.0.a0', 'libgcc >=14', 'libstdcxx >=14'] },
  };
  for (let i = 0; i < others; i++) packages[`p${randomBytes(12).toString('hex')}-1.0-h0_0.conda`] = record(`p${randomBytes(12).toString('hex')}`);
  return Buffer.from(JSON.stringify({ info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': packages }));
}

const records = () => new Gateway(new Http({}), { cacheDir, reporter: silentReporter }).condaRecords(`${base}/ch`, 'linux-64', ['level-zero']);

describe('repodata.json.zst', () => {
  it('of a few packages is read without the zstd library binding', async () => {
    body = await zstdCompress(repodata(20));
    expect(body.length).toBeLessThan(256 * 1024);
    expect((await records()).map((c) => `${c.name} ${c.version}`)).toEqual(['level-zero 1.29.0']);
    expect(spy.calls).toBe(0);
  });

  it('of thousands of packages goes to the zstd library where there is one', async () => {
    body = await zstdCompress(repodata(6000));
    expect(body.length).toBeGreaterThan(256 * 1024);
    expect((await records()).map((c) => `${c.name} ${c.version}`)).toEqual(['level-zero 1.29.0']);
    expect(spy.calls).toBe(1);
  });
});
