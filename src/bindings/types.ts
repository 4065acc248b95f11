// Raw probe data as the runtime reads it, before the capability model names anything; koffi and the addon both produce it.

export interface RawLoaderComponent {
  name: string;
  spec: string;
  version: string;
}

export interface RawDevice {
  name: string;
  /** ze_device_type_t: 1 gpu, 2 cpu, 3 fpga, 4 mca, 5 vpu */
  type: number;
  vendorId: number;
  deviceId: number;
  flags: number;
  subdeviceId: number;
  coreClockRate: number;
  maxMemAllocSize: number;
  numThreadsPerEU: number;
  physicalEUSimdWidth: number;
  numEUsPerSubslice: number;
  numSubslicesPerSlice: number;
  numSlices: number;
  uuid: string;
  maxTotalGroupSize: number;
  maxGroupSize: [number, number, number];
  maxSharedLocalMemory: number;
  subGroupSizes: number[];
  spirvVersion: string;
  moduleFlags: number;
  fp16flags: number;
  fp64flags: number;
  /** ze_intel_device_module_dp_exp_properties_t flags; null when not asked. */
  dpFlags: number | null;
  /** ze_intel_device_block_array_exp_properties_t flags; null when not asked. */
  blockArrayFlags: number | null;
  /** ze_device_ip_version_ext_t; null when not asked. */
  ipVersion: number | null;
  memories: { name: string; totalSize: number; maxClockRate: number; maxBusWidth: number }[];
  pci: { domain: number; bus: number; device: number; function: number } | null;
  subDevices: number;
  /** The first cache zeDeviceGetCacheProperties lists (0 when none, null when the call failed); only the koffi probe asks. */
  cacheBytes?: number | null;
}

export interface RawDriver {
  apiVersion: string;
  driverVersion: number;
  /** ZE_intel_get_driver_version_string's answer ("1.6.33578+51"); only the koffi probe asks for it. */
  driverVersionString?: string;
  uuid: string;
  extensions: { name: string; version: number }[];
  devices: RawDevice[];
}

export interface RawZeProbe {
  via: 'koffi' | 'addon';
  loaderPath: string;
  /** zeInit's result; anything but 0 means no driver was usable. */
  init: number;
  /** As zelLoaderGetVersions reported them (before any sanity check). */
  components: RawLoaderComponent[];
  drivers: RawDriver[];
  /** What could not be asked, and why. */
  notes: string[];
}

export interface OpenClDevice {
  platform: string;
  platformVendor: string;
  name: string;
  type: 'gpu' | 'cpu' | 'accelerator' | 'other';
  vendorId: number;
  /** CL_DEVICE_ID_INTEL (cl_intel_device_attribute_query), when answered. */
  deviceId: number | null;
  /** CL_DEVICE_IP_VERSION_INTEL, when answered. */
  ipVersion: number | null;
  pci: { domain: number; bus: number; device: number; function: number } | null;
  driverVersion: string;
  extensions: string[];
}

export interface UrDevice {
  adapterBackend: number | null;
  platform: string;
  name: string;
  type: number | null;
  vendorId: number | null;
  deviceId: number | null;
  /** UR_DEVICE_INFO_IP_VERSION, or null with the result code in ipVersionResult. */
  ipVersion: number | null;
  ipVersionResult: number;
}

export interface RawUrProbe {
  loaderPath: string;
  init: number;
  adapters: number;
  adapterResult: number;
  /** UR_ADAPTER_INFO_BACKEND of each adapter urAdapterGet returned (1: Level Zero, 2: OpenCL), null when not answered. */
  backends: (number | null)[];
  platforms: string[];
  devices: UrDevice[];
  notes: string[];
}
