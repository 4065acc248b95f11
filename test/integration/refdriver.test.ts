// The CPU reference Level Zero driver, built here and run through Debian's real loader (1.8.12) and PoCL.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverBuildArgs, driverEnv, KERNELS_DIR, runKeyValues } from '../support/refdriver.js';

const root = path.join(import.meta.dirname, '..', '..');
const kernels = KERNELS_DIR;
const ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004;
const ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE = 0x70020000;
const ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001;

let dir = '';
let driver = '';
let smoke = '';

const runSmoke = (args: string[], extra: Record<string, string>) => runKeyValues(smoke, args, driverEnv(dir, extra));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xpu-refdriver-test-'));
  driver = path.join(dir, 'lib', 'libze_xpu_setup_refdriver.so');
  smoke = path.join(dir, 'refdriver_smoke');
  fs.mkdirSync(path.dirname(driver));
  await execa('cc', driverBuildArgs('/usr/include', driver));
  await execa('cc', ['-O2', path.join(root, 'test', 'native', 'refdriver_smoke.c'), '-o', smoke, '-lze_loader']);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform !== 'linux')('CPU reference driver through the real loader', () => {
  it('exports only the loader table getters, including every one loader 1.8.12 requires', async () => {
    const { stdout } = await execa('nm', ['-D', '--defined-only', driver]);
    const names = stdout.split('\n').map((l) => l.split(' ').pop() ?? '').filter(Boolean);
    expect(names.every((n) => /^ze[ts]?Get\w+ProcAddrTable$/.test(n))).toBe(true);
    const required = [
      'zeGetGlobalProcAddrTable', 'zeGetDriverProcAddrTable', 'zeGetDeviceProcAddrTable', 'zeGetContextProcAddrTable',
      'zeGetCommandQueueProcAddrTable', 'zeGetCommandListProcAddrTable', 'zeGetEventProcAddrTable',
      'zeGetEventPoolProcAddrTable', 'zeGetFenceProcAddrTable', 'zeGetImageProcAddrTable', 'zeGetKernelProcAddrTable',
      'zeGetMemProcAddrTable', 'zeGetModuleProcAddrTable', 'zeGetModuleBuildLogProcAddrTable',
      'zeGetPhysicalMemProcAddrTable', 'zeGetSamplerProcAddrTable', 'zeGetVirtualMemProcAddrTable',
      'zetGetDeviceProcAddrTable', 'zetGetContextProcAddrTable', 'zetGetCommandListProcAddrTable',
      'zetGetKernelProcAddrTable', 'zetGetModuleProcAddrTable', 'zetGetDebugProcAddrTable', 'zetGetMetricProcAddrTable',
      'zetGetMetricGroupProcAddrTable', 'zetGetMetricQueryProcAddrTable', 'zetGetMetricQueryPoolProcAddrTable',
      'zetGetMetricStreamerProcAddrTable', 'zetGetTracerExpProcAddrTable',
      'zesGetDeviceProcAddrTable', 'zesGetDriverProcAddrTable', 'zesGetDiagnosticsProcAddrTable',
      'zesGetEngineProcAddrTable', 'zesGetFabricPortProcAddrTable', 'zesGetFanProcAddrTable',
      'zesGetFirmwareProcAddrTable', 'zesGetFrequencyProcAddrTable', 'zesGetLedProcAddrTable',
      'zesGetMemoryProcAddrTable', 'zesGetPerformanceFactorProcAddrTable', 'zesGetPowerProcAddrTable',
      'zesGetPsuProcAddrTable', 'zesGetRasProcAddrTable', 'zesGetSchedulerProcAddrTable',
      'zesGetStandbyProcAddrTable', 'zesGetTemperatureProcAddrTable',
    ];
    expect(required.filter((n) => !names.includes(n))).toEqual([]);
  });

  it('the default profile is an honest CPU device: PoCL vendor id, no Intel device or IP version', async () => {
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver });
    expect(r.exitCode).toBe(0);
    expect(r.values.get('drivers')).toBe('1');
    expect(r.values.get('device0.name')).toBe('xpu-setup CPU reference device (PoCL)');
    expect(r.values.get('device0.type')).toBe('2'); // ZE_DEVICE_TYPE_CPU
    expect(r.values.get('device0.vendorId')).toBe('0x10006');
    expect(r.values.get('device0.deviceId')).toBe('0x0');
    expect(r.values.get('device0.ipVersion')).toBe('0x00000000');
    expect(r.values.get('device0.dpFlags')).toBe('0');
    expect(r.values.get('device0.blockFlags')).toBe('0');
  });

  // Expected answers from public sources, not from profiles.c: IP versions from the FACTS.md table, PCI ids and names
  // from compute-runtime's devices_base.inl, and what compute-runtime's own L0 driver reports for that product —
  // dpFlags (bit 0 DP4A, bit 1 DPAS: DPAS on all but MTL), blockFlags (bit 0 store, bit 1 load: Xe-HPC, Xe2, Xe3),
  // sub-group sizes ({8,16,32} before Xe-HPC), and module flags (1 FP16 and 4 INT64 atomics always, 2 FP64 where
  // hw_info sets ftrSupportsFP64: every product here but DG2).
  it.each([
    ['pvc', '0xbd5', 12, 60, 7, '3', '3', '16,32', '7', 'Intel(R) Data Center GPU Max 1550'],
    ['bmg', '0xe20b', 20, 1, 4, '3', '3', '16,32', '7', 'Intel(R) Arc(TM) B580 Graphics'],
    ['dg2', '0x56a0', 12, 55, 8, '3', '0', '8,16,32', '5', 'Intel(R) Arc(TM) A770 Graphics'],
    ['lnl', '0x64a0', 20, 4, 4, '3', '3', '16,32', '7', 'Intel(R) Arc(TM) Graphics'],
    ['mtl', '0x7d55', 12, 71, 4, '1', '0', '8,16,32', '7', 'Intel(R) Arc(TM) Graphics'],
    ['arl_h', '0x7d51', 12, 74, 4, '3', '0', '8,16,32', '7', 'Intel(R) Arc(TM) Graphics'],
    ['ptl_h', '0xb080', 30, 0, 4, '3', '3', '16,32', '7', 'Intel(R) Arc(TM) B390 GPU'],
  ] as const)('profile %s reports device id %s, IP %d.%d.%d, DPAS/2D block/module flags and sub-group sizes as the real GPU', async (profile, id, major, minor, rev, dp, block, sg, mod, name) => {
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: profile });
    expect(r.exitCode).toBe(0);
    expect(r.values.get('device0.deviceId')).toBe(id);
    expect(Number(r.values.get('device0.ipVersion'))).toBe(major * 2 ** 22 + minor * 2 ** 14 + rev);
    expect(r.values.get('device0.vendorId')).toBe('0x8086');
    expect(r.values.get('device0.type')).toBe('1'); // ZE_DEVICE_TYPE_GPU
    expect(r.values.get('device0.dpFlags')).toBe(dp);
    expect(r.values.get('device0.blockFlags')).toBe(block);
    expect(r.values.get('device0.subGroupSizes')).toBe(sg);
    expect(r.values.get('device0.moduleFlags')).toBe(mod);
    expect(r.values.get('device0.name')).toBe(`${name} (xpu-setup CPU reference driver)`);
  });

  it('the default profile reports fp16/fp64/int64 atomics as the PoCL device has them (its clinfo extension list)', async () => {
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver });
    const { stdout } = await execa('clinfo', [], { reject: false });
    const cpuExt = /Device Type\s+CPU[\s\S]*?Device Extensions\s{2,}(.+)/.exec(stdout)?.[1] ?? '';
    const expected = (cpuExt.includes('cl_khr_fp16') ? 1 : 0) | (cpuExt.includes('cl_khr_fp64') ? 2 : 0) | (cpuExt.includes('cl_khr_int64_base_atomics') ? 4 : 0);
    expect(cpuExt).toContain('cl_khr_fp64');
    expect(r.values.get('device0.moduleFlags')).toBe(String(expected));
  });

  it('honours ZE_AFFINITY_MASK as compute-runtime does: a mask that does not name device 0 hides it', async () => {
    for (const [mask, count] of [['0', '1'], ['0.1', '1'], ['1,0', '1'], ['1', '0'], ['2.0', '0'], ['', '1']] as const) {
      const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'pvc', ZE_AFFINITY_MASK: mask });
      expect(r.exitCode, mask).toBe(0);
      expect(r.values.get('driver0.devices'), `ZE_AFFINITY_MASK=${mask}`).toBe(count);
    }
  });

  it('GPU profiles report a current rolling driver (1.17.39395+13, packed as Intel packs it), the default profile the driver\'s own 1.0.0', async () => {
    const gpu = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'pvc' });
    expect(gpu.values.get('driver0.version')).toBe(`0x${((1 << 24) | (17 << 16) | 39395).toString(16).padStart(8, '0')}`);
    const cpu = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver });
    expect(cpu.values.get('driver0.version')).toBe('0x01000000');
  });

  it('XPU_SETUP_REFDRIVER_DRIVER_VERSION and XPU_SETUP_REFDRIVER_IP override the profile\'s driver version and IP', async () => {
    const r = await runSmoke(['props'], {
      ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'bmg', XPU_SETUP_REFDRIVER_DRIVER_VERSION: '1.6.33578+51', XPU_SETUP_REFDRIVER_IP: '20.1.0',
    });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.values.get('driver0.version')).toBe(`0x${((1 << 24) | (6 << 16) | 33578).toString(16).padStart(8, '0')}`);
    expect(r.values.get('device0.ipVersion')).toBe('0x05004000'); // BMG_G21_A0 in compute-runtime's platforms.h
    expect(r.values.get('device0.deviceId')).toBe('0xe20b');
  });

  it.each([
    [{ XPU_SETUP_REFDRIVER_DRIVER_VERSION: '1.6' }, "XPU_SETUP_REFDRIVER_DRIVER_VERSION '1.6' is not major.minor.build[+hotfix]"],
    [{ XPU_SETUP_REFDRIVER_DRIVER_VERSION: '1.6.70000' }, "XPU_SETUP_REFDRIVER_DRIVER_VERSION '1.6.70000' is not"],
    [{ XPU_SETUP_REFDRIVER_DRIVER_VERSION: '1.6.1+' }, "XPU_SETUP_REFDRIVER_DRIVER_VERSION '1.6.1+' is not"],
    [{ XPU_SETUP_REFDRIVER_IP: '20.1' }, "XPU_SETUP_REFDRIVER_IP '20.1' is not major.minor.revision"],
    [{ XPU_SETUP_REFDRIVER_IP: '20.1.64' }, "XPU_SETUP_REFDRIVER_IP '20.1.64' is not"],
    [{ XPU_SETUP_REFDRIVER_IP: '20.1.0', XPU_SETUP_REFDRIVER_PROFILE: 'default' }, "XPU_SETUP_REFDRIVER_IP needs a GPU profile"],
  ])('a malformed override %j makes zeInit fail and says what was wrong', async (extra, message) => {
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'bmg', ...extra });
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toContain(`returned 0x${ZE_RESULT_ERROR_UNINITIALIZED.toString(16)}`);
    expect(r.stderr).toContain(message);
  });

  it('an unknown profile makes zeInit fail and says which profiles exist', async () => {
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'xe9' });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toContain(`returned 0x${ZE_RESULT_ERROR_UNINITIALIZED.toString(16)}`);
    expect(r.stderr).toContain("unknown XPU_SETUP_REFDRIVER_PROFILE 'xe9'");
  });

  it('vector_add computes every element correctly on an immediate list and on a queue with a regular list', async () => {
    const r = await runSmoke(['run', path.join(kernels, 'vector_add.spv')], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_REFDRIVER_PROFILE: 'bmg' });
    expect(r.stdout).not.toContain('error=');
    expect(r.exitCode).toBe(0);
    expect(r.values.get('device0.numKernelArgs')).toBe('3');
    expect(r.values.get('device0.devAllocType')).toBe('2'); // ZE_MEMORY_TYPE_DEVICE, found from an interior pointer
    expect(r.values.get('device0.immediate')).toBe('ok');
    expect(r.values.get('device0.regular')).toBe('ok');
    expect(r.values.get('device0.regular_again')).toBe('ok');
    expect(r.values.get('device0.kernelTimestampOrdered')).toBe('1');
  });

  it('the wrong-result fixture kernel is caught at index 37', async () => {
    const r = await runSmoke(['run', path.join(kernels, 'vector_add_wrong.spv')], { ZE_ENABLE_ALT_DRIVERS: driver });
    expect(r.exitCode).toBe(1);
    expect(r.values.get('device0.immediate')).toBe('mismatch index 37 got 112.5 expected 111.5');
    expect(r.values.get('device0.regular')).toBe('mismatch index 37 got 112.5 expected 111.5');
  });

  it('a malformed SPIR-V module fails with MODULE_BUILD_FAILURE and a readable build log', async () => {
    const r = await runSmoke(['malformed', path.join(kernels, 'malformed.spv')], { ZE_ENABLE_ALT_DRIVERS: driver });
    expect(r.exitCode).toBe(0);
    expect(Number(r.values.get('device0.moduleCreate'))).toBe(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    expect(r.values.get('device0.buildLog')).toMatch(/^invalid SPIR-V: /);
  });

  it('a missing translator is reported as an unavailable dependency naming the tool', async () => {
    const missing = path.join(dir, 'no-such-llvm-spirv');
    const r = await runSmoke(['malformed', path.join(kernels, 'vector_add.spv')], { ZE_ENABLE_ALT_DRIVERS: driver, XPU_SETUP_LLVM_SPIRV: missing });
    expect(Number(r.values.get('device0.moduleCreate'))).toBe(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE);
    expect(r.values.get('device0.buildLog')).toContain(`cannot run ${missing}`);
  });

  it('two copies of the driver loaded at once both run the kernel (the loader wraps their handles)', async () => {
    const second = path.join(dir, 'copy', 'libze_xpu_setup_refdriver.so');
    fs.mkdirSync(path.dirname(second), { recursive: true });
    fs.copyFileSync(driver, second);
    const r = await runSmoke(['run', path.join(kernels, 'vector_add.spv')], { ZE_ENABLE_ALT_DRIVERS: `${driver},${second}` });
    expect(r.stdout).not.toContain('error=');
    expect(r.exitCode).toBe(0);
    expect(r.values.get('drivers')).toBe('2');
    for (const d of ['device0', 'device1']) {
      expect(r.values.get(`${d}.immediate`)).toBe('ok');
      expect(r.values.get(`${d}.regular`)).toBe('ok');
    }
  });

  it('ZE_ENABLE_LOADER_INTERCEPT=1 still runs the kernel', async () => {
    const r = await runSmoke(['run', path.join(kernels, 'vector_add.spv')], { ZE_ENABLE_ALT_DRIVERS: driver, ZE_ENABLE_LOADER_INTERCEPT: '1' });
    expect(r.exitCode).toBe(0);
    expect(r.values.get('device0.immediate')).toBe('ok');
    expect(r.values.get('device0.regular')).toBe('ok');
  });

  it('native/refdriver/build.sh builds a driver the loader accepts', async () => {
    const out = path.join(dir, 'from-script', 'libze_xpu_setup_refdriver.so');
    fs.mkdirSync(path.dirname(out));
    await execa('sh', [path.join(root, 'native', 'refdriver', 'build.sh'), '/usr/include', out]);
    const r = await runSmoke(['props'], { ZE_ENABLE_ALT_DRIVERS: out, XPU_SETUP_REFDRIVER_PROFILE: 'pvc' });
    expect(r.values.get('device0.ipVersion')).toBe('0x030f0007');
  });

  it('the committed .spv kernels are what build-spv.sh produces from the .cl sources', async () => {
    const out = path.join(dir, 'spv');
    fs.mkdirSync(out);
    await execa('sh', [path.join(kernels, 'build-spv.sh')], { env: { OUT_DIR: out } });
    for (const name of ['vector_add.spv', 'vector_add_wrong.spv', 'struct_arg.spv', 'atomics20.spv']) {
      expect(fs.readFileSync(path.join(out, name)).equals(fs.readFileSync(path.join(kernels, name)))).toBe(true);
    }
  });
});
