// Fetch and install overlap: archives unpack (and components are checked) while later ones still download, in plan
// order; a failure on either side stops the other and leaves no staging tree, no lock, and the old prefix as it was.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/base/deps.js';
import { XpuError } from '../../src/base/errors.js';
import { startFetch, type FetchedArchive, type Fetching } from '../../src/fetch/fetch.js';
import type { Host } from '../../src/platform/types.js';
import { installPlan, type StagedCheck } from '../../src/install/install.js';
import type { ComponentManifest } from '../../src/manifest/schema.js';
import { makePlan } from '../../src/plan/plan.js';
import type { InstallPlan, PlannedComponent } from '../../src/records/plan.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { zipBuffer } from '../support/packages.js';
import { sha256, startFaultyServer, type FaultyServer } from '../support/faulty-server.js';
import { openGateway } from '../../src/index/gateway.js';
import { Http } from '../../src/net/http.js';
import { planOptions } from '../support/plan-options.js';

/** The fetch's network: one client, the cache used as setup uses it. */
const net = { http: new Http({}), policy: 'use-cache' as const };

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
      schema: 1, name, summary: '', features: [], ...(i === 0 ? { roles: ['ze-loader', 'ze-headers'] } : {}),
      platforms: {
        'linux-x64': {
          provides: [{ path: `lib/lib${name}.so`, required: true }],
          sources: [{ kind: 'url', package: name, version: '1.0.0', url: opts.urls?.[i] ?? `https://example.invalid/${name}.zip`, sha256: sha, size: zip.length, map: [{ from: 'pkg/lib/', to: 'lib/' }] }],
        },
      },
    });
  }
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
  const plan = await makePlan(host, manifests, planOptions({ prefix: path.join(work, 'prefix'), cacheDir: path.join(work, 'cache') }), fakeDeps(), silentReporter, openGateway(fakeDeps(), { cacheDir: path.join(work, 'cache') }));
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
      const run = startFetch(plan, { env: {} } as unknown as Deps, silentReporter, net);
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

describe('startFetch with held archives (runtime packages a decision may leave to the host)', () => {
  const archive = (name: string, b: Buffer) => ({ package: name, version: '1', filename: `${name}.zip`, url: `${srv.url}/held/${name}.zip`, sha256: sha256(b), size: b.length, format: 'zip', map: [] });
  async function heldPlan(bytes: Record<string, Buffer>, fail?: string): Promise<InstallPlan> {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-held-'));
    dirs.push(work);
    for (const [n, b] of Object.entries(bytes)) srv.script(`/held/${n}.zip`, b, [n === fail ? { kind: 'status', status: 404 } : { kind: 'ok' }]);
    return { cacheDir: path.join(work, 'cache'), components: [{ name: 'a', status: 'planned', archives: Object.entries(bytes).map(([n, b]) => archive(n, b)) }] } as unknown as InstallPlan;
  }
  const bytes = { loader: Buffer.alloc(3000, 1), libstdcxx: Buffer.alloc(4000, 2), libgcc: Buffer.alloc(5000, 3) };
  const served = (name: string) => srv.requests.filter((r) => r.path === `/held/${name}.zip`).length;

  it('fetches the others first, then only the held archives released; the rest are never asked for', async () => {
    const plan = await heldPlan(bytes);
    const [loader, libstdcxx, libgcc] = plan.components[0]!.archives;
    const before = { libstdcxx: served('libstdcxx'), libgcc: served('libgcc') };
    const run = startFetch(plan, { env: {} } as unknown as Deps, silentReporter, net, { held: new Set([libstdcxx!.sha256, libgcc!.sha256]) });
    expect((await run.of(loader!)).archive.package).toBe('loader');
    expect(served('libstdcxx')).toBe(before.libstdcxx);
    run.release([libstdcxx!]);
    const decided = { ...plan, components: [{ ...plan.components[0]!, archives: [loader!, libstdcxx!] }] } as InstallPlan;
    const got = await run.as(decided).all;
    expect(got.map((f) => f.archive.package)).toEqual(['loader', 'libstdcxx']);
    await run.all;
    expect(served('libstdcxx')).toBe(before.libstdcxx + 1);
    expect(served('libgcc')).toBe(before.libgcc);
    await expect(run.archives[2]!).rejects.toThrow(/left out of this fetch/);
  });

  it('a failure while held archives wait ends the fetch: nothing waits for a release that will not come', async () => {
    const plan = await heldPlan({ ...bytes, loader: Buffer.alloc(3000, 4) }, 'loader');
    const [loader, libstdcxx, libgcc] = plan.components[0]!.archives;
    const run = startFetch(plan, { env: {} } as unknown as Deps, silentReporter, net, { held: new Set([libstdcxx!.sha256, libgcc!.sha256]) });
    await expect(run.of(loader!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(run.all).rejects.toMatchObject({ code: 'NOT_FOUND' });
  }, 10_000);
});

describe('unpacking a zip while it downloads', () => {
  const blob = (size: number, seed: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + seed * 7 + (i >> 9)) & 0xff));

  /** One component whose one zip the faulty server serves at `name`, nothing cached; debug lines are kept. */
  async function served(name: string, zip: Buffer, opts: { sized?: boolean } = {}): Promise<{ work: string; plan: InstallPlan; debug: string[]; reporter: typeof silentReporter }> {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-live-'));
    dirs.push(work);
    const manifest: ComponentManifest = {
      schema: 1, name: 'unified-runtime', summary: '', features: [],
      platforms: {
        'linux-x64': {
          provides: [{ path: 'lib/liba.so', required: true }],
          sources: [{ kind: 'url', package: 'ur', version: '1.0.0', url: `${srv.url}/live/${name}`, sha256: sha256(zip), size: opts.sized === false ? undefined : zip.length, map: [{ from: 'pkg/lib/', to: 'lib/' }] }],
        },
      },
    };
    const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
    const plan = await makePlan(host, [manifest], planOptions({ prefix: path.join(work, 'prefix'), cacheDir: path.join(work, 'cache') }), fakeDeps(), silentReporter, openGateway(fakeDeps(), { cacheDir: path.join(work, 'cache') }));
    const debug: string[] = [];
    return { work, plan, debug, reporter: { ...silentReporter, debug: (m: string) => debug.push(m) } };
  }

  it.each([
    ['the index', true],
    ['only the response (Content-Length)', false],
  ])('members land in the staging tree while the rest of the archive is still held back by the server (size from %s)', async (_from, sized) => {
    const a = blob(300_000, 1);
    const b = blob(300_000, 2);
    const zip = await zipBuffer([{ path: 'pkg/lib/liba.so', data: a, mode: 0o100755 }, { path: 'pkg/lib/libb.so', data: b }], false);
    let release!: () => void;
    const name = sized ? 'held.zip' : 'held-unsized.zip';
    srv.script(`/live/${name}`, zip, [{ kind: 'hold', bytes: 400_000, release: new Promise<void>((r) => (release = r)) }]);
    const { work, plan, debug, reporter } = await served(name, zip, { sized });
    expect(plan.components[0]!.archives[0]!.size).toBe(sized ? zip.length : undefined);
    const done = installPlan(plan, startFetch(plan, { env: {} } as unknown as Deps, reporter, net), reporter);
    try {
      let staged = '';
      await until(async () => {
        const [dir] = await stagingDirs(work);
        staged = dir ? path.join(work, dir) : '';
        return !!dir && (await fs.stat(path.join(staged, 'lib/liba.so')).then((s) => s.size === a.length, () => false));
      });
      // liba.so is whole on disk, and the download has not gone past the held bytes.
      expect((await fs.readFile(path.join(staged, 'lib/liba.so'))).equals(a)).toBe(true);
      expect(srv.requests.find((r) => r.path === `/live/${name}`)!.sent).toBe(400_000);
    } finally {
      release();
    }
    await done;
    expect((await fs.readFile(path.join(plan.prefix, 'lib/libb.so'))).equals(b)).toBe(true);
    expect((await fs.stat(path.join(plan.prefix, 'lib/liba.so'))).mode & 0o777).toBe(0o755);
    expect(debug.filter((l) => l.includes('finished file'))).toEqual([]);
  });

  it('a download that starts over undoes what it had unpacked, and the verified file is unpacked instead', async () => {
    const a = blob(300_000, 3);
    const b = blob(300_000, 4);
    const zip = await zipBuffer([{ path: 'pkg/lib/liba.so', data: a }, { path: 'pkg/lib/libb.so', data: b }], true);
    // Cut after the first member; the resume's If-Range no longer matches, so the answer is the whole file again.
    srv.script('/live/restart.zip', zip, [{ kind: 'cut', bytes: Math.floor(zip.length * 0.7), etag: '"one"' }, { kind: 'ok', etag: '"two"' }]);
    const { plan, debug, reporter } = await served('restart.zip', zip);
    const r = await installPlan(plan, startFetch(plan, { env: {} } as unknown as Deps, reporter, net), reporter);
    expect(debug).toContain(`${plan.components[0]!.archives[0]!.filename}: unpacked from the finished file (not readable front to back: the download started over)`);
    expect((await fs.readFile(path.join(plan.prefix, 'lib/liba.so'))).equals(a)).toBe(true);
    expect((await fs.readFile(path.join(plan.prefix, 'lib/libb.so'))).equals(b)).toBe(true);
    expect(r.receipt.files.map((f) => f.path).filter((p) => p.startsWith('lib/'))).toEqual(['lib/liba.so', 'lib/libb.so']);
  });

  it('an archive that fails its hash after being unpacked as it arrived installs nothing', async () => {
    const zip = await zipBuffer([{ path: 'pkg/lib/liba.so', data: blob(100_000, 5) }], false);
    const { work, plan, reporter } = await served('bad.zip', zip);
    const other = Buffer.from(zip);
    other[other.length >> 1] = other[other.length >> 1]! ^ 0xff;
    srv.script('/live/bad.zip', other, [{ kind: 'ok' }]);
    await expect(installPlan(plan, startFetch(plan, { env: {} } as unknown as Deps, reporter, net), reporter)).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
    expect(await exists(plan.prefix)).toBe(false);
    expect(await stagingDirs(work)).toEqual([]);
  });
});

describe('runtime packages decided from the staging tree', () => {
  it.each([true, false])('the decision reads the other archives from the tree before a runtime package is unpacked; the check waits for a kept one (kept: %s)', async (keep) => {
    const { plan: two, fetched } = await twoComponents();
    // One component whose second archive is a runtime package still undecided.
    const main = two.components[0]!.archives[0]!;
    const runtime = { ...two.components[1]!.archives[0]!, runtime: {} };
    const plan: InstallPlan = { ...two, components: [{ ...two.components[0]!, archives: [main, runtime] }] };
    const decided: InstallPlan = {
      ...plan,
      components: [
        keep
          ? { ...plan.components[0]!, archives: [main, { ...runtime, runtime: { install: true, why: 'needed here' } }] }
          : { ...plan.components[0]!, archives: [main], leftToHost: [{ ...runtime, runtime: { install: false, why: 'satisfied by the host' } }] },
      ],
    };
    /** The fetch as a plan sees it: every archive in, in its order. */
    const fetchOf = (p: InstallPlan): Fetching => {
      const files = p.components[0]!.archives.map((a, i) => ({ ...fetched[i]!, archive: a, component: 'level-zero' }));
      return { archives: files.map((f) => Promise.resolve(f)), all: Promise.resolve(files), cancel: async () => undefined };
    };
    let asked: { main?: { file: string; linkTo?: string }[]; runtime?: unknown; onDisk: boolean[] } | undefined;
    const checked: string[][] = [];
    const r = await installPlan(plan, fetchOf(plan), silentReporter, {
      check: async (dir) => (checked.push((await fs.readdir(path.join(dir, 'lib'))).sort()), []),
      decideRuntime: async (unpacked) => {
        const members = unpacked(main);
        asked = { main: members, runtime: unpacked(runtime), onDisk: await Promise.all((members ?? []).map((m) => exists(m.file))) };
        return { plan: decided, fetching: fetchOf(decided) };
      },
    });
    expect(asked!.main!.map((m) => path.basename(m.file))).toEqual(['liblevel-zero.so']);
    expect(asked!.onDisk).toEqual([true]);
    expect(asked!.runtime).toBeUndefined();
    expect(checked).toEqual([keep ? ['liblevel-zero.so', 'libunified-runtime.so'] : ['liblevel-zero.so']]);
    expect(r.plan).toBe(decided);
    expect(await exists(path.join(plan.prefix, 'lib/libunified-runtime.so'))).toBe(keep);
    expect(r.receipt.archives.map((a) => a.package)).toEqual(keep ? ['level-zero', 'unified-runtime'] : ['level-zero']);
  });
});
