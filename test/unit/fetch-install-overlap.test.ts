// Fetch and install overlap: archives unpack (and components are checked) while later ones still download, in plan
// order; a failure on either side stops the other and leaves no staging tree, no lock, and the old prefix as it was.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.js';
import { XpuError } from '../../src/errors.js';
import { startFetch, type FetchedArchive, type Fetching } from '../../src/fetch/fetch.js';
import type { Host } from '../../src/host/types.js';
import { installPlan, type StagedCheck } from '../../src/install/install.js';
import type { ComponentManifest } from '../../src/manifest/schema.js';
import { makePlan, type InstallPlan, type PlannedComponent } from '../../src/plan/plan.js';
import { silentReporter } from '../../src/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { zipBuffer } from '../support/packages.js';
import { sha256, startFaultyServer, type FaultyServer } from '../support/faulty-server.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

let srv: FaultyServer;
beforeAll(async () => {
  srv = await startFaultyServer();
});
afterAll(() => srv.close());

interface Made {
  work: string;
  plan: InstallPlan;
  /** The fetched-archive record of each component's one archive, in plan order. */
  fetched: FetchedArchive[];
}

/** Two components, one zip each, both already in a temp cache; `bytes` overrides an archive's content. */
async function twoComponents(opts: { bytes?: (Buffer | undefined)[]; urls?: string[] } = {}): Promise<Made> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-overlap-'));
  dirs.push(work);
  const names = ['level-zero', 'unified-runtime'];
  const manifests: ComponentManifest[] = [];
  const files: { file: string; sha: string; size: number }[] = [];
  for (const [i, name] of names.entries()) {
    const zip = opts.bytes?.[i] ?? (await zipBuffer([{ path: `pkg/lib/lib${name}.so`, data: Buffer.from(`${name} bytes\n`) }], true));
    const sha = sha256(zip);
    const file = path.join(work, 'cache', `${sha}.zip`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, zip);
    files.push({ file, sha, size: zip.length });
    manifests.push({
      schema: 1, name, summary: '', features: [], zeLoader: i === 0,
      platforms: {
        'linux-x64': {
          provides: [{ path: `lib/lib${name}.so`, required: true }],
          sources: [{ kind: 'url', package: name, version: '1.0.0', url: opts.urls?.[i] ?? `https://example.invalid/${name}.zip`, sha256: sha, size: zip.length, map: [{ from: 'pkg/lib/', to: 'lib/' }] }],
        },
      },
    });
  }
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
  const plan = await makePlan(host, manifests, { prefix: path.join(work, 'prefix'), cacheDir: path.join(work, 'cache'), components: [], sources: [], condaChannels: [] }, fakeDeps(), silentReporter);
  const fetched = plan.components.map((c, i) => ({ archive: c.archives[0]!, component: c.name, file: { path: files[i]!.file, sha256: files[i]!.sha, size: files[i]!.size, cached: true } }));
  return { work, plan, fetched };
}

/** Test double for a fetch under way: the test decides when each archive is in, and sees cancel(). */
function heldFetch(count: number): Fetching & { arrive(i: number, f: FetchedArchive): void; fail(i: number, e: unknown): void; cancelled: number } {
  const settle: { resolve(f: FetchedArchive): void; reject(e: unknown): void }[] = [];
  const archives = Array.from({ length: count }, () => new Promise<FetchedArchive>((resolve, reject) => settle.push({ resolve, reject })));
  for (const a of archives) a.catch(() => undefined);
  const all = Promise.all(archives);
  all.catch(() => undefined);
  const held = {
    archives,
    all,
    cancelled: 0,
    arrive: (i: number, f: FetchedArchive) => settle[i]!.resolve(f),
    fail: (i: number, e: unknown) => settle[i]!.reject(e),
    cancel: async () => {
      held.cancelled++;
    },
  };
  return held;
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);
const stagingDirs = async (work: string) => (await fs.readdir(work)).filter((n) => n.includes('xpu-setup-staging-'));
const until = async (cond: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('install while the fetch is under way', () => {
  it('unpacks and checks the first component while the second archive is still on its way, then both in plan order', async () => {
    const { work, plan, fetched } = await twoComponents();
    const fetch = heldFetch(2);
    const seen: { component: string; files: string[]; secondArrived: boolean }[] = [];
    let secondArrived = false;
    const check: StagedCheck = async (dir, c: PlannedComponent) => {
      seen.push({ component: c.name, files: (await fs.readdir(path.join(dir, 'lib'))).sort(), secondArrived });
      return [];
    };
    fetch.arrive(0, fetched[0]!);
    const done = installPlan(plan, fetch, silentReporter, { check });
    await until(() => seen.length > 0);
    // The first component was unpacked and checked before the second archive existed.
    expect(seen).toEqual([{ component: 'level-zero', files: ['liblevel-zero.so'], secondArrived: false }]);
    secondArrived = true;
    fetch.arrive(1, fetched[1]!);
    const r = await done;
    expect(seen[1]).toEqual({ component: 'unified-runtime', files: ['liblevel-zero.so', 'libunified-runtime.so'], secondArrived: true });
    expect(r.receipt.archives.map((a) => a.component)).toEqual(['level-zero', 'unified-runtime']);
    expect(await fs.readFile(path.join(plan.prefix, 'lib/libunified-runtime.so'), 'utf8')).toBe('unified-runtime bytes\n');
    expect(await stagingDirs(work)).toEqual([]);
  });

  it('a check that finds a problem early still stops the install, after every archive is in', async () => {
    const { plan, fetched } = await twoComponents();
    const fetch = heldFetch(2);
    fetch.arrive(0, fetched[0]!);
    fetch.arrive(1, fetched[1]!);
    const check: StagedCheck = async (_dir, c) => (c.name === 'level-zero' ? ['lib/liblevel-zero.so does not load on this system: test verdict'] : []);
    await expect(installPlan(plan, fetch, silentReporter, { check })).rejects.toMatchObject({
      code: 'PREFIX_CHECK',
      message: expect.stringContaining('lib/liblevel-zero.so does not load on this system: test verdict'),
    });
    expect(await exists(plan.prefix)).toBe(false);
  });

  it("a download that fails after the first archive is unpacked ends the install with the fetch's own error, the old prefix kept", async () => {
    const { work, plan, fetched } = await twoComponents();
    await installPlan(plan, fetched, silentReporter);
    const receipt = await fs.readFile(path.join(plan.prefix, 'xpu-setup.receipt.json'), 'utf8');
    const again = { ...plan, planKey: `${plan.planKey}-new` };
    const fetch = heldFetch(2);
    let checked = 0;
    fetch.arrive(0, fetched[0]!);
    const done = installPlan(again, fetch, silentReporter, { check: async () => (checked++, []) });
    await until(() => checked > 0);
    const cut = new XpuError('HASH_MISMATCH', 'sha256 mismatch for https://example.invalid/unified-runtime.zip');
    fetch.fail(1, cut);
    await expect(done).rejects.toBe(cut);
    expect(fetch.cancelled).toBe(1);
    expect(await fs.readFile(path.join(plan.prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(receipt);
    expect(await stagingDirs(work)).toEqual([]);
  });

  it('a prefix it may not replace stops the install before anything is unpacked, and the fetch with it', async () => {
    const { plan } = await twoComponents();
    await fs.mkdir(plan.prefix, { recursive: true });
    await fs.writeFile(path.join(plan.prefix, 'mine.txt'), 'user data\n');
    const fetch = heldFetch(2);
    await expect(installPlan(plan, fetch, silentReporter)).rejects.toMatchObject({ code: 'INSTALL' });
    expect(fetch.cancelled).toBe(1);
    expect(await fs.readdir(plan.prefix)).toEqual(['mine.txt']);
  });

  it('an archive that fails to unpack while another still downloads cancels the fetch and waits for it before cleaning up', async () => {
    const { work, plan, fetched } = await twoComponents({ bytes: [Buffer.from('PK\x03\x04 not a zip at all')] });
    const order: string[] = [];
    const fetch = heldFetch(2);
    fetch.cancel = async () => {
      fetch.cancelled++;
      await new Promise((r) => setTimeout(r, 50));
      // The staging tree is still there while the fetch winds down: nothing removes it under a running download.
      order.push(`cancel done, staging trees: ${(await stagingDirs(work)).length}`);
    };
    fetch.arrive(0, fetched[0]!);
    const err = await installPlan(plan, fetch, silentReporter).catch((e: unknown) => e);
    order.push('install rejected');
    expect(err).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect(order).toEqual(['cancel done, staging trees: 1', 'install rejected']);
    expect(await stagingDirs(work)).toEqual([]);
    expect(await exists(plan.prefix)).toBe(false);
  });
});

describe('startFetch', () => {
  it('hands out each archive as soon as it is in, and the first failure stops the downloads still running', async () => {
    const quick = Buffer.alloc(20_000, 7);
    const slow = Buffer.alloc(200_000, 9);
    srv.script('/overlap/quick.zip', quick, [{ kind: 'ok' }]);
    srv.script('/overlap/slow.zip', slow, [{ kind: 'drip', intervalMs: 5 }]);
    // The failing archive answers 404 only when the test says so: after the first archive is in and the slow one
    // has started, whatever the machine's scheduling.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const gate: Server = createServer((_req, res) => void held.then(() => res.writeHead(404).end()));
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-overlap-fetch-'));
    dirs.push(work);
    const archive = (name: string, b: Buffer, base = `${srv.url}/overlap`) => ({ package: name, version: '1', filename: `${name}.zip`, url: `${base}/${name}.zip`, sha256: sha256(b), size: b.length, format: 'zip', map: [] });
    const plan = {
      cacheDir: path.join(work, 'cache'),
      components: [
        { name: 'a', status: 'planned', archives: [archive('quick', quick)] },
        { name: 'b', status: 'planned', archives: [archive('slow', slow)] },
        { name: 'c', status: 'planned', archives: [archive('gone', Buffer.alloc(10), `http://127.0.0.1:${(gate.address() as AddressInfo).port}`)] },
      ],
    } as unknown as InstallPlan;
    let err: unknown;
    try {
      const run = startFetch(plan, { env: {} } as unknown as Deps, silentReporter);
      const first = await run.archives[0]!;
      expect(createHash('sha256').update(await fs.readFile(first.file.path)).digest('hex')).toBe(sha256(quick));
      await until(() => (srv.requests.find((r) => r.path === '/overlap/slow.zip')?.sent ?? 0) > 0);
      release();
      err = await run.all.catch((e: unknown) => e);
      await expect(run.archives[1]!).rejects.toBe(err);
    } finally {
      release();
      await new Promise((r) => gate.close(r));
    }
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { status: 404 } });
    // The slow download was stopped, not left running: the server sends nothing more on it.
    const slowReq = srv.requests.find((r) => r.path === '/overlap/slow.zip')!;
    const sent = slowReq.sent;
    expect(sent).toBeLessThan(slow.length);
    await new Promise((r) => setTimeout(r, 100));
    expect(slowReq.sent).toBe(sent);
    // Its bytes are kept for the next run to resume; no lock is left behind.
    const tmp = await fs.readdir(path.join(plan.cacheDir, 'tmp'));
    expect(tmp.filter((n) => n.endsWith('.lock'))).toEqual([]);
    expect(tmp).toContain(`${sha256(slow)}.part`);
  });
});
