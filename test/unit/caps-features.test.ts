import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveFeatures, parseClinfo } from '../../src/caps/features.js';
import { formatLines, formatTritonEnv, pytorchProps, tritonEnv } from '../../src/caps/format.js';
import { buildReport, matchOpenCl, trustComponents } from '../../src/caps/model.js';
import type { OpenClDevice, RawDevice, RawZeProbe } from '../../src/runtime/types.js';

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

describe('feature flags from captured OpenCL extension lists', () => {
  it('derives every Triton flag from the PVC list, marked as OpenCL', () => {
    const flags = deriveFeatures({ openclExtensions: extList(fixture('pvc-aurora-triton-extensions.txt')) });
    for (const k of ['dpas', 'dpas_tf32', 'block_2d_io', 'bf16_conversions']) {
      expect(flag(flags, k)).toMatchObject({ value: true, source: 'opencl' });
    }
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

  it('falls back to the arch table, marked inferred, and says when nothing answered', () => {
    const flags = deriveFeatures({ arch: 'dg2' });
    expect(flag(flags, 'dpas')).toMatchObject({ value: true, source: 'arch', detail: 'inferred from arch dg2' });
    expect(flag(flags, 'dpas_tf32')).toMatchObject({ value: null, source: 'none' });
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

  it('takes the IP version from OpenCL when L0 could not ask, and prints Triton variables', () => {
    const r = buildReport({ ze: zeProbe([device()]), opencl: [clPvc] });
    expect(r.schema).toBe('xpu-setup.probe/1');
    expect(r.devices[0]!.arch).toMatchObject({ name: 'pvc', source: 'opencl' });
    expect(tritonEnv(r)).toEqual({ arch: 'pvc', extensions: extList(fixture('pvc-aurora-triton-extensions.txt')) });
    expect(formatTritonEnv(r)).toBe(`TRITON_INTEL_DEVICE_ARCH=pvc\nTRITON_INTEL_DEVICE_EXTENSIONS="${extList(fixture('pvc-aurora-triton-extensions.txt')).join(' ')}"`);
    expect(formatLines(r)).toBe('[level_zero:gpu][level_zero:0.0] Intel(R) Data Center GPU Max 1550 1.3 [pvc 12.60.7]');
    expect(pytorchProps(r)[0]).toMatchObject({ has_subgroup_2d_block_io: true, gpu_eu_count: 64, gpu_subslice_count: 8, sub_group_sizes: [16, 32] });
  });

  it('says the architecture is unknown when no IP version was reported, and leaves TRITON_INTEL_DEVICE_ARCH out', () => {
    const r = buildReport({ ze: zeProbe([device({ ipVersion: null })]) });
    expect(r.devices[0]!.arch.name).toBe('unknown (no ip version reported)');
    expect(formatTritonEnv(r).split('\n')[0]).toMatch(/^# TRITON_INTEL_DEVICE_ARCH not set/);
    expect(r.notes.join('\n')).toMatch(/no Intel OpenCL GPU device/);
  });

  it('does not trust zelLoaderGetVersions rows that are blank (loader 1.8.12 after a failed zeInit)', () => {
    expect(trustComponents([{ name: '', spec: '0.0', version: '0.0.0' }])).toBe(false);
    expect(trustComponents([])).toBe(false);
    expect(trustComponents([{ name: 'loader', spec: '1.4', version: '1.8.12' }])).toBe(true);
  });
});
