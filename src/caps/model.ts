// Turns raw probe data into the capability report: devices named, arch mapped, flags with provenance, loader checked.
import type { WinLoaderFacts } from '../bindings/win-loader.js';
import * as path from 'node:path';
import type { OpenClDevice, RawDevice, RawLoaderComponent, RawUrProbe, RawZeProbe } from '../bindings/types.js';
import { DEVICE_PROPERTY_FLAG, DEVICE_TYPE } from '../bindings/ze-abi.js';
import { gpuIds, type GpuIdRow } from '../machine/gpu-ids.js';
import type { NoDriverExplanation } from '../machine/ze-drivers.js';
import { archForIp, archForRowName, decodeIp, syclAnswer, type ArchInfo } from './arch.js';
import { deriveFeatures, type FeatureFlag } from './features.js';

export const REPORT_SCHEMA = 'xpu-setup.probe/1';

export interface DeviceReport {
  /** "driver.device": which driver (platform) and which of its devices. */
  id: string;
  /** Position among all Level Zero devices across drivers, as SYCL's ONEAPI_DEVICE_SELECTOR and sycl-ls count. */
  index: number;
  name: string;
  type: string;
  vendorId: string;
  deviceId: string;
  uuid: string;
  pci: string | null;
  euCount: number;
  threadsPerEU: number;
  simdWidth: number;
  slices: number;
  subslices: number;
  coreClockMHz: number;
  maxWorkGroupSize: number;
  subGroupSizes: number[];
  memoryBytes: number;
  maxMemAllocBytes: number;
  subDevices: number;
  eusPerSubslice: number;
  /** Shared local memory per work-group (maxSharedLocalMemory). */
  localMemBytes: number;
  /** The slowest memory module's clock and bus width, as UR reports them (0 when the driver lists no module). */
  memoryClockMHz: number;
  memoryBusWidth: number;
  /** ZE_DEVICE_PROPERTY_FLAG_INTEGRATED. */
  integrated: boolean;
  /** The first cache's size (0 when the driver lists none); undefined or null when it was not asked or the call failed. */
  cacheBytes?: number | null;
  /** What ze_device_ip_version_ext_t said; null when it was not asked (the driver does not list the extension). */
  l0IpVersion: number | null;
  /** Where the IP version came from: L0, the OpenCL twin, or only the PCI device id (stepping unknown). */
  arch: ArchInfo & { source: 'l0' | 'opencl' | 'pci' | 'none' };
  features: FeatureFlag[];
  opencl: { platform: string; device: string; matchedBy: 'pci' | 'device id' | 'name' } | null;
  driver: { index: number; apiVersion: string; version: number; versionString?: string };
}

export interface LoaderReport {
  path: string;
  /** The file the path resolves to, e.g. libze_loader.so.1.8.0. */
  file?: string;
  components: RawLoaderComponent[];
  /** False when zelLoaderGetVersions answered nothing usable (empty names, 0.0.0). */
  componentsTrusted: boolean;
  installedVersion?: string;
  /** Windows: the module actually loaded, other copies, and what a program started from the env files gets. */
  windows?: WinLoaderFacts;
}

export interface ProbeReport {
  schema: typeof REPORT_SCHEMA;
  via: 'koffi' | 'addon';
  loader: LoaderReport;
  zeInit: number;
  drivers: { index: number; apiVersion: string; version: number; extensions: string[] }[];
  devices: DeviceReport[];
  ur?: RawUrProbe;
  /** Where the loader came from: an xpu-setup prefix, or the system's own (distro, GPU driver, oneAPI). */
  origin?: { kind: 'prefix'; prefix: string } | { kind: 'system'; via: string };
  /** The environment's device filters and what they hid (ZE_AFFINITY_MASK acts inside the driver). */
  selection?: { affinityMask?: string; deviceSelector?: string; hiddenBySelector: string[] };
  /** When zeInit failed: which driver libraries load here and what the kernel side lacks. */
  noDriver?: NoDriverExplanation;
  notes: string[];
}

export function pciString(p: { domain: number; bus: number; device: number; function: number } | null): string | null {
  if (!p) return null;
  const h = (n: number, w: number) => n.toString(16).padStart(w, '0');
  return `${h(p.domain, 4)}:${h(p.bus, 2)}:${h(p.device, 2)}.${p.function.toString(16)}`;
}

/** zelLoaderGetVersions can "succeed" with blank slots (loader 1.8.12 after zeInit fails): only real rows count. */
export function trustComponents(c: RawLoaderComponent[]): boolean {
  return c.length > 0 && c.every((x) => x.name.trim() !== '' && x.version !== '0.0.0');
}

/** The Intel GPU OpenCL device that is the same hardware: PCI address first, then device id, then a unique name. */
export function matchOpenCl(d: RawDevice, cl: OpenClDevice[]): { dev: OpenClDevice; by: 'pci' | 'device id' | 'name' } | undefined {
  const intel = cl.filter((c) => c.type === 'gpu' && c.vendorId === 0x8086);
  const pci = pciString(d.pci);
  if (pci) {
    const m = intel.find((c) => pciString(c.pci) === pci);
    if (m) return { dev: m, by: 'pci' };
  }
  const byId = intel.filter((c) => c.deviceId !== null && c.deviceId === d.deviceId);
  if (byId.length === 1) return { dev: byId[0]!, by: 'device id' };
  const byName = intel.filter((c) => c.name === d.name);
  if (byName.length === 1) return { dev: byName[0]!, by: 'name' };
  return undefined;
}

const hex4 = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;

export interface ReportInputs {
  ze: RawZeProbe;
  opencl?: OpenClDevice[];
  ur?: RawUrProbe;
  loaderFile?: string;
  installedVersion?: string;
  /** The PCI id table (data/intel-gpu-ids.csv); tests pass their own. */
  gpuIds?: Map<number, GpuIdRow>;
}

/** The architecture a PCI device id belongs to, from the shipped id table's `arch` column. */
export function archForPciId(vendorId: number, deviceId: number, ids: Map<number, GpuIdRow>): ArchInfo | undefined {
  if (vendorId !== 0x8086) return undefined;
  const row = ids.get(deviceId);
  return row?.arch ? archForRowName(row.arch) : undefined;
}

export function buildReport(input: ReportInputs): ProbeReport {
  const { ze } = input;
  const cl = input.opencl ?? [];
  const notes = [...ze.notes];
  const devices: DeviceReport[] = [];
  ze.drivers.forEach((drv, di) => {
    drv.devices.forEach((d, ji) => {
      const m = matchOpenCl(d, cl);
      let arch: DeviceReport['arch'];
      let fromPci: ArchInfo | undefined;
      if (d.ipVersion) arch = { ...archForIp(d.ipVersion), source: 'l0' };
      else if (m?.dev.ipVersion) arch = { ...archForIp(m.dev.ipVersion), source: 'opencl' };
      else if ((fromPci = archForPciId(d.vendorId, d.deviceId, input.gpuIds ?? gpuIds()))) arch = { ...fromPci, source: 'pci' };
      else {
        const why = d.ipVersion === 0 ? 'the driver left ze_device_ip_version_ext_t at 0' : 'no ip version reported';
        arch = { ip: 0, version: '', known: false, name: `unknown (${why})`, triton: null, aliases: [], syclAnswer: syclAnswer(0), source: 'none' };
      }
      devices.push({
        id: `${di}.${ji}`,
        index: devices.length,
        name: d.name,
        type: DEVICE_TYPE[d.type] ?? `type ${d.type}`,
        vendorId: hex4(d.vendorId),
        deviceId: hex4(d.deviceId),
        uuid: d.uuid,
        pci: pciString(d.pci),
        euCount: d.numSlices * d.numSubslicesPerSlice * d.numEUsPerSubslice,
        threadsPerEU: d.numThreadsPerEU,
        simdWidth: d.physicalEUSimdWidth,
        slices: d.numSlices,
        subslices: d.numSlices * d.numSubslicesPerSlice,
        coreClockMHz: d.coreClockRate,
        maxWorkGroupSize: d.maxTotalGroupSize,
        subGroupSizes: d.subGroupSizes,
        memoryBytes: d.memories.reduce((s, x) => s + x.totalSize, 0),
        maxMemAllocBytes: d.maxMemAllocSize,
        subDevices: d.subDevices,
        eusPerSubslice: d.numEUsPerSubslice,
        localMemBytes: d.maxSharedLocalMemory,
        memoryClockMHz: d.memories.length ? Math.min(...d.memories.map((m) => m.maxClockRate)) : 0,
        memoryBusWidth: d.memories.length ? Math.min(...d.memories.map((m) => m.maxBusWidth)) : 0,
        integrated: (d.flags & DEVICE_PROPERTY_FLAG.INTEGRATED) !== 0,
        cacheBytes: d.cacheBytes,
        l0IpVersion: d.ipVersion,
        arch,
        features: deriveFeatures({
          device: d,
          openclExtensions: m?.dev.extensions,
          openclDevice: m ? `${m.dev.platform} / ${m.dev.name}` : undefined,
          arch: arch.known ? arch.sycl : undefined,
          revision: arch.known && arch.source !== 'pci' ? decodeIp(arch.ip).revision : undefined,
        }),
        opencl: m ? { platform: m.dev.platform, device: m.dev.name, matchedBy: m.by } : null,
        driver: { index: di, apiVersion: drv.apiVersion, version: drv.driverVersion, ...(drv.driverVersionString ? { versionString: drv.driverVersionString } : {}) },
      });
    });
  });
  if (!cl.some((c) => c.type === 'gpu' && c.vendorId === 0x8086) && devices.length > 0) {
    notes.push('no Intel OpenCL GPU device (intel-opencl-icd): flags not answered by L0 come from the arch table');
  }
  const trusted = trustComponents(ze.components);
  if (!trusted) notes.push('zelLoaderGetVersions gave no usable component versions; the loader version comes from the install receipt and file name');
  return {
    schema: REPORT_SCHEMA,
    via: ze.via,
    loader: {
      path: ze.loaderPath,
      file: input.loaderFile ? path.basename(input.loaderFile) : undefined,
      components: ze.components,
      componentsTrusted: trusted,
      installedVersion: input.installedVersion,
    },
    zeInit: ze.init,
    drivers: ze.drivers.map((d, i) => ({ index: i, apiVersion: d.apiVersion, version: d.driverVersion, extensions: d.extensions.map((e) => e.name) })),
    devices,
    ur: input.ur,
    notes,
  };
}
