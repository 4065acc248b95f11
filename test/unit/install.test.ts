// The install stage on its own: a plan and fetched archives -> a prefix with files, receipt and env files; no CLI.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchedArchive } from '../../src/fetch/fetch.js';
import type { Host } from '../../src/host/types.js';
import { installPlan } from '../../src/install/install.js';
import { checkPrefixOwnership, isUpToDate } from '../../src/install/prefix-state.js';
import { readReceipt } from '../../src/install/receipt.js';
import { verifyPrefix } from '../../src/install/verify.js';
import type { ComponentManifest, Provided } from '../../src/manifest/schema.js';
import { makePlan, type InstallPlan } from '../../src/plan/plan.js';
import { silentReporter } from '../../src/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { zipBuffer } from '../support/packages.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const HEADER = '/* ze_api.h test content */\n';
const LIB = 'not a real loader, only bytes to place\n';

/** A zip in a temp "cache", a plan for it (linux-x64, from a pinned URL) and the fetched-archive record install takes. */
async function setup(provides: Provided[] = [{ path: 'include/level_zero/ze_api.h', required: true }]): Promise<{ work: string; plan: InstallPlan; fetched: FetchedArchive[] }> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-install-'));
  dirs.push(work);
  const zip = await zipBuffer([
    { path: 'sdk/include/level_zero/ze_api.h', data: Buffer.from(HEADER) },
    { path: 'sdk/lib/libze_loader.so.1', data: Buffer.from(LIB) },
    { path: 'sdk/README', data: Buffer.from('not mapped\n') },
  ], true);
  const sha256 = createHash('sha256').update(zip).digest('hex');
  const file = path.join(work, 'cache', `${sha256}.zip`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, zip);
  const manifest: ComponentManifest = {
    schema: 1, name: 'level-zero', summary: '', features: [], zeLoader: true,
    platforms: {
      'linux-x64': {
        provides,
        sources: [{ kind: 'url', package: 'sdk', version: '1.20.6', url: 'https://example.invalid/sdk.zip', sha256, size: zip.length, map: [{ from: 'sdk/include/', to: 'include/' }, { from: 'sdk/lib/', to: 'lib/' }] }],
      },
    },
  };
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
  const plan = await makePlan(host, [manifest], { prefix: path.join(work, 'prefix'), cacheDir: path.join(work, 'cache'), components: [], sources: [], condaChannels: [] }, fakeDeps(), silentReporter);
  const archive = plan.components[0]!.archives[0]!;
  return { work, plan, fetched: [{ archive, component: 'level-zero', file: { path: file, sha256, size: zip.length, cached: true } }] };
}

describe('installPlan', () => {
  it('places mapped members, writes receipt, env files and pkg-config, and leaves unmapped members out', async () => {
    const { plan, fetched } = await setup();
    const r = await installPlan(plan, fetched, silentReporter);
    expect(r.changed).toBe(true);
    expect(await fs.readFile(path.join(plan.prefix, 'include/level_zero/ze_api.h'), 'utf8')).toBe(HEADER);
    expect(await fs.readFile(path.join(plan.prefix, 'lib/libze_loader.so.1'), 'utf8')).toBe(LIB);
    await expect(fs.access(path.join(plan.prefix, 'README'))).rejects.toThrow();
    const receipt = await readReceipt(plan.prefix);
    expect(receipt).toMatchObject({ platform: 'linux-x64', prefix: plan.prefix, planKey: plan.planKey, components: [{ name: 'level-zero', version: '1.20.6' }] });
    expect(receipt!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['include/level_zero/ze_api.h', 'lib/libze_loader.so.1']));
    expect(receipt!.files.find((f) => f.path === 'include/level_zero/ze_api.h')!.sha256).toBe(createHash('sha256').update(HEADER).digest('hex'));
    expect(receipt!.archives).toEqual([expect.objectContaining({ component: 'level-zero', url: 'https://example.invalid/sdk.zip', sha256: fetched[0]!.file.sha256 })]);
    const sh = await fs.readFile(path.join(plan.prefix, 'env.sh'), 'utf8');
    expect(sh).toContain(`export LEVEL_ZERO_V1_SDK_PATH='${plan.prefix}'`);
    expect(sh).toContain(`export LD_LIBRARY_PATH='${plan.prefix}/lib'`);
    // The manifest marks this component as the loader, so its pkg-config file is written.
    expect(await fs.readFile(path.join(plan.prefix, 'lib/pkgconfig/level-zero.pc'), 'utf8')).toMatch(/^Version: 1\.20\.6$/m);
  });

  it('knows an unchanged prefix is up to date, and sees a changed or missing file', async () => {
    const { plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    expect(await isUpToDate(plan)).toMatchObject({ planKey: plan.planKey });
    const header = path.join(plan.prefix, 'include/level_zero/ze_api.h');
    await fs.writeFile(header, 'edited\n');
    await fs.rm(path.join(plan.prefix, 'lib/libze_loader.so.1'));
    expect(await isUpToDate(plan)).toBeUndefined();
    const receipt = (await readReceipt(plan.prefix))!;
    expect(await verifyPrefix(plan.prefix, receipt)).toEqual([
      { path: 'include/level_zero/ze_api.h', problem: 'changed' },
      { path: 'lib/libze_loader.so.1', problem: 'missing' },
    ]);
  });

  it('fails when a required file is not in the archive, and leaves the previous prefix as it was', async () => {
    const good = await setup();
    await installPlan(good.plan, good.fetched, silentReporter);
    const before = await fs.readFile(path.join(good.plan.prefix, 'xpu-setup.receipt.json'), 'utf8');
    const bad = await setup([{ path: 'include/level_zero/ze_api.h', required: true }, { path: 'lib/ze_loader.lib', required: true }]);
    const plan = { ...bad.plan, prefix: good.plan.prefix };
    await expect(installPlan(plan, bad.fetched, silentReporter)).rejects.toMatchObject({
      code: 'PREFIX_CHECK',
      message: expect.stringMatching(/^level-zero 1\.20\.6 from https:\/\/example\.invalid\/sdk\.zip lacks lib\/ze_loader\.lib$/),
    });
    expect(await fs.readFile(path.join(good.plan.prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(before);
  });

  it('refuses a non-empty directory it did not make', async () => {
    const { work } = await setup();
    const foreign = path.join(work, 'foreign');
    await fs.mkdir(foreign);
    await fs.writeFile(path.join(foreign, 'mine.txt'), 'user data\n');
    await expect(checkPrefixOwnership(foreign)).rejects.toMatchObject({ code: 'INSTALL', message: `${foreign} exists, is not empty, and was not made by xpu-setup` });
    await expect(checkPrefixOwnership(path.join(work, 'new'))).resolves.toBeUndefined();
  });
  it('replaces an existing prefix whole and leaves nothing beside it', async () => {
    const { work, plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    await fs.writeFile(path.join(plan.prefix, 'lib', 'stale.so'), 'from the previous install\n');
    const r = await installPlan(plan, fetched, silentReporter);
    expect(r.changed).toBe(true);
    await expect(fs.access(path.join(plan.prefix, 'lib', 'stale.so'))).rejects.toThrow();
    expect(await fs.readFile(path.join(plan.prefix, 'include/level_zero/ze_api.h'), 'utf8')).toBe(HEADER);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });
});

describe('checkPrefixOwnership after a run killed in the middle of the swap', () => {
  /** A prefix with a receipt, as an earlier install left it; moved to `<prefix>.xpu-setup-old-<suffix>` when `suffix` is given. */
  async function installed(suffix?: string): Promise<{ work: string; prefix: string; receipt: string; old?: string }> {
    const { work, plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    const receipt = await fs.readFile(path.join(plan.prefix, 'xpu-setup.receipt.json'), 'utf8');
    if (suffix === undefined) return { work, prefix: plan.prefix, receipt };
    const old = `${plan.prefix}.xpu-setup-old-${suffix}`;
    await fs.rename(plan.prefix, old);
    return { work, prefix: plan.prefix, receipt, old };
  }

  it('puts the old tree back when the prefix is missing', async () => {
    const { work, prefix, receipt } = await installed('0a1b2c3d');
    await checkPrefixOwnership(prefix);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(receipt);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  it('puts the old tree back in place of an empty prefix directory', async () => {
    const { work, prefix, receipt } = await installed('0a1b2c3d');
    await fs.mkdir(prefix);
    await checkPrefixOwnership(prefix);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(receipt);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  it('removes the old tree when the new prefix is already in place', async () => {
    const { work, prefix, receipt } = await installed();
    const old = `${prefix}.xpu-setup-old-0a1b2c3d`;
    await fs.mkdir(path.join(old, 'lib'), { recursive: true });
    await fs.writeFile(path.join(old, 'lib', 'old.so'), 'old\n');
    await checkPrefixOwnership(prefix);
    expect(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).toBe(receipt);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  it('with two old trees it cannot tell which was current: removes both and restores neither', async () => {
    const { work, prefix, old } = await installed('0a1b2c3d');
    await fs.cp(old!, `${prefix}.xpu-setup-old-ffffffff`, { recursive: true });
    await checkPrefixOwnership(prefix);
    expect((await fs.readdir(work)).sort()).toEqual(['cache']);
  });

  it('leaves alone names that only contain the marker, and a prefix whose parent does not exist', async () => {
    const { work, prefix } = await installed();
    const other = path.join(work, 'other.prefix.xpu-setup-old-0a1b2c3d');
    await fs.mkdir(other);
    await checkPrefixOwnership(prefix);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'other.prefix.xpu-setup-old-0a1b2c3d', 'prefix']);
    await expect(checkPrefixOwnership(path.join(work, 'no', 'such', 'prefix'))).resolves.toBeUndefined();
  });
});
