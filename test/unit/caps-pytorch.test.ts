import { describe, expect, it } from 'vitest';
import { dashedUuid, formatPytorch, formatVerbose, pytorchDevices } from '../../src/caps/format.js';
import { buildReport } from '../../src/caps/model.js';
import type { RawDevice, RawZeProbe } from '../../src/bindings/types.js';

// torch/csrc/xpu/Module.cpp (2026): THXP_FORALL_DEVICE_PROPERTIES, then total_memory, gpu_subslice_count, architecture,
// type and uuid; last_level_cache_size (pytorch#184499) and is_integrated_gpu (pytorch#182624) added in 2026.
const PYTORCH_FIELDS = [
  'name', 'platform_name', 'vendor', 'device_id', 'driver_version', 'version', 'max_compute_units', 'gpu_eu_count',
  'max_work_group_size', 'max_num_sub_groups', 'memory_clock_rate', 'memory_bus_width', 'sub_group_sizes', 'local_mem_size',
  'last_level_cache_size', 'has_fp16', 'has_fp64', 'has_atomic64', 'has_bfloat16_conversions',
  'has_subgroup_matrix_multiply_accumulate', 'has_subgroup_matrix_multiply_accumulate_tensor_float32', 'has_subgroup_2d_block_io',
  'is_integrated_gpu', 'total_memory', 'gpu_subslice_count', 'architecture', 'type', 'uuid',
];

function raw(over: Partial<RawDevice>): RawDevice {
  return {
    name: 'Intel(R) Data Center GPU Max 1550', type: 1, vendorId: 0x8086, deviceId: 0x0bd5, flags: 0, subdeviceId: 0,
    coreClockRate: 1600, maxMemAllocSize: 2 ** 34, numThreadsPerEU: 8, physicalEUSimdWidth: 16, numEUsPerSubslice: 8,
    numSubslicesPerSlice: 64, numSlices: 1, uuid: 'd47ef34079ecb1ea0000000000000001', maxTotalGroupSize: 1024, maxGroupSize: [1024, 1024, 1024],
    maxSharedLocalMemory: 131072, subGroupSizes: [16, 32], spirvVersion: '1.2', moduleFlags: 0b111, fp16flags: 0, fp64flags: 0,
    dpFlags: 3, blockArrayFlags: 3, ipVersion: 0x030f0007, memories: [{ name: 'HBM', totalSize: 65520 * 2 ** 20, maxClockRate: 3200, maxBusWidth: 64 }],
    pci: null, subDevices: 0, cacheBytes: 196608 * 1024, ...over,
  };
}

function report(d: RawDevice, versionString = '1.6.33578+51') {
  const ze: RawZeProbe = {
    via: 'koffi', loaderPath: '/p/lib/libze_loader.so.1', init: 0, components: [], notes: [],
    drivers: [{ apiVersion: '1.3', driverVersion: (1 << 24) | (6 << 16) | 33578, driverVersionString: versionString, uuid: '', extensions: [], devices: [d] }],
  };
  return buildReport({ ze });
}

describe('--format pytorch: PyTorch\'s whole property set', () => {
  it('gives every field of _XpuDeviceProperties, with the values a Max 1550 tile printed (torch-xpu-ops#3891)', () => {
    // _XpuDeviceProperties(name='Intel(R) Data Center GPU Max 1550', platform_name='Intel(R) oneAPI Unified Runtime over Level-Zero',
    // type='gpu', device_id=0xBD5, uuid=d47ef340-79ec-b1ea-0000-000000000001, driver_version='1.6.33578+51', total_memory=65520MB,
    // local_mem_size=128KB, last_level_cache_size=196608KB, max_compute_units=512, memory_clock_rate=3200MHz, memory_bus_width=64-bit,
    // gpu_eu_count=512, gpu_subslice_count=64, max_work_group_size=1024, max_num_sub_groups=64, sub_group_sizes=[16 32],
    // has_fp16=1, has_fp64=1, has_atomic64=1, is_integrated_gpu=0)
    const [p] = pytorchDevices(report(raw({})));
    expect(Object.keys(p!.props)).toEqual(PYTORCH_FIELDS);
    expect(p!.omitted).toEqual({});
    expect(p!.props).toMatchObject({
      name: 'Intel(R) Data Center GPU Max 1550', platform_name: 'Intel(R) oneAPI Unified Runtime over Level-Zero', type: 'gpu',
      device_id: 0xbd5, uuid: 'd47ef340-79ec-b1ea-0000-000000000001', driver_version: '1.6.33578+51', total_memory: 65520 * 2 ** 20,
      local_mem_size: 128 * 1024, last_level_cache_size: 196608 * 1024, max_compute_units: 512, memory_clock_rate: 3200,
      memory_bus_width: 64, gpu_eu_count: 512, gpu_subslice_count: 64, max_work_group_size: 1024, max_num_sub_groups: 64,
      sub_group_sizes: [16, 32], has_fp16: true, has_fp64: true, has_atomic64: true, is_integrated_gpu: false,
      vendor: 'Intel(R) Corporation', version: '12.60.7', architecture: 13136561920n,
    });
  });

  it('the reference driver\'s CPU profile: UR\'s vendor string, no null, the ocloc-answered flags left out with the reason', () => {
    const cpu = raw({
      name: 'xpu-setup CPU reference device (PoCL)', type: 2, vendorId: 0x10006, deviceId: 0, ipVersion: 0, dpFlags: 0, blockArrayFlags: 0,
      subGroupSizes: [1], numEUsPerSubslice: 4, numSubslicesPerSlice: 1, moduleFlags: 0b101, memories: [{ name: 'host', totalSize: 2 ** 33, maxClockRate: 0, maxBusWidth: 0 }], cacheBytes: 0,
    });
    const [p] = pytorchDevices(report(cpu, '1.0.0'));
    expect(Object.values(p!.props)).not.toContain(null);
    expect(p!.props).toMatchObject({ vendor: 'Intel(R) Corporation', type: 'cpu', version: '0.0.0', has_fp16: true, has_fp64: false, is_integrated_gpu: false, last_level_cache_size: 0 });
    // SYCL answers unknown for a device that is not a GPU; PyTorch stores it as a negative int64.
    expect(p!.props.architecture).toBe(-7421932185906577408n);
    expect(Object.keys(p!.omitted).sort()).toEqual(['has_bfloat16_conversions', 'has_subgroup_2d_block_io', 'has_subgroup_matrix_multiply_accumulate', 'has_subgroup_matrix_multiply_accumulate_tensor_float32']);
    expect(p!.omitted.has_subgroup_2d_block_io).toMatch(/ocloc/);
  });

  it('CRI (35.11.0): every flag from the arch table, architecture unknown since SYCL has no enum for it', () => {
    const [p] = pytorchDevices(report(raw({ ipVersion: 0x08c2c000, dpFlags: null, blockArrayFlags: null })));
    expect(Object.values(p!.props)).not.toContain(null);
    expect(p!.omitted).toEqual({});
    expect(p!.props).toMatchObject({ has_subgroup_matrix_multiply_accumulate: true, has_subgroup_2d_block_io: true, has_bfloat16_conversions: true, architecture: -7421932185906577408n });
  });

  it('BMG-G21 A0 (20.1.0) gets intel_gpu_bmg_g21 as SYCL\'s runtime maps it (0x500400400)', () => {
    const [p] = pytorchDevices(report(raw({ ipVersion: 0x05004000 })));
    expect(p!.props.architecture).toBe(0x500400400n);
    expect(formatPytorch(report(raw({ ipVersion: 0x05004000 })))).toMatch(/"architecture": 21479031808,/);
  });

  it('--verbose shows what SYCL answers, the stepping that matched, and why a part is not confirmed', () => {
    expect(formatVerbose(report(raw({ ipVersion: 0x05004000 })))).toMatch(/SYCL arch\s+intel_gpu_bmg_g21 \(stepping A0 \(20\.1\.0\)\)\n/);
    expect(formatVerbose(report(raw({ ipVersion: 0x05008000 })))).toMatch(/SYCL arch\s+intel_gpu_bmg_g31 \(stepping A0 \(20\.2\.0\)\): device_architecture\.def has intel_gpu_bmg_g31, but/);
  });

  it('prints the uuid as PyTorch\'s uuid_to_string does: 8-4-4-4-12 over the bytes in order', () => {
    expect(dashedUuid('8680d50b2f0000003c00000000000001')).toBe('8680d50b-2f00-0000-3c00-000000000001');
  });

  it('leaves a field out, with the reason, when the probe cannot know it', () => {
    const [p] = pytorchDevices(report(raw({ cacheBytes: null, subGroupSizes: [], ipVersion: null, pci: null, deviceId: 0x1234 })));
    expect(p!.omitted).toMatchObject({
      last_level_cache_size: 'zeDeviceGetCacheProperties was not answered',
      max_num_sub_groups: 'the driver reports no sub-group sizes',
      version: expect.stringMatching(/IP version is not known/),
      architecture: expect.stringMatching(/IP version is not known/),
    });
    for (const k of Object.keys(p!.omitted)) expect(p!.props).not.toHaveProperty(k);
  });
});
