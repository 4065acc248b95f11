// The run's one cache policy, as the gateway holds it: use-cache (a kept answer within max-age is used, an older one
// asked about), cache-only (--offline: nothing is asked, whatever is kept is used, a miss names the URL) and refresh
// (--refresh: every kept answer asked about once; unchanged ones are not sent again).
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Http } from '../../src/net/http.js';
import { openRunIndex } from '../../src/pipeline/run-index.js';
import { silentReporter } from '../../src/base/reporter.js';
import { Gateway, type CachePolicy } from '../../src/index/gateway.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

const BODY = Buffer.from('{"packages":{},"packages.conda":{}}');
let server: http.Server;
let base: string;
/** What the server was asked, as `GET /doc` or `GET /doc 304`. */
let seen: string[];
let clock: number;
let cacheDir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url !== '/doc') {
      seen.push(`GET ${req.url} 404`);
      res.writeHead(404).end();
      return;
    }
    if (req.headers['if-none-match'] === '"v1"') {
      seen.push('GET /doc 304');
      res.writeHead(304, { etag: '"v1"', 'cache-control': 'max-age=60' }).end();
      return;
    }
    seen.push('GET /doc');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BODY.length), etag: '"v1"', 'cache-control': 'max-age=60' }).end(BODY);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(async () => {
  seen = [];
  clock = 1_000_000;
  cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-cache-policy-'));
});
afterEach(() => fs.rm(cacheDir, { recursive: true, force: true }));

/** One run's gateway under a policy, over the same index cache and clock. */
const run = (policy: CachePolicy) => new Gateway(new Http({}, { attempts: 1 }), { cacheDir, policy, now: () => clock, reporter: silentReporter });
const read = async (gw: Gateway) => (await gw.client.bytes(`${base}/doc`)).bytes.toString('utf8');

describe('use-cache', () => {
  it('downloads once, answers from the cache within max-age, then asks with the validators (304)', async () => {
    const first = run('use-cache');
    expect(await read(first)).toBe(BODY.toString());
    expect(first.stats).toMatchObject({ requests: 1, downloadedBytes: BODY.length });
    const within = run('use-cache');
    expect(await read(within)).toBe(BODY.toString());
    expect(within.stats).toMatchObject({ requests: 0, fresh: 1 });
    clock += 61_000;
    const after = run('use-cache');
    expect(await read(after)).toBe(BODY.toString());
    expect(after.stats).toMatchObject({ requests: 1, notModified: 1, downloadedBytes: 0 });
    expect(seen).toEqual(['GET /doc', 'GET /doc 304']);
  });
});

describe('cache-only', () => {
  it('asks nothing: a read the cache cannot answer is OFFLINE, naming the URL', async () => {
    const err = await read(run('cache-only')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OFFLINE', details: { url: `${base}/doc` } });
    expect((err as Error).message).toMatch(/--offline: http:\/\/127\.0\.0\.1:\d+\/doc is not in the index cache/);
    expect(seen).toEqual([]);
  });

  it('answers from what is kept whatever its age, and asks nothing', async () => {
    await read(run('use-cache'));
    clock += 7 * 24 * 3600_000;
    const offline = run('cache-only');
    expect(await read(offline)).toBe(BODY.toString());
    expect(offline.stats).toMatchObject({ requests: 0, fresh: 1 });
    expect(seen).toEqual(['GET /doc']);
  });

  it('a shard (content-addressed) not kept is not downloaded either', async () => {
    const gw = run('cache-only');
    const err = await gw.condaRecords(`${base}/ch`, 'linux-64', ['level-zero']).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OFFLINE' });
    expect(seen).toEqual([]);
  });
});

describe('refresh', () => {
  it('asks about an answer still within max-age, and an unchanged body is not sent again', async () => {
    await read(run('use-cache'));
    const again = run('refresh');
    expect(await read(again)).toBe(BODY.toString());
    expect(again.stats).toMatchObject({ requests: 1, notModified: 1, downloadedBytes: 0, fresh: 0 });
    expect(seen).toEqual(['GET /doc', 'GET /doc 304']);
  });
});

describe('the run holds one policy and one gateway', () => {
  it('--offline and --refresh become the policy; the gateway is built once, when first asked for', async () => {
    const deps = fakeDeps({ platform: 'linux' });
    const plan = { prefix: '/tmp/p', cacheDir, components: [], sources: [], condaChannels: [] };
    for (const policy of ['use-cache', 'cache-only', 'refresh'] as const) {
      const index = openRunIndex({ plan, cachePolicy: policy }, deps, silentReporter);
      expect(index.policy).toBe(policy);
      const gw = await index.gateway();
      expect(gw.policy).toBe(policy);
      expect(gw.client.policy).toBe(policy);
      expect(await index.gateway()).toBe(gw);
    }
    expect(openRunIndex({ plan }, deps, silentReporter).policy).toBe('use-cache');
  });
});
