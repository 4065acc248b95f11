import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archFeatures, deriveFeatures, featureName, parseClinfo } from '../../src/caps/features.js';
import { consumerNames, formatLines, formatPytorch, formatTritonEnv, formatVerbose, pytorchDevices, pytorchProps, tritonEnv, urDriverVersion } from '../../src/caps/format.js';
import { buildReport, matchOpenCl, trustComponents } from '../../src/caps/model.js';
import type { OpenClDevice, RawDevice, RawZeProbe } from '../../src/bindings/types.js';

const fixture = (f: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'opencl', f), 'utf8');
const extList = (text: string) => text.split('\n').filter((l) => !l.startsWith('#')).join(' ').split(/\s+/).filter(Boolean);
const flag = (flags: ReturnType<typeof deriveFeatures>, key: string) => flags.find((f) => f.key === key)!;

function device(over: Partial<RawDevice> = {}): RawDevice {
  return {
    name: 'Intel(R) Data Center GPU Max 1550', type: 1, vendorId: 0x8086, deviceId: 0x0bd5, flags: 0, subdeviceId: 0,
    coreClockRate: 1600, maxMemAllocSize: 2 ** 34, numThreadsPerEU: 8, physicalEUSimdWidth: 16, numEUsPerSubslice: 8,
    numSubslicesPerSlice: 4, numSlices: 2, uuid: '00'.repeat(16), maxTotalGroupSize: 1024, maxGroupSize: [1024, 1024, 1024],
    maxSharedLocalMemory: 131072, subGroupSizes: [16, 32], spirvVersion: '1.2', moduleFlags: 0, fp16flags: 0, fp64flags: 0,
    dpFlags: null, blockArrayFlags: null, ipVersion: null, memories: [{ name: 'HBM', totalSize: 2 ** 36, maxClockRate: 0, maxBusWidth: 0 }],
    pci: { domain: 0, bus: 0x3a, device: 0, function: 0 }, subDevices: 0, ...over,
  };
}

function zeProbe(devices: RawDevice[]): RawZeProbe {
  return { via: 'koffi', loaderPath: '/p/lib/libze_loader.so.1', init: 0, components: [], notes: [], drivers: [{ apiVersion: '1.3', driverVersion: 1, uuid: '', extensions: [], devices }] };
}

// The Intel extensions compute-runtime's compiler_product_helper.cpp advertises on PVC (XT C0), in its spelling.
const PVC_DRIVER_EXTENSIONS = [
  'cl_khr_fp64', 'cl_khr_fp16', 'cl_khr_int64_base_atomics', 'cl_intel_bfloat16_conversions',
  'cl_intel_subgroup_matrix_multiply_accumulate', 'cl_intel_subgroup_matrix_multiply_accumulate_tf32',
  'cl_intel_subgroup_split_matrix_multiply_accumulate', 'cl_intel_subgroup_2d_block_io',
];

describe('feature flags from OpenCL extension lists', () => {
  it('detects tf32 DPAS by the name drivers advertise (_tf32), and says consumers ask for another name', () => {
    const flags = deriveFeatures({ openclExtensions: PVC_DRIVER_EXTENSIONS });
    for (const k of ['dpas', 'dpas_tf32', 'block_2d_io', 'bf16_conversions', 'fp64', 'fp16', 'atomic64']) {
      expect(flag(flags, k)).toMatchObject({ value: true, source: 'opencl' });
    }
    expect(flag(flags, 'dpas_tf32').detail).toMatch(/drivers advertise cl_intel_subgroup_matrix_multiply_accumulate_tf32, Triton and PyTorch ask for cl_intel_subgroup_matrix_multiply_accumulate_tensor_float32/);
  });

  it('does not take the consumers\' _tensor_float32 spelling (a Triton env value, not a driver list) as tf32', () => {
    const flags = deriveFeatures({ openclExtensions: extList(fixture('pvc-aurora-triton-extensions.txt')) });
    expect(flag(flags, 'dpas')).toMatchObject({ value: true, source: 'opencl' });
    expect(flag(flags, 'dpas_tf32')).toMatchObject({ value: false, source: 'opencl' });
  });

  it('derives no Intel flag from the real PoCL CPU clinfo output', () => {
    const parsed = parseClinfo(fixture('pocl-3.1-debian12-cpu.clinfo.txt'));
    expect(parsed).toHaveLength(1);
    expect(parsed[0]!.device).toMatch(/^pthread-/);
    expect(parsed[0]!.extensions).toContain('cl_khr_fp64');
    const flags = deriveFeatures({ openclExtensions: parsed[0]!.extensions });
    expect(flag(flags, 'dpas')).toMatchObject({ value: false, source: 'opencl' });
    expect(flag(flags, 'block_2d_io').value).toBe(false);
    expect(flag(flags, 'fp64')).toMatchObject({ value: true, source: 'opencl' });
  });

  it('prefers an L0 extension struct over OpenCL and OpenCL over the arch table', () => {
    const d = device({ dpFlags: 2, blockArrayFlags: 0 });
    const flags = deriveFeatures({ device: d, openclExtensions: ['cl_intel_subgroup_2d_block_io'], arch: 'pvc' });
    expect(flag(flags, 'dpas')).toMatchObject({ value: true, source: 'l0' });
    expect(flag(flags, 'block_2d_io')).toMatchObject({ value: false, source: 'l0' });
    expect(flag(flags, 'bf16_conversions')).toMatchObject({ value: false, source: 'opencl' });
  });

  it('falls back to the arch table, marked inferred', () => {
    const flags = deriveFeatures({ arch: 'acm_g10' });
    expect(flag(flags, 'dpas')).toMatchObject({ value: true, source: 'arch', detail: 'inferred from arch acm_g10 (compute-runtime)' });
    expect(flag(flags, 'dpas_tf32')).toMatchObject({ value: false, source: 'arch' });
    expect(deriveFeatures({})[0]).toMatchObject({ value: null, source: 'none', detail: 'no source answered' });
  });

  it('reads each L0 flag from its own bit and names the struct that answered', () => {
    // DP4A without DPAS, a load-only block array, fp64 alone: every other L0 flag is false.
    const flags = deriveFeatures({ device: device({ dpFlags: 1, blockArrayFlags: 2, moduleFlags: 2 }) });
    expect(flag(flags, 'dpas')).toEqual({ key: 'dpas', value: false, source: 'l0', detail: 'ze_intel_device_module_dp_exp_properties_t' });
    expect(flag(flags, 'block_2d_io')).toEqual({ key: 'block_2d_io', value: false, source: 'l0', detail: 'ze_intel_device_block_array_exp_properties_t' });
    expect(flag(flags, 'fp64')).toEqual({ key: 'fp64', value: true, source: 'l0', detail: 'ze_device_module_properties_t.flags' });
    expect(flag(flags, 'fp16')).toEqual({ key: 'fp16', value: false, source: 'l0', detail: 'ze_device_module_properties_t.flags' });
    expect(flag(flags, 'atomic64')).toEqual({ key: 'atomic64', value: false, source: 'l0', detail: 'ze_device_module_properties_t.flags' });
    const all = deriveFeatures({ device: device({ dpFlags: 3, blockArrayFlags: 3, moduleFlags: 5 }) });
    expect(['dpas', 'block_2d_io', 'fp64', 'fp16', 'atomic64'].map((k) => flag(all, k).value)).toEqual([true, true, false, true, true]);
  });

  it('says which OpenCL device\'s list answered, and whether the extension was in it', () => {
    const named = deriveFeatures({ openclExtensions: ['cl_khr_fp64'], openclDevice: 'Intel(R) Arc(TM) A770 Graphics' });
    expect(flag(named, 'fp64').detail).toBe('cl_khr_fp64 in Intel(R) Arc(TM) A770 Graphics\'s extension list');
    expect(flag(named, 'fp16').detail).toBe('cl_khr_fp16 not in Intel(R) Arc(TM) A770 Graphics\'s extension list');
    const unnamed = deriveFeatures({ openclExtensions: [] });
    expect(flag(unnamed, 'dpas').detail).toBe('cl_intel_subgroup_matrix_multiply_accumulate not in the OpenCL device\'s extension list');
    expect(flag(unnamed, 'dpas_tf32').detail).toMatch(/which no driver advertises: the Triton env names it so Triton sees it, PyTorch reports false$/);
  });

  it('states no feature of the parts before Xe-LP beyond what none of them has', () => {
    for (const arch of ['bdw', 'skl', 'kbl', 'cfl', 'apl', 'glk', 'whl', 'aml', 'cml', 'icllp', 'ehl']) {
      expect(archFeatures(arch)).toEqual({ dpas: false, dpas_tf32: false, block_2d_io: false, bf16_conversions: false });
      const flags = deriveFeatures({ arch });
      expect(flag(flags, 'fp64')).toMatchObject({ value: null, source: 'none' });
    }
    for (const arch of ['rkl', 'adl_s', 'adl_p', 'adl_n']) expect(archFeatures(arch)).toEqual(archFeatures('tgllp'));
    expect(archFeatures('acm_g12')).toEqual(archFeatures('acm_g10'));
  });

  it('names each flag as Triton (compiler.py target properties) and PyTorch (_XpuDeviceProperties) spell it', () => {
    expect(consumerNames(featureName('fp64'))).toBe('has_fp64 (Triton, PyTorch)');
    expect(consumerNames(featureName('bf16_conversions'))).toBe('has_bfloat16_conversion (Triton) / has_bfloat16_conversions (PyTorch)');
    expect(consumerNames(featureName('block_2d_io'))).toBe('has_2d_block_io (Triton) / has_subgroup_2d_block_io (PyTorch)');
    expect(consumerNames(featureName('fp16'))).toBe('has_fp16 (PyTorch)');
    expect(consumerNames(featureName('atomic64'))).toBe('has_atomic64 (PyTorch)');
  });

  it('parses clinfo per device: trailing blanks trimmed, an extension list before any device name ignored', () => {
    const text = [
      '  Device Extensions                               cl_khr_orphan',
      '  Device Name                                     Intel(R) Arc(TM) A770 Graphics   ',
      '  Device Extensions                               cl_khr_fp16  cl_khr_fp64   ',
      '  Device Name                                     Second',
      '  Device Extensions                               cl_khr_int64_base_atomics',
    ].join('\n');
    expect(parseClinfo(text)).toEqual([
      { device: 'Intel(R) Arc(TM) A770 Graphics', extensions: ['cl_khr_fp16', 'cl_khr_fp64'] },
      { device: 'Second', extensions: ['cl_khr_int64_base_atomics'] },
    ]);
  });
});

// Expected answers written from compute-runtime (2026), independent of the table under test: per architecture,
// [DPAS, tf32, 2D block IO, bf16 conversions, fp64].
//  - DPAS: compiler_release_helper is true except gen12lp, mtl_h, mtl_u, pvc_vg.
//  - tf32 (cl_intel_subgroup_matrix_multiply_accumulate_tf32): compiler_product_helper_xe_hpc_and_later.inl, PVC B0..C0.
//  - 2D block IO: xe_hpc_and_later only. bf16 conversions: caps_* of every release from gen12lp.
//  - fp64: ftrSupportsFP64 in hw_info_{tgllp,dg2,pvc,mtl,arl,bmg,lnl,ptl,nvls,nvlp}.cpp.
const COMPUTE_RUNTIME: [string, boolean, boolean, boolean, boolean, boolean][] = [
  ['tgllp', false, false, false, true, false],
  ['dg1', false, false, false, true, false],
  ['acm_g10', true, false, false, true, false],
  ['acm_g11', true, false, false, true, false],
  ['pvc', true, true, true, true, true],
  ['pvc_vg', false, false, true, true, true],
  ['mtl_u', false, false, false, true, true],
  ['mtl_h', false, false, false, true, true],
  ['arl_h', true, false, false, true, true],
  ['bmg_g21', true, true, true, true, true],
  ['bmg_g31', true, true, true, true, true],
  ['lnl_m', true, true, true, true, true],
  ['ptl_h', true, true, true, true, true],
  ['ptl_u', true, true, true, true, true],
  ['wcl', true, true, true, true, true],
  ['nvl_s', true, true, true, true, true],
  ['nvl_u', true, true, true, true, true],
  ['nvl_p', true, true, true, true, true],
  // Xe3p-XPC: caps_xe3p.h (systolic DPAS, bf16), compiler_product_helper_xe_hpc_and_later.inl (tf32, 2D block IO), hw_info_cri.cpp (fp64).
  ['cri', true, true, true, true, true],
];

describe('the arch table agrees with compute-runtime', () => {
  it.each(COMPUTE_RUNTIME)('%s: DPAS %s, tf32 %s, 2D block IO %s, bf16 %s, fp64 %s', (arch, dpas, tf32, block, bf16, fp64) => {
    expect(archFeatures(arch)).toMatchObject({ dpas, dpas_tf32: tf32, block_2d_io: block, bf16_conversions: bf16, fp64, fp16: true, atomic64: true });
  });
});

describe('flags that differ by stepping', () => {
  // enable_compiler_product_helper_pvc.cpp: tf32 when PVC_XT_B0 (12.60.5) <= config < PVC_XT_C0_VG (12.61.7).
  it.each([[0, false], [1, false], [3, false], [5, true], [6, true], [7, true]])('PVC rev %d: tf32 %s', (revision, tf32) => {
    const flags = deriveFeatures({ arch: 'pvc', revision });
    expect(flag(flags, 'dpas_tf32').value).toBe(tf32);
    expect(flag(flags, 'dpas').value).toBe(true);
  });

  it('keeps the part\'s row when the stepping is not known (a PCI id only)', () => {
    expect(flag(deriveFeatures({ arch: 'pvc' }), 'dpas_tf32').value).toBe(true);
    expect(flag(deriveFeatures({ arch: 'pvc', revision: 3 }), 'dpas_tf32').detail).toMatch(/PVC XT-B0\.\.XT-C0 only, this is rev 3/);
  });
});

describe('report model and formats', () => {
  const clPvc: OpenClDevice = {
    platform: 'Intel(R) OpenCL Graphics', platformVendor: 'Intel(R) Corporation', name: 'Intel(R) Data Center GPU Max 1550',
    type: 'gpu', vendorId: 0x8086, deviceId: 0x0bd5, ipVersion: 0x030f0007, pci: { domain: 0, bus: 0x3a, device: 0, function: 0 },
    driverVersion: '24.0', extensions: extList(fixture('pvc-aurora-triton-extensions.txt')),
  };

  it('matches the OpenCL twin by PCI address, then device id, and ignores non-Intel devices', () => {
    expect(matchOpenCl(device(), [clPvc])?.by).toBe('pci');
    expect(matchOpenCl(device({ pci: null }), [clPvc])?.by).toBe('device id');
    expect(matchOpenCl(device(), [{ ...clPvc, vendorId: 0x10006, type: 'cpu' }])).toBeUndefined();
  });

  it('takes the IP version from OpenCL when L0 could not ask, and prints Triton variables in Triton\'s spelling', () => {
    const r = buildReport({ ze: zeProbe([device({ moduleFlags: 0b111 })]), opencl: [{ ...clPvc, extensions: PVC_DRIVER_EXTENSIONS }] });
    expect(r.schema).toBe('xpu-setup.probe/1');
    expect(r.devices[0]!.arch).toMatchObject({ name: 'pvc', source: 'opencl' });
    const t = tritonEnv(r)!;
    expect(t.arch).toBe('pvc');
    expect(t.extensions).toContain('cl_intel_subgroup_matrix_multiply_accumulate_tensor_float32');
    expect(t.extensions).not.toContain('cl_intel_subgroup_matrix_multiply_accumulate_tf32');
    expect(formatTritonEnv(r)).toBe('TRITON_INTEL_DEVICE_ARCH=pvc\nTRITON_INTEL_DEVICE_EXTENSIONS="cl_intel_subgroup_matrix_multiply_accumulate '
      + 'cl_intel_subgroup_matrix_multiply_accumulate_tensor_float32 cl_intel_subgroup_2d_block_io cl_intel_bfloat16_conversions cl_khr_fp64 cl_khr_fp16 cl_khr_int64_base_atomics"');
    expect(formatLines(r)).toBe('[level_zero:gpu][level_zero:0.0] Intel(R) Data Center GPU Max 1550 1.3 [pvc 12.60.7]');
  });

  it('says the architecture is unknown when no IP version was reported, and leaves both Triton variables out', () => {
    const r = buildReport({ ze: zeProbe([device({ ipVersion: null, vendorId: 0x10006 })]) });
    expect(r.devices[0]!.arch.name).toBe('unknown (no ip version reported)');
    const lines = formatTritonEnv(r).split('\n');
    expect(lines[0]).toMatch(/^# TRITON_INTEL_DEVICE_ARCH not set/);
    expect(lines[1]).toBe('# TRITON_INTEL_DEVICE_EXTENSIONS not set: unknown has_subgroup_matrix_multiply_accumulate, has_subgroup_matrix_multiply_accumulate_tensor_float32, has_2d_block_io, has_bfloat16_conversion (Triton would read a missing name as "no")');
    expect(r.notes.join('\n')).toMatch(/no Intel OpenCL GPU device/);
  });

  it('falls back to the PCI device id table when no IP version was reported, and says so', () => {
    const r = buildReport({ ze: zeProbe([device({ ipVersion: null, deviceId: 0x56a5 })]) });
    expect(r.devices[0]!.arch).toMatchObject({ name: 'dg2', sycl: 'acm_g11', source: 'pci', version: '12.56.x' });
    expect(formatVerbose(r)).toMatch(/arch\s+dg2 \(12\.56\.x, .*not known \(from the PCI device id\)\) \[from the PCI device id\]/);
    // The device's real IP (and so SYCL's answer) is not known: the pytorch form leaves the field out and says why.
    expect(pytorchProps(r)[0]!.architecture).toBeUndefined();
    expect(pytorchDevices(r)[0]!.omitted.architecture).toMatch(/PCI device id/);
  });

  it('ARL-H without Intel OpenCL: bf16 conversion comes from the arch table and is emitted, marked inferred', () => {
    const r = buildReport({ ze: zeProbe([device({ name: 'Intel(R) Arc(TM) Graphics', deviceId: 0x7d51, ipVersion: 0x03128004, dpFlags: 3, blockArrayFlags: 0, moduleFlags: 0 })]) });
    const text = formatTritonEnv(r);
    expect(text).toMatch(/^TRITON_INTEL_DEVICE_ARCH=arl_h\nTRITON_INTEL_DEVICE_EXTENSIONS="cl_intel_subgroup_matrix_multiply_accumulate cl_intel_bfloat16_conversions"/);
    expect(text).toMatch(/# inferred from the arch table \(compute-runtime\), not asked of the driver: has_subgroup_matrix_multiply_accumulate_tensor_float32, has_bfloat16_conversion$/);
    expect(text).not.toMatch(/EXTENSIONS=""/);
  });

  it('leaves TRITON_INTEL_DEVICE_ARCH out for a part Triton has no name for (PVC-VG), but keeps its extensions', () => {
    const r = buildReport({ ze: zeProbe([device({ deviceId: 0x0bd4, ipVersion: 0x030f4007 })]) });
    expect(formatTritonEnv(r).split('\n')[0]).toBe('# TRITON_INTEL_DEVICE_ARCH not set: Triton has no name for pvc_vg (ip 12.61.7)');
    expect(tritonEnv(r)!.extensions).toEqual(['cl_intel_subgroup_2d_block_io', 'cl_intel_bfloat16_conversions']);
  });

  it('--format pytorch matches a Max 1550 dump: types and values (int64 architecture, UR driver version and platform)', () => {
    // torch.xpu.get_device_properties() on one Max 1550 tile: 448 EUs in 56 sub-slices, work-group 1024, sub-groups 16/32.
    const tile = device({ numSlices: 1, numSubslicesPerSlice: 56, numEUsPerSubslice: 8, ipVersion: 0x030f0007, moduleFlags: 0b111, dpFlags: 3, blockArrayFlags: 3 });
    const ze = zeProbe([tile]);
    ze.drivers[0]!.driverVersion = (1 << 24) | (6 << 16) | 33578;
    const r = buildReport({ ze, opencl: [{ ...clPvc, extensions: PVC_DRIVER_EXTENSIONS }] });
    const p = pytorchProps(r)[0]!;
    expect(p).toMatchObject({
      name: 'Intel(R) Data Center GPU Max 1550', platform_name: 'Intel(R) oneAPI Unified Runtime over Level-Zero', type: 'gpu',
      driver_version: '1.6.33578', version: '12.60.7', max_compute_units: 448, gpu_eu_count: 448, gpu_subslice_count: 56,
      max_work_group_size: 1024, max_num_sub_groups: 64, sub_group_sizes: [16, 32], has_fp16: true, has_fp64: true, has_atomic64: true,
      has_bfloat16_conversions: true, has_subgroup_matrix_multiply_accumulate: true, has_subgroup_2d_block_io: true,
      has_subgroup_matrix_multiply_accumulate_tensor_float32: false,
    });
    expect(p.architecture).toBe(13136561920n);
    const json = formatPytorch(r);
    expect(json).toMatch(/"architecture": 13136561920\b/);
    expect(JSON.parse(json)[0].architecture).toBe(13136561920);
  });

  it('names UR\'s platform as UR reported it, else as UR_LOADER_USE_LEVEL_ZERO_V2 selects the adapter', () => {
    const r = buildReport({ ze: zeProbe([device({ ipVersion: 0x05004004 })]) });
    expect(pytorchProps(r, {})[0]!.platform_name).toBe('Intel(R) oneAPI Unified Runtime over Level-Zero');
    expect(pytorchProps(r, { UR_LOADER_USE_LEVEL_ZERO_V2: '1' })[0]!.platform_name).toBe('Intel(R) oneAPI Unified Runtime over Level-Zero V2');
    expect(pytorchProps(r, { SYCL_UR_USE_LEVEL_ZERO_V2: '0' })[0]!.platform_name).toBe('Intel(R) oneAPI Unified Runtime over Level-Zero');
    r.ur = { loaderPath: '/x', init: 0, adapters: 1, adapterResult: 0, backends: [1], platforms: ['Intel(R) oneAPI Unified Runtime over Level-Zero V2'], devices: [], notes: [] };
    expect(pytorchProps(r, {})[0]!.platform_name).toBe('Intel(R) oneAPI Unified Runtime over Level-Zero V2');
  });

  it('writes driver_version as UR does: major.minor.build from the packed integer', () => {
    expect(urDriverVersion(0x010683ea)).toBe('1.6.33770');
    expect(urDriverVersion((1 << 24) | (3 << 16) | 27642)).toBe('1.3.27642');
    // With the driver's version string (compute-runtime 1.3.27642.40 reports 1.3.27642+40), that string.
    expect(urDriverVersion((1 << 24) | (3 << 16) | 27642, '1.3.27642+40')).toBe('1.3.27642+40');
  });

  it('labels each flag name with the consumer that reads it, and no PyTorch-only field as a Triton key', () => {
    const r = buildReport({ ze: zeProbe([device({ ipVersion: 0x030f0007 })]) });
    const v = formatVerbose(r);
    expect(v).toMatch(/has_2d_block_io \(Triton\) \/ has_subgroup_2d_block_io \(PyTorch\)/);
    expect(v).toMatch(/has_bfloat16_conversion \(Triton\) \/ has_bfloat16_conversions \(PyTorch\)/);
    expect(v).toMatch(/ has_fp16 \(PyTorch\) /);
    expect(v).toMatch(/ has_atomic64 \(PyTorch\) /);
    expect(v).not.toMatch(/has_fp16 \(Triton/);
  });

  it('does not trust zelLoaderGetVersions rows that are blank (loader 1.8.12 after a failed zeInit)', () => {
    expect(trustComponents([{ name: '', spec: '0.0', version: '0.0.0' }])).toBe(false);
    expect(trustComponents([])).toBe(false);
    expect(trustComponents([{ name: 'loader', spec: '1.4', version: '1.8.12' }])).toBe(true);
  });
});
