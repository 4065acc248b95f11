// Level Zero ABI facts the koffi bindings need: result codes, structure types and struct layouts (x86-64 and Win64 agree).

export const ZE_RESULT: Record<number, string> = {
  0x0: 'ZE_RESULT_SUCCESS',
  0x1: 'ZE_RESULT_NOT_READY',
  0x70000001: 'ZE_RESULT_ERROR_DEVICE_LOST',
  0x70000002: 'ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY',
  0x70000003: 'ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY',
  0x70000004: 'ZE_RESULT_ERROR_MODULE_BUILD_FAILURE',
  0x70000005: 'ZE_RESULT_ERROR_MODULE_LINK_FAILURE',
  0x70010000: 'ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS',
  0x70010001: 'ZE_RESULT_ERROR_NOT_AVAILABLE',
  0x70020000: 'ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE',
  0x78000001: 'ZE_RESULT_ERROR_UNINITIALIZED',
  0x78000002: 'ZE_RESULT_ERROR_UNSUPPORTED_VERSION',
  0x78000003: 'ZE_RESULT_ERROR_UNSUPPORTED_FEATURE',
  0x78000004: 'ZE_RESULT_ERROR_INVALID_ARGUMENT',
  0x78000005: 'ZE_RESULT_ERROR_INVALID_NULL_HANDLE',
  0x78000007: 'ZE_RESULT_ERROR_INVALID_NULL_POINTER',
  0x78000008: 'ZE_RESULT_ERROR_INVALID_SIZE',
  0x7800000c: 'ZE_RESULT_ERROR_INVALID_ENUMERATION',
  0x7800000d: 'ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION',
  0x7800000f: 'ZE_RESULT_ERROR_INVALID_NATIVE_BINARY',
  0x78000011: 'ZE_RESULT_ERROR_INVALID_KERNEL_NAME',
  0x78000013: 'ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION',
  0x78000015: 'ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX',
  0x78000016: 'ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE',
  0x7ffffffe: 'ZE_RESULT_ERROR_UNKNOWN',
};

export const ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001;
export const ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004;

export function zeResultName(r: number): string {
  const hex = `0x${(r >>> 0).toString(16)}`;
  const name = ZE_RESULT[r >>> 0];
  return name ? `${name} (${hex})` : `result ${hex}`;
}

export const STYPE = {
  DRIVER_PROPERTIES: 0x1,
  DEVICE_PROPERTIES: 0x3,
  DEVICE_COMPUTE_PROPERTIES: 0x4,
  DEVICE_MODULE_PROPERTIES: 0x5,
  DEVICE_MEMORY_PROPERTIES: 0x7,
  DEVICE_CACHE_PROPERTIES: 0x9,
  CONTEXT_DESC: 0xd,
  COMMAND_QUEUE_DESC: 0xe,
  COMMAND_LIST_DESC: 0xf,
  EVENT_POOL_DESC: 0x10,
  EVENT_DESC: 0x11,
  FENCE_DESC: 0x12,
  DEVICE_MEM_ALLOC_DESC: 0x15,
  HOST_MEM_ALLOC_DESC: 0x16,
  MODULE_DESC: 0x1b,
  KERNEL_DESC: 0x1d,
  PCI_EXT_PROPERTIES: 0x10008,
  /** ze_device_ip_version_ext_t, headers >= 1.9 */
  DEVICE_IP_VERSION_EXT: 0x1000f,
  /** ze_intel_gpu.h: ze_intel_device_block_array_exp_properties_t, chained to ze_device_properties_t */
  INTEL_DEVICE_BLOCK_ARRAY_EXP_PROPERTIES: 0x00030007,
  /** ze_intel_gpu.h: ze_intel_device_module_dp_exp_properties_t, chained to ze_device_module_properties_t */
  INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES: 0x00030013,
} as const;

/** Driver extension names that gate the chained structs above. */
export const EXT = {
  ipVersion: 'ZE_extension_device_ip_version',
  pci: 'ZE_extension_pci_properties',
  dp: 'ZE_intel_experimental_device_module_dp_properties',
  blockArray: 'ZE_intel_experimental_device_block_array_properties',
} as const;

export const DP_FLAG = { DP4A: 1, DPAS: 2 } as const;
export const BLOCK_ARRAY_FLAG = { STORE: 1, LOAD: 2 } as const;
/** ze_device_property_flag_t */
export const DEVICE_PROPERTY_FLAG = { INTEGRATED: 1 } as const;
export const MODULE_FLAG = { FP16: 1, FP64: 2, INT64_ATOMICS: 4, DP4A: 8 } as const;

/** Byte offsets and sizes of the structs used, checked against the C compiler by a test. */
export const LAYOUT = {
  driverProperties: { size: 40, uuid: 16, driverVersion: 32 },
  driverExtension: { size: 260, name: 0, nameLen: 256, version: 256 },
  deviceProperties: {
    size: 368, type: 16, vendorId: 20, deviceId: 24, flags: 28, subdeviceId: 32, coreClockRate: 36,
    maxMemAllocSize: 40, maxHardwareContexts: 48, maxCommandQueuePriority: 52, numThreadsPerEU: 56,
    physicalEUSimdWidth: 60, numEUsPerSubslice: 64, numSubslicesPerSlice: 68, numSlices: 72,
    timerResolution: 80, uuid: 96, name: 112, nameLen: 256,
  },
  computeProperties: {
    size: 88, maxTotalGroupSize: 16, maxGroupSizeX: 20, maxGroupSizeY: 24, maxGroupSizeZ: 28,
    maxSharedLocalMemory: 44, numSubGroupSizes: 48, subGroupSizes: 52,
  },
  moduleProperties: {
    size: 64, spirvVersionSupported: 16, flags: 20, fp16flags: 24, fp32flags: 28, fp64flags: 32,
    maxArgumentsSize: 36, printfBufferSize: 40,
  },
  memoryProperties: { size: 296, flags: 16, maxClockRate: 20, maxBusWidth: 24, totalSize: 32, name: 40, nameLen: 256 },
  cacheProperties: { size: 32, flags: 16, cacheSize: 24 },
  pciProperties: { size: 48, domain: 16, bus: 20, device: 24, function: 28 },
  /** ip version, DP and block-array extension structs: stype, pNext, one uint32. */
  extU32: { size: 24, value: 16 },
  componentVersion: { size: 80, name: 0, nameLen: 64, spec: 64, major: 68, minor: 72, patch: 76 },
  commandQueueDesc: { size: 40, ordinal: 16, index: 20, flags: 24, mode: 28, priority: 32 },
  commandListDesc: { size: 24, ordinal: 16, flags: 20 },
  memAllocDesc: { size: 24, flags: 16, ordinal: 20 },
  moduleDesc: { size: 56, format: 16, inputSize: 24, pInputModule: 32, pBuildFlags: 40, pConstants: 48 },
  kernelDesc: { size: 32, flags: 16, pKernelName: 24 },
  eventPoolDesc: { size: 24, flags: 16, count: 20 },
  eventDesc: { size: 32, index: 16, signal: 20, wait: 24 },
  groupCount: { size: 12 },
} as const;

export const DEVICE_TYPE: Record<number, string> = { 1: 'gpu', 2: 'cpu', 3: 'fpga', 4: 'mca', 5: 'vpu' };

export function apiVersionString(v: number): string {
  return `${v >>> 16}.${v & 0xffff}`;
}

