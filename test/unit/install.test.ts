// The install stage on its own: a plan and fetched archives -> a prefix with files, receipt and env files; no CLI.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchedArchive } from '../../src/fetch/fetch.js';
import type { Host } from '../../src/platform/types.js';
import { installPlan } from '../../src/install/install.js';
import { checkPrefixOwnership, isUpToDate, readPrefixState } from '../../src/prefix/prefix-state.js';
import { readReceipt } from '../../src/prefix/receipt.js';
import { verifyPrefix } from '../../src/prefix/verify.js';
import type { ComponentManifest, Provided } from '../../src/manifest/schema.js';
import { lockedOf, planFromLocked } from '../../src/plan/lockfile.js';
import { makePlan } from '../../src/plan/plan.js';
import type { InstallPlan } from '../../src/records/plan.js';
import { silentReporter } from '../../src/base/reporter.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { zipBuffer } from '../support/packages.js';
import { openGateway } from '../../src/index/gateway.js';
import { planOptions } from '../support/plan-options.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const HEADER = '/* ze_api.h test content */\n';
const LIB = 'not a real loader, only bytes to place\n';

/** A zip in a temp "cache", a plan for it (linux-x64, from a pinned URL) and the fetched-archive record install takes. */
async function setup(provides: Provided[] = [{ path: 'include/level_zero/ze_api.h', required: true }]): Promise<{ work: string; plan: InstallPlan; fetched: FetchedArchive[]; host: Host; manifest: ComponentManifest }> {
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
    schema: 1, name: 'level-zero', summary: '', features: [], roles: ['ze-loader', 'ze-headers'],
    platforms: {
      'linux-x64': {
        provides,
        sources: [{ kind: 'url', package: 'sdk', version: '1.20.6', url: 'https://example.invalid/sdk.zip', sha256, size: zip.length, map: [{ from: 'sdk/include/', to: 'include/' }, { from: 'sdk/lib/', to: 'lib/' }] }],
      },
    },
  };
  const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: false };
  const plan = await makePlan(host, [manifest], planOptions({ prefix: path.join(work, 'prefix'), cacheDir: path.join(work, 'cache') }), fakeDeps(), silentReporter, openGateway(fakeDeps(), { cacheDir: path.join(work, 'cache') }));
  const archive = plan.components[0]!.archives[0]!;
  return { work, plan, host, manifest, fetched: [{ archive, component: 'level-zero', file: { path: file, sha256, size: zip.length, cached: true } }] };
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
    expect(await isUpToDate(plan, await readPrefixState(plan.prefix))).toMatchObject({ planKey: plan.planKey });
    const header = path.join(plan.prefix, 'include/level_zero/ze_api.h');
    await fs.writeFile(header, 'edited\n');
    await fs.rm(path.join(plan.prefix, 'lib/libze_loader.so.1'));
    expect(await isUpToDate(plan, await readPrefixState(plan.prefix))).toBeUndefined();
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
    await expect(checkPrefixOwnership(path.join(work, 'new'))).resolves.toEqual({ prefix: path.join(work, 'new') });
  });
  it('replaces an existing prefix and leaves nothing beside it', async () => {
    const { work, plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    const r = await installPlan(plan, fetched, silentReporter);
    expect(r.changed).toBe(true);
    expect(r.notes).toEqual([]);
    expect(await fs.readFile(path.join(plan.prefix, 'include/level_zero/ze_api.h'), 'utf8')).toBe(HEADER);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  it("keeps the user's own files (those the receipt does not list) in the new tree, and names them", async () => {
    const { work, plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    await fs.writeFile(path.join(plan.prefix, 'lib', 'mine.so'), 'a library the user put beside ours\n');
    await fs.mkdir(path.join(plan.prefix, 'etc', 'site'), { recursive: true });
    await fs.writeFile(path.join(plan.prefix, 'etc', 'site', 'settings.ini'), 'k=v\n');
    await fs.symlink('mine.so', path.join(plan.prefix, 'lib', 'mine-link.so'));
    const warns: string[] = [];
    const r = await installPlan(plan, fetched, { ...silentReporter, warn: (m) => warns.push(m) });
    expect(r.notes).toEqual([`kept 3 files of yours in ${plan.prefix} that xpu-setup did not install: etc/site/settings.ini, lib/mine-link.so, lib/mine.so`]);
    expect(warns).toEqual([]);
    expect(await fs.readFile(path.join(plan.prefix, 'lib', 'mine.so'), 'utf8')).toBe('a library the user put beside ours\n');
    expect(await fs.readFile(path.join(plan.prefix, 'etc', 'site', 'settings.ini'), 'utf8')).toBe('k=v\n');
    expect(await fs.readlink(path.join(plan.prefix, 'lib', 'mine-link.so'))).toBe('mine.so');
    // They stay the user's: the new receipt does not list them, and the prefix still verifies.
    const receipt = (await readReceipt(plan.prefix))!;
    expect(receipt.files.map((f) => f.path)).not.toContain('lib/mine.so');
    expect(await verifyPrefix(plan.prefix, receipt)).toEqual([]);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  it("warns before the swap, naming it, of a user's file the new tree puts its own file in place of", async () => {
    const { plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    // As if the installed version did not ship the header and the user had put their own there.
    const receiptFile = path.join(plan.prefix, 'xpu-setup.receipt.json');
    const old = JSON.parse(await fs.readFile(receiptFile, 'utf8')) as { files: { path: string }[] };
    old.files = old.files.filter((f) => f.path !== 'include/level_zero/ze_api.h');
    await fs.writeFile(receiptFile, JSON.stringify(old));
    await fs.writeFile(path.join(plan.prefix, 'include/level_zero/ze_api.h'), '/* the user header */\n');
    const warns: string[] = [];
    let prefixAtWarning: string | undefined;
    const r = await installPlan(plan, fetched, {
      ...silentReporter,
      warn: (m) => {
        warns.push(m);
        prefixAtWarning ??= readFileSync(path.join(plan.prefix, 'include/level_zero/ze_api.h'), 'utf8');
      },
    });
    expect(warns).toEqual([`1 file of yours in ${plan.prefix} will be replaced by the new install's own at the same path: include/level_zero/ze_api.h`]);
    expect(prefixAtWarning).toBe('/* the user header */\n');
    expect(r.notes).toEqual([]);
    expect(await fs.readFile(path.join(plan.prefix, 'include/level_zero/ze_api.h'), 'utf8')).toBe(HEADER);
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
    await expect(checkPrefixOwnership(path.join(work, 'no', 'such', 'prefix'))).resolves.toEqual({ prefix: path.join(work, 'no', 'such', 'prefix') });
  });
});

/** Every file under `dir` with its content (links as `-> target`), to compare a tree before and after. */
async function treeOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isSymbolicLink()) out[path.relative(dir, p)] = `-> ${await fs.readlink(p)}`;
    else if (e.isFile()) out[path.relative(dir, p)] = await fs.readFile(p, 'utf8');
  }
  return out;
}

/** Test double for fs.rename: the `nth` call (1-based) fails with `code` and moves nothing; every other call renames. */
function renameFailingAt(nth: number, code: string): { rename: (from: string, to: string) => Promise<void>; calls: [string, string][] } {
  const calls: [string, string][] = [];
  return {
    calls,
    rename: async (from, to) => {
      calls.push([from, to]);
      if (calls.length === nth) throw Object.assign(new Error(`${code}: rename '${from}' -> '${to}'`), { code });
      await fs.rename(from, to);
    },
  };
}

describe('the swap of the new tree onto the prefix', () => {
  it('when the new tree cannot be renamed onto the prefix, the old prefix is put back whole', async () => {
    const { work, plan, fetched } = await setup();
    await installPlan(plan, fetched, silentReporter);
    await fs.writeFile(path.join(plan.prefix, 'lib', 'extra.so'), 'placed by the first install\n');
    const before = await treeOf(plan.prefix);
    const failing = renameFailingAt(2, 'EXDEV');
    await expect(installPlan(plan, fetched, silentReporter, { rename: failing.rename })).rejects.toMatchObject({
      code: 'INSTALL',
      details: { errno: 'EXDEV', path: plan.prefix },
    });
    // The prefix went aside, the staging tree failed to land, the prefix came back.
    const shape = (p: string) => path.basename(p).replace(/(xpu-setup-(?:old|staging)-)\w+$/, '$1*');
    expect(failing.calls.map(([from, to]) => [shape(from), shape(to)])).toEqual([
      ['prefix', 'prefix.xpu-setup-old-*'],
      ['.prefix.xpu-setup-staging-*', 'prefix'],
      ['prefix.xpu-setup-old-*', 'prefix'],
    ]);
    expect(await treeOf(plan.prefix)).toEqual(before);
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  for (const code of ['EACCES', 'EBUSY']) {
    it(`${code} on moving the old prefix aside is reported as ${code}, and the prefix stays as it was`, async () => {
      const { work, plan, fetched } = await setup();
      await installPlan(plan, fetched, silentReporter);
      const before = await treeOf(plan.prefix);
      const failing = renameFailingAt(1, code);
      const err = await installPlan(plan, fetched, silentReporter, { rename: failing.rename }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'INSTALL', details: { errno: code, path: plan.prefix }, cause: { code } });
      if (code === 'EACCES') expect(err).toMatchObject({ message: `no permission to write ${plan.prefix}` });
      expect(failing.calls).toHaveLength(1);
      expect(await treeOf(plan.prefix)).toEqual(before);
      expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
    });
  }

  it('a --prefix that is a regular file is refused, named as a file, and left as it was', async () => {
    const { work, plan, fetched } = await setup();
    await fs.writeFile(plan.prefix, 'a file the user keeps here\n');
    await expect(installPlan(plan, fetched, silentReporter)).rejects.toMatchObject({
      code: 'INSTALL',
      message: `${plan.prefix} is a file, not a directory`,
      hints: [expect.stringMatching(/choose an empty or new directory with --prefix/)],
    });
    expect(await fs.readFile(plan.prefix, 'utf8')).toBe('a file the user keeps here\n');
    expect((await fs.readdir(work)).sort()).toEqual(['cache', 'prefix']);
  });

  for (const below of ['prefix', 'deeper/prefix']) {
    it(`a --prefix under a regular file (…/file/${below}) names the file, and nothing is changed`, async () => {
      const { work, plan, fetched } = await setup();
      const file = path.join(work, 'file');
      await fs.writeFile(file, 'a file the user keeps here\n');
      const p = { ...plan, prefix: path.join(file, below) };
      await expect(installPlan(p, fetched, silentReporter)).rejects.toMatchObject({
        code: 'INSTALL',
        message: `${p.prefix} cannot be made: ${file} is a file, not a directory`,
        details: { prefix: p.prefix, file },
        hints: [`the prefix would be a directory inside ${file}; nothing was changed`, `choose a --prefix outside it, or move ${file} away if a directory belongs there`],
      });
      expect(await fs.readFile(file, 'utf8')).toBe('a file the user keeps here\n');
      expect((await fs.readdir(work)).sort()).toEqual(['cache', 'file']);
    });
  }

  it('the recorded plan keeps its constraints and fallback notes through a re-run from that record', async () => {
    const { plan, fetched, host, manifest } = await setup();
    const constrained: InstallPlan = {
      ...plan,
      components: plan.components.map((c) => ({ ...c, constraints: ['level-zero>=1.9'], fallbackFrom: ['conda conda-forge: cannot reach https://conda.example.invalid/'] })),
    };
    await installPlan(constrained, fetched, silentReporter, { lockedOf });
    const first = (await readReceipt(plan.prefix))!.plan!;
    expect(first.components[0]).toMatchObject({ constraints: ['level-zero>=1.9'], fallbackFrom: ['conda conda-forge: cannot reach https://conda.example.invalid/'] });
    // The lockfile data the install was handed, with the sizes the download verified and without the lockfile's key.
    expect(first.components[0]!.archives[0]!.size).toBe(fetched[0]!.file.size);
    expect(first).not.toHaveProperty('key');
    // A run with no index (--offline) plans from the receipt's record and installs that plan again.
    const again = planFromLocked(host, [manifest], first, { prefix: plan.prefix, cacheDir: plan.cacheDir, from: { kind: 'receipt', path: 'xpu-setup.receipt.json', reason: '--offline' } });
    await installPlan(again, fetched, silentReporter, { lockedOf });
    expect((await readReceipt(plan.prefix))!.plan).toEqual(first);
  });
});
