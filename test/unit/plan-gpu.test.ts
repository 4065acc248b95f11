// The GPU driver chosen by the GPU, on sysfs trees laid out as the kernel does (a DG2, a BMG, a PVC, a Gen9 and an
// Apollo Lake iGPU, no GPU), read through the Deps seam, with Debian 12's real 22.43 driver on the library path or none.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPlan } from '../../src/cli/render-plan.js';
import type { Deps } from '../../src/base/deps.js';
import type { Host } from '../../src/platform/types.js';
import type { ComponentManifest, SourceSpec } from '../../src/manifest/schema.js';
import { planSetup } from '../../src/pipeline/plan.js';
import { openRunIndex } from '../../src/pipeline/run-index.js';
import { namedGpus, readHostGpus } from '../../src/plan/gpu.js';
import { parseGpuName } from '../../src/machine/gpu-names.js';
import { makePlan, type PlanOptions } from '../../src/plan/plan.js';
import type { HostGpus, InstallPlan } from '../../src/records/plan.js';
import { silentReporter, type Reporter } from '../../src/base/reporter.js';
import { openGateway } from '../../src/index/gateway.js';
import { ensureGpuDriverDebs, type GpuDriverDebs } from '../support/debs.js';
import { fakeDeps, rootedDeps } from '../fixtures/detect/fake-deps.js';
import {
  ARC_B580_UNBOUND, BMG_XE_REBAR, buildTree, BXT_I915, DG2_I915_REBAR, NO_GPU, PVC_I915, PVC_UNBOUND, SKL_I915, type Tree,
} from '../fixtures/detect/sysfs-trees.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-plan-gpu-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let driver: GpuDriverDebs;
beforeAll(async () => {
  driver = await ensureGpuDriverDebs();
}, 300_000);

const host: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true };
const prefix = '/tmp/xpu-plan-gpu-prefix';
const sha = (c: string) => c.repeat(64);

function url(pkg: string, version: string, hash: string): SourceSpec {
  return { kind: 'url', package: pkg, version, url: `https://example.invalid/${pkg}-${version}.tar.gz`, sha256: hash, map: [{ from: 'lib/', to: 'lib/' }] };
}

/** The shipped manifests' shape: the loader by default, the GPU driver (its three roles) only when asked. */
function manifests(driverVersions: string[]): ComponentManifest[] {
  const linux = (sources: SourceSpec[]) => ({ 'linux-x64': { provides: [], sources } });
  return [
    { schema: 1, name: 'level-zero', summary: 'loader', roles: ['ze-loader', 'ze-headers'], features: [], platforms: linux([url('level-zero', '1.20.6', sha('a'))]) },
    {
      schema: 1, name: 'gpu-driver', summary: 'driver', roles: ['gpu-driver', 'opencl-icd', 'offline-compiler'], byDefault: false, features: [],
      platforms: linux(driverVersions.map((v, i) => url('intel-compute-runtime', v, sha(String(i + 1))))),
    },
  ];
}

interface Run {
  hostGpus: HostGpus | undefined;
  warns: string[];
  infos: string[];
}

/** This host's GPUs as readHostGpus reads them from `tree`, with Debian 12's driver on LD_LIBRARY_PATH when `withDriver`. */
async function read(tree: Tree, withDriver: boolean): Promise<HostGpus | undefined> {
  const root = buildTree(tree);
  try {
    const deps = rootedDeps(root, fakeDeps({ env: withDriver ? { LD_LIBRARY_PATH: driver.libDir } : {} }));
    return await readHostGpus(deps, host, prefix);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function plan(tree: Tree, o: { withDriver?: boolean; versions?: string[]; components?: string[]; requires?: string[]; required?: string[] } = {}): Promise<InstallPlan & { run: Run }> {
  const hostGpus = await read(tree, o.withDriver ?? false);
  const run: Run = { hostGpus, warns: [], infos: [] };
  const reporter: Reporter = { ...silentReporter, warn: (m) => run.warns.push(m), info: (m) => run.infos.push(m) };
  const opts: PlanOptions = {
    prefix, cacheDir: path.join(tmp, 'cache'), components: o.components ?? [], sources: [], condaChannels: [], requires: o.requires ?? [], required: o.required, hostGpus,
  };
  const p = await makePlan(host, manifests(o.versions ?? ['26.18.38308.1']), opts, fakeDeps(), reporter, openGateway(fakeDeps(), { cacheDir: opts.cacheDir }));
  return { ...p, run };
}

const names = (p: InstallPlan) => p.components.map((c) => c.name);

describe('host GPUs read from sysfs and the library search path', () => {
  it('reads each tree: the GPU, its family and the kernel driver bound (or none), and the driver library outside the prefix', async () => {
    expect(await read(BMG_XE_REBAR, false)).toMatchObject({ gpus: [{ name: 'Intel(R) Arc(tm) B580 Graphics (bmg, 8086:e20b)', pciId: '8086:e20b', family: 'bmg', kernelDriver: 'xe' }] });
    expect((await read(BMG_XE_REBAR, false))!.driver).toBeUndefined();
    expect((await read(ARC_B580_UNBOUND, false))!.gpus[0]!.kernelDriver).toBeUndefined();
    expect((await read(PVC_UNBOUND, false))!.gpus).toEqual([{ name: expect.stringContaining('8086:0bd5'), pciId: '8086:0bd5', family: 'pvc' }]);
    expect((await read(PVC_I915, false))!.gpus[0]!.kernelDriver).toBe('i915');
    const dg2 = await read(DG2_I915_REBAR, true);
    expect(dg2!.gpus.map((g) => [g.family, g.kernelDriver])).toEqual([['dg2', 'i915']]);
    expect(dg2!.driver).toEqual({ path: path.join(driver.libDir, 'libze_intel_gpu.so.1.3.24595'), version: '1.3.24595' });
    expect(await read(NO_GPU, true)).toEqual({ gpus: [], tried: [expect.stringMatching(/sys\/bus\/pci\/devices: 4 devices, 0 display controllers$/)] });
  });

  it('is not read for another platform, and a driver inside the prefix is not the host\'s', async () => {
    const root = buildTree(DG2_I915_REBAR);
    try {
      const deps: Deps = rootedDeps(root, fakeDeps({ env: { LD_LIBRARY_PATH: driver.libDir } }));
      expect(await readHostGpus(deps, { ...host, native: false }, prefix)).toBeUndefined();
      const inside = await readHostGpus(deps, host, path.dirname(path.dirname(path.dirname(driver.libDir))));
      expect(inside!.driver).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the default request and the GPU driver', () => {
  it('BMG with no driver: gpu-driver joins the default set, says why, and must be a release that drives Battlemage', async () => {
    const p = await plan(BMG_XE_REBAR);
    expect(names(p)).toEqual(['level-zero', 'gpu-driver']);
    expect(p.gpuDriver).toMatchObject({ component: 'gpu-driver', decision: 'added', needs: ['>=24.31.30508.5'] });
    expect(p.gpuDriver!.why).toBe('gpu-driver: this host\'s Arc B580 (BMG, 0xe20b) has no Level Zero driver: adding it; compute-runtime drives Arc B580 (BMG, 0xe20b) from 24.31.30508.5');
    const gd = p.components.find((c) => c.name === 'gpu-driver')!;
    expect(gd).toMatchObject({ status: 'planned', version: '26.18.38308.1', explicit: false, constraints: ['gpu-driver>=24.31.30508.5'] });
    expect(gd.notes).toContain('gpu-driver 26.18.38308.1 drives this host\'s Arc B580 (BMG, 0xe20b) (gpu-driver>=24.31.30508.5)');
    // Said once: as the plan is made, and not again in the plan printed after it.
    expect(p.run.infos).toContain(p.gpuDriver!.why);
    expect(renderPlan(p)).not.toContain(p.gpuDriver!.why);
    expect(renderPlan(p, { full: true })).not.toContain(p.gpuDriver!.why);
    // --json prints the plan as it is: the choice, what it read and why.
    expect(JSON.parse(JSON.stringify(p)).gpuDriver).toMatchObject({ decision: 'added', host: { gpus: [{ pciId: '8086:e20b', family: 'bmg', kernelDriver: 'xe' }] } });
  });

  it("BMG under Debian 12's 22.43 driver: the host's driver predates it, so one is added; a source with only 22.43 is passed over for a newer one", async () => {
    const p = await plan(BMG_XE_REBAR, { withDriver: true, versions: ['22.43.24595.41', '26.18.38308.1'] });
    expect(p.gpuDriver!.decision).toBe('added');
    expect(p.gpuDriver!.why).toContain(`this host's Level Zero driver ${driver.libDir}/libze_intel_gpu.so.1.3.24595 (build 24595) predates Arc B580 (BMG, 0xe20b), which compute-runtime drives from 24.31.30508.5: adding it`);
    const gd = p.components.find((c) => c.name === 'gpu-driver')!;
    expect(gd.version).toBe('26.18.38308.1');
    expect(gd.attempts.map((a) => a.outcome)).toEqual(['not-found', 'chosen']);
    expect(gd.attempts[0]!.reason).toContain('22.43.24595.41 does not meet gpu-driver>=24.31.30508.5');
  });

  it('BMG where every source has only a driver that predates it: the added component is dropped, loudly, naming the GPU and the release it needs', async () => {
    const p = await plan(ARC_B580_UNBOUND, { versions: ['22.43.24595.41'] });
    expect(names(p)).toEqual(['level-zero']);
    expect(p.gpuDriver).toMatchObject({ decision: 'dropped', needs: ['>=24.31.30508.5'] });
    expect(p.gpuDriver!.why).toMatch(/^gpu-driver: no source has a version that drives this host's Arc B580 \(BMG, 0xe20b\) \(gpu-driver>=24\.31\.30508\.5\): not installed \(url .*22\.43\.24595\.41 does not meet gpu-driver>=24\.31\.30508\.5\)$/);
    expect(p.run.warns).toEqual([expect.stringContaining("conda-forge's intel-compute-runtime carries no Level Zero driver")]);
    // Said once, in the warning, which goes on with what to do; not again in the plan.
    expect(p.run.warns[0]).toContain(p.gpuDriver!.why);
    expect(renderPlan(p)).not.toContain(p.gpuDriver!.why);
  });

  it('asked for by name with only a too-old driver to be had: the plan stops, naming the GPU, the release it needs and what was tried', async () => {
    const err = await plan(BMG_XE_REBAR, { versions: ['22.43.24595.41'], components: ['gpu-driver'] }).catch((e) => e);
    expect(err).toMatchObject({ code: 'NO_SOURCE', message: "gpu-driver: no source has a version that drives this host's Arc B580 (BMG, 0xe20b): gpu-driver>=24.31.30508.5 is needed (compute-runtime drives Arc B580 (BMG, 0xe20b) from 24.31.30508.5)" });
    expect(err.hints).toEqual([
      expect.stringMatching(/^tried url .*22\.43\.24595\.41 does not meet gpu-driver>=24\.31\.30508\.5$/),
      expect.stringContaining('conda-forge'),
      "to install an older driver anyway (its ocloc compiles without a GPU): --require 'gpu-driver>=0'",
    ]);
    // The same when it is installed (required by the receipt) rather than named.
    await expect(plan(BMG_XE_REBAR, { versions: ['22.43.24595.41'], required: ['gpu-driver'] })).rejects.toMatchObject({ code: 'NO_SOURCE', details: { needs: ['>=24.31.30508.5'] } });
  });

  it("the request's own constraint replaces what the GPU needs: the old driver is installed, with a warning that it predates the GPU", async () => {
    const p = await plan(BMG_XE_REBAR, { versions: ['22.43.24595.41'], components: ['gpu-driver'], requires: ['gpu-driver>=0'] });
    const gd = p.components.find((c) => c.name === 'gpu-driver')!;
    expect(gd.version).toBe('22.43.24595.41');
    expect(p.gpuDriver!.needs).toBeUndefined();
    expect(p.run.warns).toEqual(["gpu-driver 22.43.24595.41 predates this host's Arc B580 (BMG, 0xe20b), which compute-runtime drives from 24.31.30508.5; installed because the request's own constraint (--require) allows it"]);
  });

  it("DG2 under Debian 12's 22.43 driver: the host's driver works and is left alone, as --verbose and --json say", async () => {
    const p = await plan(DG2_I915_REBAR, { withDriver: true });
    expect(names(p)).toEqual(['level-zero']);
    expect(p.gpuDriver).toMatchObject({ decision: 'left-alone', host: { driver: { version: '1.3.24595' } } });
    expect(p.gpuDriver!.why).toBe(`gpu-driver: this host's Arc A770 (DG2, 0x56a0) has a Level Zero driver, ${driver.libDir}/libze_intel_gpu.so.1.3.24595 (build 24595 drives it): leaving it alone (--component gpu-driver puts one in the prefix anyway)`);
    expect(renderPlan(p, { full: true })).toContain(p.gpuDriver!.why);
    expect(renderPlan(p)).not.toContain('leaving it alone');
  });

  it("DG2 and PVC with no driver: added, and Debian 12's 22.43 is new enough for both", async () => {
    const dg2 = await plan(DG2_I915_REBAR, { versions: ['22.43.24595.41'] });
    expect(dg2.gpuDriver).toMatchObject({ decision: 'added', needs: ['>=21.48.21782'] });
    expect(dg2.components.find((c) => c.name === 'gpu-driver')!.version).toBe('22.43.24595.41');
    const pvc = await plan(PVC_UNBOUND, { versions: ['22.43.24595.41'] });
    expect(pvc.gpuDriver).toMatchObject({ decision: 'added', needs: ['>=21.50.21939'] });
    expect(pvc.gpuDriver!.why).toMatch(/this host's .*\(PVC, 0x0bd5\) has no Level Zero driver: adding it/);
    expect(names(pvc)).toEqual(['level-zero', 'gpu-driver']);
  });

  it('Gen9: only the frozen -legacy1 line (or an older release) drives it, and the plan names it', async () => {
    const p = await plan(SKL_I915, { versions: ['26.18.38308.1'] });
    expect(p.gpuDriver).toMatchObject({ decision: 'dropped', needs: ['<=24.35.30872.45'] });
    expect(p.run.warns[0]).toContain('install the frozen -legacy1 packages of the 24.35 line (intel-level-zero-gpu-legacy1, intel-opencl-icd-legacy1)');
    const ok = await plan(SKL_I915, { versions: ['26.18.38308.1', '22.43.24595.41'] });
    expect(ok.gpuDriver!.why).toContain('Gen9, which left the regular packages at 24.35.30872.22: only the frozen -legacy1 packages of the 24.35 line');
    expect(ok.components.find((c) => c.name === 'gpu-driver')!.version).toBe('22.43.24595.41');
  });

  it('a Gen9 iGPU beside a BMG card: the driver must drive both, a release from 24.31 up to the last of the 24.35 line', async () => {
    // The card is the second DRM device beside the iGPU: card1 and renderD129.
    const card = BMG_XE_REBAR.devices.map((d) => ({ ...d, card: 'card1', renderNode: 'renderD129' }));
    const both: Tree = { ...SKL_I915, devices: [...SKL_I915.devices, ...card], modules: ['i915', 'xe'] };
    const p = await plan(both, { versions: ['26.18.38308.1', '24.35.30872.45', '22.43.24595.41'] });
    expect(p.gpuDriver).toMatchObject({ decision: 'added', needs: ['>=24.31.30508.5', '<=24.35.30872.45'] });
    expect(p.gpuDriver!.why).toMatch(/^gpu-driver: this host's HD Graphics 530 \(SKL, 0x1912\) and Arc B580 \(BMG, 0xe20b\) have no Level Zero driver: adding it/);
    expect(p.components.find((c) => c.name === 'gpu-driver')!.version).toBe('24.35.30872.45');
  });

  it('Apollo Lake (OpenCL only) and no GPU at all: not added; asked for by name, installed with no version asked of it', async () => {
    const bxt = await plan(BXT_I915);
    expect(bxt.gpuDriver).toMatchObject({ decision: 'not-needed' });
    expect(bxt.gpuDriver!.why).toContain('through OpenCL only, never through Level Zero');
    expect(names(bxt)).toEqual(['level-zero']);
    const none = await plan(NO_GPU);
    expect(none.gpuDriver).toEqual({ component: 'gpu-driver', decision: 'not-needed', why: 'gpu-driver: no Intel GPU on this host: installed only when asked (--component gpu-driver)', host: expect.objectContaining({ gpus: [] }) });
    expect(names(none)).toEqual(['level-zero']);
    const asked = await plan(NO_GPU, { components: ['gpu-driver'], versions: ['22.43.24595.41'] });
    expect(asked.gpuDriver!.decision).toBe('asked');
    expect(asked.components).toEqual([expect.objectContaining({ name: 'gpu-driver', status: 'planned', version: '22.43.24595.41' })]);
    expect(asked.components[0]!.constraints).toBeUndefined();
  });

  it('components named without gpu-driver on a BMG with no driver: not added, and the plan says how to add it', async () => {
    const p = await plan(BMG_XE_REBAR, { components: ['level-zero'] });
    expect(names(p)).toEqual(['level-zero']);
    expect(p.gpuDriver!.decision).toBe('not-asked');
    expect(renderPlan(p)).toContain('not added, as components were named (add --component gpu-driver)');
  });
});

describe('planSetup: the facts read where the plan is made', () => {
  it('reads the GPU through the deps and records the choice in the plan', async () => {
    const dir = path.join(tmp, 'manifests');
    mkdirSync(dir, { recursive: true });
    for (const m of manifests(['26.18.38308.1'])) writeFileSync(path.join(dir, `${m.name}.json`), JSON.stringify(m));
    const root = buildTree(BMG_XE_REBAR);
    try {
      const deps = rootedDeps(root, fakeDeps());
      const asked = { plan: { prefix: path.join(tmp, 'p'), cacheDir: path.join(tmp, 'c2') }, flags: {}, manifestsDir: dir, platform: 'linux-x64' as const };
      const p = await planSetup(asked, deps, silentReporter, { index: openRunIndex(asked, deps, silentReporter) });
      expect(p.gpuDriver).toMatchObject({ decision: 'added', host: { gpus: [{ pciId: '8086:e20b' }] } });
      expect(names(p).sort()).toEqual(['gpu-driver', 'level-zero']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('--gpu: planning for GPUs that are not on this machine', () => {
  /** The plan for the GPUs `names` name, on a host (`tree`) whose own GPUs must then not count. */
  async function planFor(names: string[], o: { versions?: string[]; components?: string[] } = {}): Promise<InstallPlan & { run: Run }> {
    const hostGpus = namedGpus(names.map((n) => parseGpuName(n)));
    const run: Run = { hostGpus, warns: [], infos: [] };
    const reporter: Reporter = { ...silentReporter, warn: (m) => run.warns.push(m), info: (m) => run.infos.push(m) };
    const opts: PlanOptions = { prefix, cacheDir: path.join(tmp, 'cache'), components: o.components ?? [], sources: [], condaChannels: [], requires: [], hostGpus };
    const p = await makePlan(host, manifests(o.versions ?? ['26.18.38308.1']), opts, fakeDeps(), reporter, openGateway(fakeDeps(), { cacheDir: opts.cacheDir }));
    return { ...p, run };
  }

  it('takes a family of the support table or a PCI device id in the forms lspci and people write, and refuses anything else by name', () => {
    expect(['BMG', 'bmg', ' dg2 '].map((n) => parseGpuName(n))).toEqual(['bmg', 'bmg', 'dg2']);
    expect(['0xe20b', 'E20B', '8086:e20b', '0x8086:0xe20b'].map((n) => parseGpuName(n))).toEqual(Array(4).fill('8086:e20b'));
    expect(() => parseGpuName('bmgg')).toThrow(expect.objectContaining({ code: 'USAGE', message: '"bmgg" is not a GPU family or PCI device id this tool knows', hints: expect.arrayContaining(['did you mean --gpu bmg?']) }));
    expect(() => parseGpuName('0xffff')).toThrow(expect.objectContaining({ code: 'USAGE', message: '"0xffff": PCI device id 0xffff is not an Intel GPU this tool knows (data/intel-gpu-ids.csv)' }));
  });

  it('a BMG named on a machine without one: the driver is added for it, and a release that predates it is passed over', async () => {
    const p = await planFor(['bmg'], { versions: ['22.43.24595.41', '26.18.38308.1'] });
    expect(p.gpuDriver).toMatchObject({ decision: 'added', needs: ['>=24.31.30508.5'], host: { named: true, gpus: [{ family: 'bmg', pciId: '' }] } });
    expect(p.gpuDriver!.why).toBe('gpu-driver: adding it for BMG (Xe2-HPG), named with --gpu; compute-runtime drives BMG (Xe2-HPG) from 24.31.30508.5');
    expect(p.components.find((c) => c.name === 'gpu-driver')!.version).toBe('26.18.38308.1');
    expect(p.components.find((c) => c.name === 'gpu-driver')!.notes).toContain('gpu-driver 26.18.38308.1 drives BMG (Xe2-HPG), named with --gpu (gpu-driver>=24.31.30508.5)');
  });

  it('a named GPU no reachable release drives stops the plan, naming the GPU and the first release that drives it', async () => {
    const err = await planFor(['0xe20b'], { versions: ['22.43.24595.41'] }).catch((e) => e);
    expect(err).toMatchObject({
      code: 'NO_SOURCE',
      message: 'gpu-driver: no source has a version that drives Arc B580 (BMG, 0xe20b), named with --gpu: gpu-driver>=24.31.30508.5 is needed (compute-runtime drives Arc B580 (BMG, 0xe20b) from 24.31.30508.5)',
    });
    expect(err.hints[0]).toMatch(/^tried url .*22\.43\.24595\.41 does not meet gpu-driver>=24\.31\.30508\.5$/);
  });

  it('two named GPUs set both ends; components named without the driver leave it out and say how to add it', async () => {
    const both = await planFor(['skl', 'bmg'], { versions: ['26.18.38308.1', '24.35.30872.45'] });
    expect(both.gpuDriver).toMatchObject({ decision: 'added', needs: ['>=24.31.30508.5', '<=24.35.30872.45'] });
    expect(both.components.find((c) => c.name === 'gpu-driver')!.version).toBe('24.35.30872.45');
    const only = await planFor(['bmg'], { components: ['level-zero'] });
    expect(names(only)).toEqual(['level-zero']);
    expect(only.gpuDriver!.why).toMatch(/^gpu-driver: not added for BMG \(Xe2-HPG\), named with --gpu, as components were named \(add --component gpu-driver\)/);
  });

  it("planSetup reads the named GPUs instead of this machine's (a DG2 whose driver would be left alone), and the request records them", async () => {
    const dir = path.join(tmp, 'manifests-named');
    mkdirSync(dir, { recursive: true });
    for (const m of manifests(['26.18.38308.1'])) writeFileSync(path.join(dir, `${m.name}.json`), JSON.stringify(m));
    const root = buildTree(DG2_I915_REBAR);
    try {
      const deps = rootedDeps(root, fakeDeps({ env: { LD_LIBRARY_PATH: driver.libDir } }));
      const asked = { plan: { prefix: path.join(tmp, 'p-named'), cacheDir: path.join(tmp, 'c3') }, flags: { gpus: ['8086:e20b'] }, manifestsDir: dir, platform: 'linux-x64' as const };
      const p = await planSetup(asked, deps, silentReporter, { index: openRunIndex(asked, deps, silentReporter) });
      expect(p.gpuDriver).toMatchObject({ decision: 'added', host: { named: true, gpus: [{ pciId: '8086:e20b', family: 'bmg' }], tried: [] } });
      expect(p.request!.gpus).toEqual(['8086:e20b']);
      // --gpu host: this machine's DG2 again, whose driver is left alone.
      const back = { ...asked, flags: { gpus: [] } };
      const q = await planSetup(back, deps, silentReporter, { index: openRunIndex(back, deps, silentReporter) });
      expect(q.gpuDriver).toMatchObject({ decision: 'left-alone', host: { gpus: [{ pciId: '8086:56a0' }] } });
      expect(q.request!.gpus).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
