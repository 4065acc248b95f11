// What no prefix can fix, on sysfs trees laid out as the kernel does (a DG2, a BMG, a PVC; i915 / xe bound or not;
// firmware present or missing; Resizable BAR on or off; WSL2), with Debian 12's real 22.43 driver and real loaders.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/base/deps.js';
import { runDoctor, type DoctorReport } from '../../src/doctor/index.js';
import { driverBuild, familySupport, judgeDriver, parseSupport } from '../../src/machine/driver-support.js';
import { firmwareFor, gpuFirmware } from '../../src/machine/firmware.js';
import { gpuIds } from '../../src/machine/gpu-ids.js';
import { parseResources, vramBarVerdict } from '../../src/machine/pci-bars.js';
import { ensureDebs, ensureGpuDriverDebs, type GpuDriverDebs } from '../support/debs.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';
import {
  BMG_XE_REBAR, BMG_XE_SMALL_BAR_BOOKWORM_FIRMWARE, buildTree, DG2_I915_REBAR, DG2_I915_SMALL_BAR_NO_FIRMWARE, gpuResource, NO_GPU, PVC_I915, PVC_UNBOUND, WSL2, type Tree,
} from '../fixtures/detect/sysfs-trees.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-gpuhalf-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let driver: GpuDriverDebs;
beforeAll(async () => {
  driver = await ensureGpuDriverDebs();
}, 300_000);

const GPU_CHECKS = ['kernel-driver', 'firmware', 'rebar', 'wsl', 'driver-version'];
const get = (r: DoctorReport, id: string) => r.checks.find((c) => c.id === id)!;
let n = 0;

/** The doctor on `tree`, with Debian 12's 22.43 driver on the library path unless `env` says otherwise. */
async function doctor(tree: Tree, only = GPU_CHECKS, env?: Record<string, string>, prefix = path.join(tmp, `prefix-${n++}`)): Promise<DoctorReport> {
  const root = buildTree(tree);
  const deps: Deps = fakeDeps({ env: env ?? { LD_LIBRARY_PATH: driver.libDir }, exec: (f) => (f === 'id' ? ok('root\n') : undefined) });
  try {
    return await runDoctor({ ...deps, started: undefined }, { only, prefix, root });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('support table (data/compute-runtime-support.csv)', () => {
  it('every family is one the GPU id table names, every row has a source, and the legacy line ends on the 24.35 branch', () => {
    const families = new Set([...gpuIds().values()].map((r) => r.family));
    for (const s of familySupport().values()) {
      expect(families.has(s.family), s.family).toBe(true);
      expect(s.source).toMatch(/intel\/compute-runtime/);
      expect(driverBuild(s.firstRelease)).toBeGreaterThan(0);
      if (s.line === 'legacy1') expect(s.lastRelease).toMatch(/^24\.35\.30872\./);
      else expect(s.lastRelease).toBeUndefined();
    }
    expect(familySupport().size).toBe(27);
  });

  it('reads a release, a Level Zero driver version and a version string as the same build number', () => {
    expect(driverBuild('22.43.24595.41')).toBe(24595);
    expect(driverBuild('1.3.24595')).toBe(24595);
    expect(driverBuild('1.6.33578+51')).toBe(33578);
    expect(driverBuild('24.35.30872.22')).toBe(30872);
    expect(driverBuild('not a version')).toBeUndefined();
  });

  it("Debian 12's 22.43 drives DG2 and PVC but predates MTL, ARL, LNL, BMG and PTL; Gen9 needs the legacy line; Apollo Lake has no Level Zero", () => {
    const b = driverBuild('22.43.24595.41')!;
    expect(judgeDriver(b, 'dg2').kind).toBe('ok');
    expect(judgeDriver(b, 'pvc').kind).toBe('ok');
    for (const f of ['mtl', 'arl', 'lnl', 'bmg', 'ptl']) expect(judgeDriver(b, f)).toMatchObject({ kind: 'too-old' });
    expect(judgeDriver(b, 'bmg')).toMatchObject({ needs: '24.31.30508.5' });
    expect(judgeDriver(driverBuild('25.18.33578.6')!, 'skl').kind).toBe('needs-legacy');
    expect(judgeDriver(driverBuild('24.35.30872.36')!, 'skl').kind).toBe('ok');
    expect(judgeDriver(b, 'bxt').kind).toBe('no-level-zero');
    expect(judgeDriver(b, 'i965g').kind).toBe('unknown-family');
  });

  it('a quoted source field may hold commas; a short row names its line', () => {
    const head = 'family,generation,discrete,level_zero,line,first_release,first_release_exact,last_release,source\n';
    expect(parseSupport(`${head}dg2,Xe-HPG,yes,yes,main,21.48.21782,yes,,"a, b ""c"""\n`).get('dg2')!.source).toBe('a, b "c"');
    expect(() => parseSupport(`${head}dg2,Xe-HPG\n`)).toThrow(/line 2 has 2 fields, the header 9/);
  });
});

describe('firmware table and BARs', () => {
  it('ADL-P takes adlp_guc, ADL-S the tgl blobs; DG2 on xe reads its GuC from i915/', () => {
    expect(firmwareFor(gpuFirmware(), { family: 'adl', platform: 'ADLP' }, 'i915').map((r) => r.file)).toEqual(['i915/adlp_guc_70.bin']);
    expect(firmwareFor(gpuFirmware(), { family: 'adl', platform: 'ADLS' }, 'i915').map((r) => r.file)).toEqual(['i915/tgl_guc_70.bin']);
    expect(firmwareFor(gpuFirmware(), { family: 'dg2', platform: 'DG2_G10' }, 'xe').map((r) => r.file)).toEqual(['i915/dg2_guc_70.bin']);
  });

  it('reads BAR sizes from resource lines: this machine\'s virtio device, a resized and a 256 MiB aperture', () => {
    // Captured from this machine's /sys/bus/pci/devices/0000:00:01.0/resource (7 lines, no SR-IOV).
    const virtio = ['0x0000004000000000 0x000000400007ffff 0x0000000000140204', ...Array(6).fill('0x0000000000000000 0x0000000000000000 0x0000000000000000')].join('\n');
    expect(parseResources(virtio)).toHaveLength(7);
    expect(vramBarVerdict(parseResources(virtio))).toEqual({ kind: 'unknown', why: 'BAR2 is not assigned' });
    expect(vramBarVerdict(parseResources(gpuResource(16n << 30n).join('\n')))).toEqual({ kind: 'resized', bytes: 16n << 30n });
    expect(vramBarVerdict(parseResources(gpuResource(256n << 20n).join('\n')))).toEqual({ kind: 'small', bytes: 256n << 20n });
  });
});

describe('doctor on captured sysfs shapes', () => {
  it('DG2 on i915 with Resizable BAR and its firmware, under the 22.43 driver: all ok', async () => {
    const r = await doctor(DG2_I915_REBAR);
    expect(get(r, 'kernel-driver')).toMatchObject({ status: 'ok', message: '0000:03:00.0 bound to i915' });
    expect(get(r, 'firmware')).toMatchObject({ status: 'ok', message: '0000:03:00.0 (dg2 on i915): i915/dg2_guc_70.bin, i915/dg2_huc_gsc.bin' });
    expect(get(r, 'rebar')).toMatchObject({ status: 'ok', message: '0000:03:00.0 (dg2): BAR2 is 16 GiB (Resizable BAR on)' });
    expect(get(r, 'wsl').status).toBe('skip');
    expect(get(r, 'driver-version')).toMatchObject({ status: 'ok', message: expect.stringContaining('libze_intel_gpu.so.1.3.24595 (build 24595): Intel(R) Arc(tm) A770 Graphics (dg2, 8086:56a0): driven since 21.48.21782') });
  });

  it('DG2 with Resizable BAR off and no firmware: the GuC is named as blocking, the HuC as media only, the BAR as a warning', async () => {
    const r = await doctor(DG2_I915_SMALL_BAR_NO_FIRMWARE);
    const fw = get(r, 'firmware');
    expect(fw.status).toBe('fail');
    expect(fw.message).toContain('needs GUC firmware i915/dg2_guc_70.bin, which is not under /lib/firmware');
    expect(fw.message).toContain('i915/dg2_huc_gsc.bin missing (media and authentication only');
    expect(fw.fix).toContain('firmware-misc-nonfree');
    expect(get(r, 'rebar')).toMatchObject({ status: 'warn', message: expect.stringContaining('BAR2 is 256 MiB, so Resizable BAR is off: i915 runs'), fix: expect.stringContaining('Above 4G Decoding') });
  });

  it('BMG on xe under the 22.43 driver: the driver predates Battlemage, and says which release drives it', async () => {
    const r = await doctor(BMG_XE_REBAR);
    expect(get(r, 'firmware')).toMatchObject({ status: 'ok', message: '0000:29:00.0 (bmg on xe): xe/bmg_guc_70.bin, xe/bmg_huc.bin' });
    const v = get(r, 'driver-version');
    expect(v.status).toBe('fail');
    expect(v.message).toContain('this driver (build 24595) predates bmg, which compute-runtime drives from 24.31.30508.5 (build 30508)');
    // One fix that can work: the release that drives it asked for, never the run that installed what is there.
    expect(v.fix).toMatch(/^Intel\(R\) Arc\(tm\) B580 Graphics \(bmg, 8086:e20b\) needs compute-runtime 24\.31\.30508\.5 or newer; here /);
    expect(v.fix).toMatch(/: `.+ --prefix \S+ --require 'gpu-driver>=24\.31\.30508\.5'` asks every source for a release that drives it and loads here, and otherwise lists each one it found and why not/);
    expect(v.fix).not.toContain('conda-forge\'s intel-compute-runtime, which loads');
  });

  it('BMG with no Level Zero driver anywhere: the driver into the prefix without root first, then the machine-wide way', async () => {
    const r = await doctor(BMG_XE_REBAR, ['user-driver'], {});
    const u = get(r, 'user-driver');
    expect(u).toMatchObject({ status: 'fail', message: expect.stringMatching(/^libze_intel_gpu\.so\.1 not found: Level Zero has no driver for the GPU/) });
    expect(u.fix).toMatch(/^without root, into this prefix: `.+ --prefix \S+ --component gpu-driver` .*; or for the whole machine: sudo apt install libze-intel-gpu1/);
  });

  it("BMG on xe with a small BAR and Debian 12's firmware (no xe/): both fail", async () => {
    const r = await doctor(BMG_XE_SMALL_BAR_BOOKWORM_FIRMWARE);
    expect(get(r, 'firmware')).toMatchObject({ status: 'fail', message: expect.stringContaining('needs GUC firmware xe/bmg_guc_70.bin') });
    expect(get(r, 'rebar')).toMatchObject({ status: 'fail', message: '0000:29:00.0 (bmg): BAR2 is 256 MiB, so Resizable BAR is off, and xe needs it' });
  });

  it('PVC with no driver bound: i915.force_probe or Intel\'s data-center driver, and its BAR read though unbound', async () => {
    const r = await doctor(PVC_UNBOUND);
    const k = get(r, 'kernel-driver');
    expect(k).toMatchObject({ status: 'fail', message: expect.stringContaining('0000:18:00.0 has no kernel driver bound; no in-tree driver binds 8086:0bd5 by default') });
    expect(k.fix).toContain('intel-i915-dkms');
    expect(k.fix).toContain('i915.force_probe=0bd5');
    expect(get(r, 'rebar')).toMatchObject({ status: 'ok', message: '0000:18:00.0 (pvc): BAR2 is 128 GiB (Resizable BAR on)' });
    expect(get(r, 'firmware')).toMatchObject({ status: 'skip', message: expect.stringContaining('no in-tree driver to judge its firmware for') });
  });

  it('PVC bound to i915 with its GuC: ok; the 22.43 driver drives it', async () => {
    const r = await doctor(PVC_I915);
    expect(get(r, 'kernel-driver').status).toBe('ok');
    expect(get(r, 'firmware')).toMatchObject({ status: 'ok', message: '0000:18:00.0 (pvc on i915): i915/pvc_guc_70.bin' });
    expect(get(r, 'driver-version').status).toBe('ok');
  });

  it('BMG id that xe binds only when forced gets xe.force_probe with the exact id', async () => {
    const forced: Tree = { devices: [{ ...BMG_XE_REBAR.devices[0]!, device: '0xe215', driver: undefined }], modules: ['xe'] };
    expect([...gpuIds().values()].find((x) => x.deviceId === 0xe215)?.kernelDriver).toBe('unknown');
    const r = await doctor(forced, ['kernel-driver']);
    expect(get(r, 'kernel-driver').fix).toContain('add xe.force_probe=e215 to the kernel command line');
  });

  it('WSL2: /dev/dxg and libdxcore mean the GPU is shared; without libdxcore it fails with `wsl --update`', async () => {
    const shared = await doctor(WSL2, ['gpu', 'wsl']);
    expect(get(shared, 'wsl')).toMatchObject({ status: 'ok', message: expect.stringContaining('the GPU is shared through') });
    expect(get(shared, 'gpu')).toMatchObject({ status: 'warn', message: expect.stringContaining('under WSL2 the GPU is not on this PCI bus') });
    const broken = await doctor({ ...WSL2, wsl: { dxg: true, dxcore: false } }, ['wsl']);
    expect(get(broken, 'wsl')).toMatchObject({ status: 'fail', fix: expect.stringContaining('wsl --update') });
    const wsl1 = await doctor({ ...WSL2, wsl: { dxg: false, dxcore: false, procVersion: WSL2.wsl!.procVersion } }, ['wsl']);
    expect(get(wsl1, 'wsl')).toMatchObject({ status: 'fail', fix: expect.stringContaining('wsl --set-version') });
  });

  it('no GPU: the GPU checks skip', async () => {
    const r = await doctor(NO_GPU);
    for (const id of GPU_CHECKS) expect(get(r, id).status, id).toBe('skip');
  });
});

describe('tracing layer and ocloc', () => {
  /** A prefix holding trixie's real loader 1.20.6, with or without its own tracing layer. */
  async function trixiePrefix(withLayer: boolean): Promise<string> {
    const { trixie } = await ensureDebs();
    const prefix = path.join(tmp, `trixie-${n++}`);
    mkdirSync(path.join(prefix, 'lib'), { recursive: true });
    for (const f of readdirSync(trixie.libDir).filter((x) => x.startsWith('libze_loader.so') || (withLayer && x.startsWith('libze_tracing_layer.so')))) {
      symlinkSync(path.join(trixie.libDir, f), path.join(prefix, 'lib', f));
    }
    return prefix;
  }

  it("a prefix loader 1.20.6 without its own layer would load the system's 1.8.0 tracing layer: fail, 0x78000002", async () => {
    const r = await doctor(NO_GPU, ['tracing-layer'], {}, await trixiePrefix(false));
    const c = get(r, 'tracing-layer');
    expect(c.status).toBe('fail');
    expect(c.message).toMatch(/the prefix's loader 1\.20\.6 would load the system's \S+libze_tracing_layer\.so\.1\.8\.0 \(1\.8\.0\), an older tracing layer: zeInit then fails with ZE_RESULT_ERROR_UNSUPPORTED_VERSION \(0x78000002\)/);
  });

  it("with the prefix's own tracing layer first: ok", async () => {
    const r = await doctor(NO_GPU, ['tracing-layer'], {}, await trixiePrefix(true));
    expect(get(r, 'tracing-layer')).toMatchObject({ status: 'ok', message: expect.stringContaining("the prefix's own (1.20.6)") });
  });

  it("ocloc: the prefix's is found; none warns, naming Inductor; TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv needs none", async () => {
    const prefix = path.join(tmp, `ocloc-${n++}`);
    mkdirSync(path.join(prefix, 'bin'), { recursive: true });
    writeFileSync(path.join(prefix, 'bin', 'ocloc'), '');
    expect(get(await doctor(NO_GPU, ['ocloc'], { PATH: '' }, prefix), 'ocloc')).toMatchObject({ status: 'ok', message: `${prefix}/bin/ocloc (the prefix's)` });
    expect(get(await doctor(NO_GPU, ['ocloc'], { PATH: path.dirname(driver.ocloc) }), 'ocloc')).toMatchObject({ status: 'ok', message: `${driver.ocloc} (on PATH)` });
    const none = get(await doctor(NO_GPU, ['ocloc'], { PATH: '' }), 'ocloc');
    expect(none).toMatchObject({ status: 'warn', message: expect.stringContaining('PyTorch Inductor builds zebin kernels with it by default'), fix: expect.stringContaining('TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv') });
    expect(get(await doctor(NO_GPU, ['ocloc'], { PATH: '', TORCHINDUCTOR_XPU_KERNEL_FORMAT: 'spv' }), 'ocloc')).toMatchObject({ status: 'ok', message: expect.stringContaining('=spv') });
  });
});

describe('Windows', () => {
  it('the display driver carries the user-mode driver: driver-version says so with its version, ocloc and firmware skip', async () => {
    const cim = (await import('node:fs')).readFileSync(path.join(__dirname, '../fixtures/detect/windows/cim-arc-meteorlake.json'), 'utf8');
    const deps = fakeDeps({
      platform: 'win32',
      env: { SystemRoot: 'C:\\Windows', PATH: 'C:\\Windows\\System32' },
      exec: (file, args) => (file === 'powershell.exe' && args.at(-1)!.includes('Win32_VideoController') ? ok(cim) : undefined),
      exists: () => false,
      files: {},
    });
    const r = await runDoctor({ ...deps, started: undefined }, { only: ['driver-version', 'ocloc', 'firmware', 'rebar'], prefix: 'C:\\xpu' });
    expect(get(r, 'driver-version')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('the display driver carries the user-mode driver (Level Zero, OpenCL and the compiler) on Windows: Intel(R) Arc(tm) Graphics (mtl, 8086:7d55): 32.0.101.5768'),
    });
    for (const id of ['ocloc', 'firmware', 'rebar']) expect(get(r, id).status, id).toBe('skip');
  });
});
