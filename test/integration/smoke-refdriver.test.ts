// The success path through the real loader and the CPU reference driver (ZE_ENABLE_ALT_DRIVERS, PoCL underneath).
// This file sets the driver env before any zeInit; vitest runs each test file in its own process (pool: forks).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { isXpuError } from '../../src/base/errors.js';
import { silentReporter } from '../../src/base/reporter.js';
import { buildAddon } from '../../src/build/addon.js';
import { formatTritonEnv } from '../../src/caps/format.js';
import { probeStack, requireDevices } from '../../src/probe/probe.js';
import { runSmoke, SMOKE_SPV_ENV } from '../../src/smoke/index.js';
import { smokeInstalled, verifyStack } from '../../src/pipeline/probe.js';
import { ensureGpuDriverDebs } from '../support/debs.js';
import { systemPrefix } from './probe-helpers.js';

const root = path.join(__dirname, '..', '..');
const buildScript = path.join(root, 'native', 'refdriver', 'build.sh');
const prefix = systemPrefix();
const driver = path.join(prefix, 'lib', 'libze_xpu_setup_refdriver.so');
execFileSync('sh', [buildScript, path.join(prefix, 'include'), driver], { stdio: 'pipe' });
process.env.ZE_ENABLE_ALT_DRIVERS = driver;
process.env.XPU_SETUP_REFDRIVER_PROFILE = 'pvc';
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe('probe and smoke through the reference driver', () => {
  const deps = realDeps();

  it('probe sees the impersonated PVC: arch from the L0 ip version, flags from L0 structs; the addon agrees', async () => {
    const addon = await buildAddon(prefix, { deps, reporter: silentReporter });
    const r = await probeStack(prefix, { deps, addonPath: addon.output });
    requireDevices(r, deps);
    const d = r.devices[0]!;
    expect(d.name).toMatch(/^Intel\(R\) Data Center GPU Max 1550/);
    expect(d.arch).toMatchObject({ name: 'pvc', version: '12.60.7', source: 'l0' });
    expect(d.features.find((f) => f.key === 'dpas')).toMatchObject({ value: true, source: 'l0' });
    expect(d.features.find((f) => f.key === 'block_2d_io')).toMatchObject({ value: true, source: 'l0' });
    // FP64 from the module flags, as compute-runtime reports it for PVC (hw_info_pvc.cpp ftrSupportsFP64).
    expect(d.features.find((f) => f.key === 'fp64')).toMatchObject({ value: true, source: 'l0' });
    expect(d.features.find((f) => f.key === 'fp16')).toMatchObject({ value: true, source: 'l0' });
    expect(r.notes.join('\n')).not.toMatch(/disagree/);
    // The reference driver lists no cache and one memory module without clock or bus width (PoCL's host memory).
    expect(d).toMatchObject({ cacheBytes: 0, memoryClockMHz: 0, memoryBusWidth: 0, integrated: false, l0IpVersion: 0x030f0007 });
    // The driver's version string comes through the loader from the extension function ZE_intel_get_driver_version_string;
    // a GPU profile answers as a current rolling driver does, packed as Intel's driver packs it.
    expect(d.driver).toMatchObject({ version: (1 << 24) | (17 << 16) | 39395, versionString: '1.17.39395+13' });
    expect(formatTritonEnv(r).split('\n')[0]).toBe('TRITON_INTEL_DEVICE_ARCH=pvc');
  });

  it('smoke also compiles the kernel with ocloc for the IP version of the device it ran on (22.43 knows PVC 12.60.7)', async () => {
    const gpu = await ensureGpuDriverDebs();
    // ocloc runs as a child with the run's environment; its libraries (libocloc, IGC) come from the library path.
    const withOcloc = { ...deps, env: { ...process.env, LD_LIBRARY_PATH: gpu.libDir } };
    const r = await smokeInstalled(prefix, withOcloc, silentReporter, { ocloc: gpu.ocloc });
    expect(r).toMatchObject({ ok: true, ran: true, ipVersion: 0x030f0007, ocloc: { device: '12.60.7', machine: 205, via: 'flag' } });
  }, 300_000);

  it('smoke runs vector_add and checks every value', async () => {
    const s = await runSmoke(prefix, { deps, reporter: silentReporter, runs: 5, elements: 2048 });
    expect(s).toMatchObject({ ok: true, checked: 2048, elements: 2048, kernel: 'vector_add', deviceType: 'gpu' });
    expect(s.device).toMatch(/^Intel\(R\) Data Center GPU Max 1550 \(xpu-setup CPU reference driver\)$/);
    // Each timing is a measured duration: positive, finite, and the median lies within the run.
    for (const t of [s.timings.initMs, s.timings.moduleBuildMs, s.timings.firstLaunchMs, s.timings.steadyMedianMs]) {
      expect(t).toBeGreaterThan(0);
      expect(Number.isFinite(t)).toBe(true);
    }
  });

  it('smoke catches an error in the last element', async () => {
    const last = { ...deps, env: { ...deps.env, [SMOKE_SPV_ENV]: path.join(root, 'native', 'kernels', 'vector_add_last_wrong.spv') } };
    const err = await runSmoke(prefix, { deps: last, reporter: silentReporter, runs: 1 }).catch((e: unknown) => e);
    expect(isXpuError(err, 'SMOKE')).toBe(true);
    // a[1023] + b[1023] = 511.5 + (-23) = 488.5
    expect((err as Error).message).toMatch(/first mismatch at index 1023: got 489.5, expected 488.5 \(1 of 1024 wrong\)/);
  });

  it('smoke catches a kernel that writes only half of the output', async () => {
    const half = { ...deps, env: { ...deps.env, [SMOKE_SPV_ENV]: path.join(root, 'native', 'kernels', 'vector_add_partial.spv') } };
    const err = await runSmoke(prefix, { deps: half, reporter: silentReporter, runs: 1 }).catch((e: unknown) => e);
    expect(isXpuError(err, 'SMOKE')).toBe(true);
    expect((err as Error).message).toMatch(/first mismatch at index 512: got -1, expected 744 \(512 of 1024 wrong\)/);
  });

  it('smoke catches the wrong-result kernel at index 37', async () => {
    const wrong = { ...deps, env: { ...deps.env, [SMOKE_SPV_ENV]: path.join(root, 'native', 'kernels', 'vector_add_wrong.spv') } };
    const err = await runSmoke(prefix, { deps: wrong, reporter: silentReporter, runs: 1 }).catch((e: unknown) => e);
    expect(isXpuError(err, 'SMOKE')).toBe(true);
    expect((err as Error).message).toMatch(/first mismatch at index 37: got 982.5, expected 981.5 \(1 of 1024 wrong\)/);
  });

  it('a module that does not build shows the build log', async () => {
    const bad = path.join(root, 'native', 'kernels', 'malformed.spv');
    const err = await runSmoke(prefix, { deps: { ...deps, env: { ...deps.env, [SMOKE_SPV_ENV]: bad } }, reporter: silentReporter }).catch((e: unknown) => e);
    expect(isXpuError(err, 'SMOKE')).toBe(true);
    expect((err as Error).message).toMatch(/zeModuleCreate returned .*\nbuild log:\n/);
  });

  it('verifyStack builds, probes and smokes, and returns the Triton values', async () => {
    const v = await verifyStack(prefix, { deps, reporter: silentReporter, smoke: true, requireDevice: true });
    expect(v.build.ok && v.probe.ok && v.smoke.ok).toBe(true);
    expect(v.tritonEnv).toMatchObject({ arch: 'pvc' });
    expect(v.tritonEnv!.device).toMatch(/^Intel\(R\) Data Center GPU Max 1550/);
    expect(v.tritonEnv!.extensions).toContain('cl_intel_subgroup_matrix_multiply_accumulate');
    // No bin/ocloc in this prefix: setup's verification does not look on PATH.
    expect(v.ocloc).toBeUndefined();
  });

  it("verifyStack compiles the kernel with the prefix's bin/ocloc for the device it ran on", async () => {
    const gpu = await ensureGpuDriverDebs();
    fs.mkdirSync(path.join(prefix, 'bin'), { recursive: true });
    fs.symlinkSync(gpu.ocloc, path.join(prefix, 'bin', 'ocloc'));
    try {
      const withOcloc = { ...deps, env: { ...process.env, LD_LIBRARY_PATH: gpu.libDir } };
      const v = await verifyStack(prefix, { deps: withOcloc, reporter: silentReporter, smoke: true, requireDevice: true });
      expect(v.ocloc).toMatchObject({ ocloc: path.join(prefix, 'bin', 'ocloc'), via: 'prefix', device: '12.60.7', machine: 205 });
    } finally {
      fs.rmSync(path.join(prefix, 'bin'), { recursive: true, force: true });
    }
  }, 300_000);
});
